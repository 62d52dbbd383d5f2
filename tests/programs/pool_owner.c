/* Pools as owners, with known outcomes on device 0:
 *   - a pool never destroyed (leak_pool_object), whose release threshold
 *     keeps the 4 MiB block of a freed 4 MiB allocation reserved: reported
 *     with its creation line and its reserve, 4 MiB
 *   - a pool made by the runtime (cudaMemPoolCreate), never destroyed and
 *     never used: reserve 0, at rt_leak_pool_object's line
 *   - a pool created, used and destroyed: nothing
 *   - a pool never destroyed (leak_pool_and_block) that keeps a freed 4 MiB
 *     block reserved and from which 1 MiB is allocated and never freed: the
 *     1 MiB block is a leak of its own, and the pool's is only its idle
 *     reserve (reserved minus used), so nothing is counted twice */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "mem_props.h"

#define NOINLINE __attribute__((noinline))
#define MiB ((size_t)1024 * 1024)

static void use(CUmemoryPool pool)
{
    CUdeviceptr p;
    check(cuMemAllocFromPoolAsync(&p, 4 * MiB, pool, 0), "cuMemAllocFromPoolAsync");
    check(cuMemFreeAsync(p, 0), "cuMemFreeAsync");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
}

NOINLINE static void leak_pool_object(void)
{
    CUmemPoolProps props = device0_pool_props(CU_MEM_ALLOCATION_TYPE_PINNED);
    CUmemoryPool pool;
    check(cuMemPoolCreate(&pool, &props), "cuMemPoolCreate"); /* POOL-SITE */
    cuuint64_t keep = UINT64_MAX; /* what it reserves stays reserved */
    check(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep), "cuMemPoolSetAttribute");
    use(pool);
}

NOINLINE static void rt_leak_pool_object(void)
{
    struct cudaMemPoolProps props = rt_device0_pool_props(cudaMemAllocationTypePinned);
    cudaMemPool_t pool;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) { /* RT-SITE */
        fprintf(stderr, "cudaMemPoolCreate failed\n");
        exit(1);
    }
}

NOINLINE static void destroyed_pool(void)
{
    CUmemPoolProps props = device0_pool_props(CU_MEM_ALLOCATION_TYPE_PINNED);
    CUmemoryPool pool;
    check(cuMemPoolCreate(&pool, &props), "cuMemPoolCreate");
    use(pool);
    check(cuMemPoolDestroy(pool), "cuMemPoolDestroy");
}

NOINLINE static void leak_pool_and_block(void)
{
    CUmemPoolProps props = device0_pool_props(CU_MEM_ALLOCATION_TYPE_PINNED);
    CUmemoryPool pool;
    check(cuMemPoolCreate(&pool, &props), "cuMemPoolCreate"); /* POOL2-SITE */
    cuuint64_t keep = UINT64_MAX;
    check(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep), "cuMemPoolSetAttribute");
    use(pool);
    CUdeviceptr p;
    check(cuMemAllocFromPoolAsync(&p, 1 * MiB, pool, 0), "cuMemAllocFromPoolAsync"); /* BLOCK-SITE */
    check(cuCtxSynchronize(), "cuCtxSynchronize");
}

int main(void)
{
    CUcontext ctx;
    if (cudaSetDevice(0) != cudaSuccess || cudaFree(0) != cudaSuccess) {
        fprintf(stderr, "no device\n");
        return 1;
    }
    check(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
    leak_pool_object();
    rt_leak_pool_object();
    destroyed_pool();
    leak_pool_and_block();
    return 0;
}
