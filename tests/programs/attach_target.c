/* A long-running program started without gpuleak, for `gpuleak attach`
 * (tests/t_attach.sh).  At start it allocates 1 MiB and 2 MiB with
 * cudaMalloc, fetches cuMemAlloc_v2 with dlsym into a global (a pointer
 * fetched before any attach), prints the driver's used memory and "ready",
 * then reads one command a line on stdin and answers "ok CMD":
 *   rt N       cudaMalloc(N), never freed            (the shared runtime)
 *   drv N      cuMemAlloc_v2(N), never freed         (the driver, imported)
 *   early N    through the pointer fetched at start  (the driver, dlsym'd before)
 *   late N     through a pointer dlsym'd now         (the driver, dlsym'd after)
 *   free-pre   cudaFree of the 2 MiB made at start
 *   keep N     cudaMalloc(N) into the one kept pointer (tests/t_attachfresh.sh)
 *   free-kept  cudaFree of the kept pointer
 *   used       prints the driver's used memory now
 *   quit       exits with status 7
 * Every call's result is printed, so that a run with an attach in between
 * must print exactly what a run without one prints. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

typedef CUresult (*mem_alloc_fn)(CUdeviceptr *, size_t);
static mem_alloc_fn early_alloc; /* in .bss: found by the attach's scan */
static void *libcuda;

static void leak_rt(size_t n)
{
    void *p = NULL;
    printf("rt %d\n", (int)cudaMalloc(&p, n)); /* LEAK_RT */
}

static void leak_drv(size_t n)
{
    CUdeviceptr p = 0;
    printf("drv %d\n", (int)cuMemAlloc(&p, n)); /* LEAK_DRV */
}

static void leak_early(size_t n)
{
    CUdeviceptr p = 0;
    printf("early %d\n", (int)early_alloc(&p, n)); /* LEAK_EARLY */
}

static void *kept;

static void keep(size_t n)
{
    printf("keep %d\n", (int)cudaMalloc(&kept, n)); /* KEEP */
}

static void print_used(void)
{
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    printf("used %zu\n", total - free_bytes);
}

static void leak_late(size_t n)
{
    mem_alloc_fn late = (mem_alloc_fn)dlsym(libcuda, "cuMemAlloc_v2");
    CUdeviceptr p = 0;
    printf("late %d\n", (int)late(&p, n)); /* LEAK_LATE */
}

int main(void)
{
    void *pre1 = NULL, *pre2 = NULL;
    if (cudaMalloc(&pre1, 1 << 20) != cudaSuccess || cudaMalloc(&pre2, 2 << 20) != cudaSuccess)
        return 1;
    libcuda = dlopen("libcuda.so.1", RTLD_NOW);
    early_alloc = libcuda ? (mem_alloc_fn)dlsym(libcuda, "cuMemAlloc_v2") : NULL;
    if (early_alloc == NULL)
        return 1;
    print_used();
    printf("ready\n");
    fflush(stdout);
    char line[128];
    while (fgets(line, sizeof line, stdin) != NULL) {
        char cmd[32];
        unsigned long n = 0;
        if (sscanf(line, "%31s %lu", cmd, &n) < 1)
            continue;
        if (strcmp(cmd, "rt") == 0)
            leak_rt(n);
        else if (strcmp(cmd, "drv") == 0)
            leak_drv(n);
        else if (strcmp(cmd, "early") == 0)
            leak_early(n);
        else if (strcmp(cmd, "late") == 0)
            leak_late(n);
        else if (strcmp(cmd, "free-pre") == 0)
            printf("free-pre %d\n", (int)cudaFree(pre2));
        else if (strcmp(cmd, "keep") == 0)
            keep(n);
        else if (strcmp(cmd, "free-kept") == 0)
            printf("free-kept %d\n", (int)cudaFree(kept));
        else if (strcmp(cmd, "used") == 0)
            print_used();
        else if (strcmp(cmd, "quit") == 0)
            break;
        printf("ok %s\n", cmd);
        fflush(stdout);
    }
    (void)pre1;
    return 7;
}
