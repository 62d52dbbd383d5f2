/* The ledger of used memory (tests/t_ledger.sh), on fakecuda with known
 * costs: each device's used memory is made of
 *   device 0: two cudaMalloc (4 MiB, 2 MiB); the default pool keeping 2 MiB
 *     in reserve beside a live 2 MiB cudaMallocAsync; a pool of its own
 *     (cudaMemPoolCreate) keeping 2 MiB in reserve, nothing live; a 3 MiB
 *     fatbin loaded (4 MiB: fakecuda's 2 MiB pages); a graph keeping a
 *     2 MiB allocation, and a second graph whose 2 MiB scratch allocation it
 *     frees, left in the graph memory pool's reserve; the primary context
 *     (fakecuda: 4 MiB) and other processes (FAKECUDA_OTHER_USED before it,
 *     FAKECUDA_OTHER_USED_LATER after it);
 *   device 1: one cudaMalloc of 2 MiB, its context (5 MiB) and the others'.
 * Sizes are whole 2 MiB pages, so the driver's rounding adds nothing.
 * `ledger reset` first resets device 0's primary context (cudaDeviceReset
 * after a cudaMalloc), so the context is created and measured twice. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "fatbin_image.h"
#include "graph_alloc.h"
#include "mem_props.h"

#define MiB ((size_t)1024 * 1024)

static void keep_reserve(cudaMemPool_t pool)
{
    uint64_t max = UINT64_MAX;
    rt_check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &max), "cudaMemPoolSetAttribute");
}

static void pools(void)
{
    cudaMemPool_t def, own;
    rt_check(cudaDeviceGetDefaultMemPool(&def, 0), "cudaDeviceGetDefaultMemPool");
    keep_reserve(def);
    void *live, *freed;
    rt_check(cudaMallocAsync(&live, 2 * MiB, 0), "cudaMallocAsync");
    rt_check(cudaMallocAsync(&freed, 2 * MiB, 0), "cudaMallocAsync");
    rt_check(cudaFreeAsync(freed, 0), "cudaFreeAsync");
    struct cudaMemPoolProps props = rt_device0_pool_props(cudaMemAllocationTypePinned);
    rt_check(cudaMemPoolCreate(&own, &props), "cudaMemPoolCreate");
    keep_reserve(own);
    void *p;
    rt_check(cudaMallocFromPoolAsync(&p, 2 * MiB, own, 0), "cudaMallocFromPoolAsync");
    rt_check(cudaFreeAsync(p, 0), "cudaFreeAsync");
    rt_check(cudaStreamSynchronize(0), "cudaStreamSynchronize");
}

static void module(void)
{
    unsigned char *image = fatbin_image(3 * MiB);
    CUmodule m;
    check(cuModuleLoadFatBinary(&m, image), "cuModuleLoadFatBinary");
    free(image);
}

static void launch(cudaGraph_t g)
{
    cudaGraphExec_t x;
    rt_check(cudaGraphInstantiate(&x, g, 0), "cudaGraphInstantiate");
    rt_check(cudaGraphLaunch(x, 0), "cudaGraphLaunch");
    rt_check(cudaStreamSynchronize(0), "cudaStreamSynchronize");
}

static void graphs(void)
{
    cudaGraph_t kept, scratch;
    cudaGraphNode_t n, a;
    rt_check(cudaGraphCreate(&kept, 0), "cudaGraphCreate");
    struct cudaMemAllocNodeParams p = graph_alloc_params(2 * MiB);
    rt_check(cudaGraphAddMemAllocNode(&n, kept, NULL, 0, &p), "cudaGraphAddMemAllocNode");
    launch(kept);
    rt_check(cudaGraphCreate(&scratch, 0), "cudaGraphCreate");
    p = graph_alloc_params(2 * MiB);
    rt_check(cudaGraphAddMemAllocNode(&a, scratch, NULL, 0, &p), "cudaGraphAddMemAllocNode");
    rt_check(cudaGraphAddMemFreeNode(&n, scratch, &a, 1, p.dptr), "cudaGraphAddMemFreeNode");
    launch(scratch);
}

int main(int argc, char **argv)
{
    void *a, *b, *c;
    rt_check(cudaSetDevice(0), "cudaSetDevice");
    if (argc > 1 && strcmp(argv[1], "reset") == 0) {
        rt_check(cudaMalloc(&a, 2 * MiB), "cudaMalloc");
        rt_check(cudaDeviceReset(), "cudaDeviceReset");
    }
    rt_check(cudaMalloc(&a, 4 * MiB), "cudaMalloc");
    rt_check(cudaMalloc(&b, 2 * MiB), "cudaMalloc");
    pools();
    module();
    graphs();
    rt_check(cudaSetDevice(1), "cudaSetDevice");
    rt_check(cudaMalloc(&c, 2 * MiB), "cudaMalloc");
    return 0;
}
