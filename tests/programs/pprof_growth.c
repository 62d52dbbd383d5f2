/* Known memory at known lines, and growth between two snapshots of one
 * process, for --pprof (tests/t_report_pprof.sh): steady() holds 3 MiB on
 * device 0 and pinned() 8 KiB of host memory from the start; churn() makes
 * and frees ten 4 KiB blocks (allocated, not in use); spread() holds
 * 512 KiB on device 0 and 1 MiB on device 1 from one line (a site on two
 * devices, which CALLS does not tell apart); grow() leaks 1 MiB
 * before mid.snap is requested and 2 MiB more after it.  The final snapshot
 * is written at exit. */
#include <cuda_runtime_api.h>
#include <stdlib.h>

int gpuleak_snapshot(const char *path) __attribute__((weak));

static void *keep[8], *spread_keep[2];

static void check(cudaError_t e)
{
    if (e != cudaSuccess)
        exit(1);
}

__attribute__((noinline)) static void *steady(void)
{
    void *p;
    check(cudaMalloc(&p, 3 << 20)); /* PPROF-SITE: steady */
    return p;
}

__attribute__((noinline)) static void *pinned(void)
{
    void *p;
    check(cudaMallocHost(&p, 8192)); /* PPROF-SITE: pinned */
    return p;
}

__attribute__((noinline)) static void churn(void)
{
    for (int i = 0; i < 10; i++) {
        void *p;
        check(cudaMalloc(&p, 4096)); /* PPROF-SITE: churn */
        check(cudaFree(p));
    }
}

__attribute__((noinline)) static void spread(void **keep2)
{
    for (int d = 0; d < 2; d++) {
        check(cudaSetDevice(d));
        check(cudaMalloc(&keep2[d], (size_t)(d + 1) << 19)); /* PPROF-SITE: spread */
    }
    check(cudaSetDevice(0));
}

__attribute__((noinline)) static void *grow(void)
{
    void *p;
    check(cudaMalloc(&p, 1 << 20)); /* PPROF-SITE: grow */
    return p;
}

int main(void)
{
    keep[0] = steady();
    keep[1] = pinned();
    churn();
    spread(spread_keep);
    for (int i = 0; i < 3; i++) {
        keep[2 + i] = grow(); /* PPROF-SITE: main-grow */
        if (i == 0 && gpuleak_snapshot && gpuleak_snapshot("mid.snap") != 0)
            return 1;
    }
    return 0;
}
