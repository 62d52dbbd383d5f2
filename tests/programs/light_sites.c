/* A known allocation pattern for light mode (GPULEAK_MODE=light,
 * tests/t_light_mode.sh): many small allocations from one line, a few large
 * ones from another, and small ones freed in a loop from a third.
 *   light_sites [SMALL_COUNT [MID_SNAPSHOT]]
 * small_site leaks SMALL_COUNT (default 10000) allocations of 4096 bytes;
 * large_site leaks 3 of 64 MiB; churn_site makes and frees 5000 of 8192.
 * MID_SNAPSHOT: a snapshot asked for at that path halfway through the small
 * ones (the allocations, so the samples, are the same). */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define SMALL_BYTES 4096
#define LARGE_BYTES (64u << 20)
#define CHURN_BYTES 8192

__attribute__((noinline)) static void small_site(void)
{
    void *p;
    if (cudaMalloc(&p, SMALL_BYTES) != cudaSuccess) /* SITE: small */
        abort();
}

__attribute__((noinline)) static void large_site(void)
{
    void *p;
    if (cudaMalloc(&p, LARGE_BYTES) != cudaSuccess) /* SITE: large */
        abort();
}

__attribute__((noinline)) static void churn_site(void)
{
    void *p;
    if (cudaMalloc(&p, CHURN_BYTES) != cudaSuccess) /* SITE: churn */
        abort();
    if (cudaFree(p) != cudaSuccess)
        abort();
}

int gpuleak_snapshot(const char *path) __attribute__((weak));

int main(int argc, char **argv)
{
    long small = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
    for (long i = 0; i < small; i++) {
        if (argc > 2 && i == small / 2 && (!gpuleak_snapshot || gpuleak_snapshot(argv[2]) != 0))
            abort();
        small_site();
        if (i % (small / 3 + 1) == 0)
            large_site(); /* interleaved: the countdown runs across sites */
    }
    for (int i = 0; i < 5000; i++)
        churn_site();
    printf("done\n");
    return 0;
}
