/* CUDA 13 managed-memory pools (CU_MEM_ALLOCATION_TYPE_MANAGED), with known
 * outcomes on device 0: from a managed pool (driver and runtime), what
 * cuMemAllocFromPoolAsync / cudaMallocFromPoolAsync take is managed memory;
 * from a pinned pool, pool memory.
 *   - 3 MiB from a managed pool (driver), never freed: leak_managed
 *   - 4 MiB from a managed pool (runtime), never freed: rt_leak_managed
 *   - 1 MiB from a pinned pool, never freed: leak_pool
 *   - 2 MiB from the managed pool, freed with cuMemFreeAsync
 *   - 5 MiB from device 0's default managed pool (cuMemGetDefaultMemPool,
 *     13.0), never freed: leak_default_managed
 *   - 6 MiB from the current managed pool of no preferred location
 *     (cuMemGetMemPool), never freed: leak_current_managed
 *   - cuMemSetMemPool makes the created managed pool device 0's current
 *     managed pool: printed "CURRENT created" (or "CURRENT other")
 * With argv[1] "reset", cudaDeviceReset last: stream-ordered memory is "not
 * associated with any CUDA context", a managed pool's too, so it survives.
 * Exits 3 ("SKIP ...") where the driver has no managed pools. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "mem_props.h"

#define NOINLINE __attribute__((noinline))
#define MiB ((size_t)1024 * 1024)

static CUmemoryPool pool_of(CUmemAllocationType type)
{
    CUmemPoolProps props = device0_pool_props(type);
    CUmemoryPool pool;
    CUresult rc = cuMemPoolCreate(&pool, &props);
    if (rc != CUDA_SUCCESS && type == CU_MEM_ALLOCATION_TYPE_MANAGED) {
        printf("SKIP no managed pools (cuMemPoolCreate: %d)\n", (int)rc);
        exit(3);
    }
    check(rc, "cuMemPoolCreate");
    return pool;
}

NOINLINE static void leak_managed(CUmemoryPool pool)
{
    CUdeviceptr p;
    check(cuMemAllocFromPoolAsync(&p, 3 * MiB, pool, 0), "cuMemAllocFromPoolAsync"); /* MANAGED-SITE */
}

NOINLINE static void leak_pool(CUmemoryPool pool)
{
    CUdeviceptr p;
    check(cuMemAllocFromPoolAsync(&p, 1 * MiB, pool, 0), "cuMemAllocFromPoolAsync"); /* POOL-SITE */
}

NOINLINE static void freed_managed(CUmemoryPool pool)
{
    CUdeviceptr p;
    check(cuMemAllocFromPoolAsync(&p, 2 * MiB, pool, 0), "cuMemAllocFromPoolAsync");
    check(cuMemFreeAsync(p, 0), "cuMemFreeAsync");
}

static CUmemLocation where_(CUmemLocationType type, int id)
{
    CUmemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = type;
    loc.id = id;
    return loc;
}

NOINLINE static void leak_default_managed(void)
{
    CUmemLocation dev0 = where_(CU_MEM_LOCATION_TYPE_DEVICE, 0);
    CUmemoryPool pool;
    check(cuMemGetDefaultMemPool(&pool, &dev0, CU_MEM_ALLOCATION_TYPE_MANAGED), "cuMemGetDefaultMemPool");
    CUdeviceptr p;
    check(cuMemAllocFromPoolAsync(&p, 5 * MiB, pool, 0), "cuMemAllocFromPoolAsync"); /* DEFAULT-SITE */
}

NOINLINE static void leak_current_managed(void)
{
    CUmemLocation none = where_(CU_MEM_LOCATION_TYPE_NONE, 0);
    CUmemoryPool pool;
    check(cuMemGetMemPool(&pool, &none, CU_MEM_ALLOCATION_TYPE_MANAGED), "cuMemGetMemPool");
    CUdeviceptr p;
    check(cuMemAllocFromPoolAsync(&p, 6 * MiB, pool, 0), "cuMemAllocFromPoolAsync"); /* CURRENT-SITE */
}

static void set_current(CUmemoryPool managed)
{
    CUmemLocation dev0 = where_(CU_MEM_LOCATION_TYPE_DEVICE, 0);
    CUmemoryPool cur;
    check(cuMemSetMemPool(&dev0, CU_MEM_ALLOCATION_TYPE_MANAGED, managed), "cuMemSetMemPool");
    check(cuMemGetMemPool(&cur, &dev0, CU_MEM_ALLOCATION_TYPE_MANAGED), "cuMemGetMemPool");
    printf("CURRENT %s\n", cur == managed ? "created" : "other");
}

NOINLINE static void rt_leak_managed(void)
{
    struct cudaMemPoolProps props = rt_device0_pool_props(cudaMemAllocationTypeManaged);
    cudaMemPool_t pool;
    rt_check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    void *p;
    rt_check(cudaMallocFromPoolAsync(&p, 4 * MiB, pool, 0), "cudaMallocFromPoolAsync"); /* RT-SITE */
}

int main(int argc, char **argv)
{
    CUdevice dev;
    CUcontext ctx;
    rt_check(cudaSetDevice(0), "cudaSetDevice");
    rt_check(cudaFree(0), "cudaFree"); /* the runtime's primary context, current */
    check(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUmemoryPool managed = pool_of(CU_MEM_ALLOCATION_TYPE_MANAGED);
    CUmemoryPool pinned = pool_of(CU_MEM_ALLOCATION_TYPE_PINNED);
    leak_managed(managed);
    leak_pool(pinned);
    freed_managed(managed);
    rt_leak_managed();
    leak_default_managed();
    leak_current_managed();
    set_current(managed);
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    if (argc > 1 && !strcmp(argv[1], "reset"))
        rt_check(cudaDeviceReset(), "cudaDeviceReset");
    return 0;
}
