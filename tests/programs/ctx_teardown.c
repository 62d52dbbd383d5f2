/* What a context teardown does not take with it.  CUDA documents that
 * stream-ordered and cuMemCreate allocations belong to no context (they
 * outlive cuCtxDestroy and cudaDeviceReset), and that cudaDeviceReset with a
 * context of the program's own current destroys only the runtime's state.
 * Each scenario makes memory of both sorts, tears the context down, then
 * frees what should have survived, printing each result as "OBS what rc"
 * (0: the memory was still there):
 *   primary-reset  cuDevicePrimaryCtxReset: pool and VMM memory survive
 *   ctx-destroy    cuCtxDestroy: a pool allocation made in it survives
 *   own-ctx-reset  cudaDeviceReset with an own context current: all survives
 *   primary-release  the primary context's last cuDevicePrimaryCtxRelease
 *                  resets it (an earlier release does not)
 *   v1-release     the same, with the pre-11.0 ABI fetched at version 7000,
 *                  as NVIDIA's CUDA 13 runtime fetches it
 *   ctx-detach     cuCtxDetach (fetched at 2000, as by that runtime) of a
 *                  context attached once more: the first keeps it, the
 *                  second destroys it
 *   green-last     a green context (fetched at 12040, cudaTypedefs.h's
 *                  version) holds the primary context's last reference: its
 *                  cuGreenCtxDestroy resets it, taking what was allocated in
 *                  the green context's CUcontext and in the primary
 *                  (green_alloc, primary_alloc)
 *   green-held     a green context destroyed while the program still holds
 *                  the primary context: its allocation survives and is freed;
 *                  the program's last release is the reset
 *   green-leak     an allocation in a green context never freed, the process
 *                  exiting with the primary context retained: a leak
 * Exactly one allocation per teardown is lost with its context
 * (lost_with_context), so a report has one teardown group per scenario
 * (green-last: the two green and primary allocations). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "mem_props.h"
#include "primary_ctx.h"

#define NOINLINE __attribute__((noinline))
#define MiB (1024u * 1024u)

static CUstream stream(void)
{
    CUstream s;
    check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    return s;
}

NOINLINE static CUdeviceptr pool_alloc(CUstream s, size_t bytes)
{
    CUdeviceptr p;
    check(cuMemAllocAsync(&p, bytes, s), "cuMemAllocAsync");
    check(cuStreamSynchronize(s), "cuStreamSynchronize");
    return p;
}

NOINLINE static void lost_with_context(size_t bytes)
{
    CUdeviceptr p;
    check(cuMemAlloc(&p, bytes), "cuMemAlloc"); /* LOST-SITE */
}

static void primary_reset(void)
{
    CUdevice dev = use_primary(0);
    CUdeviceptr pool = pool_alloc(stream(), 300000);
    size_t gran = 0;
    CUmemAllocationProp prop = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
    check(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "granularity");
    size_t size = gran > 2 * MiB ? gran : 2 * MiB;
    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    check(cuMemCreate(&h, size, &prop, 0), "cuMemCreate");
    check(cuMemAddressReserve(&va, size, 0, 0, 0), "cuMemAddressReserve");
    check(cuMemMap(va, size, 0, h, 0), "cuMemMap");
    lost_with_context(6000);
    check(cuDevicePrimaryCtxReset(dev), "cuDevicePrimaryCtxReset");
    use_primary(0);
    CUstream s = stream();
    printf("OBS pool-free %d\n", (int)cuMemFreeAsync(pool, s));
    cuStreamSynchronize(s);
    printf("OBS vmm-unmap %d\n", (int)cuMemUnmap(va, size));
    printf("OBS vmm-release %d\n", (int)cuMemRelease(h));
    printf("OBS va-free %d\n", (int)cuMemAddressFree(va, size));
}

static void ctx_destroy(void)
{
    CUdevice dev;
    CUcontext own;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuCtxCreate(&own, NULL, 0, dev), "cuCtxCreate");
    CUdeviceptr pool = pool_alloc(stream(), 400000);
    lost_with_context(5000);
    check(cuCtxDestroy(own), "cuCtxDestroy");
    use_primary(0);
    CUstream s = stream();
    printf("OBS pool-free %d\n", (int)cuMemFreeAsync(pool, s));
    cuStreamSynchronize(s);
}

static void own_ctx_reset(void)
{
    void *p = NULL;
    if (cudaSetDevice(0) != cudaSuccess || cudaMalloc(&p, 7000) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        exit(1);
    }
    CUdevice dev;
    CUcontext own;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuCtxCreate(&own, NULL, 0, dev), "cuCtxCreate");
    printf("OBS reset %d\n", (int)cudaDeviceReset());
    check(cuCtxDestroy(own), "cuCtxDestroy");
    printf("OBS rt-free %d\n", (int)cudaFree(p));
}

static void primary_release(void)
{
    CUdevice dev = use_primary(0);
    CUcontext again;
    check(cuDevicePrimaryCtxRetain(&again, dev), "cuDevicePrimaryCtxRetain"); /* two references */
    CUdeviceptr kept;
    check(cuMemAlloc(&kept, 4000), "cuMemAlloc");
    check(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease"); /* not the last */
    printf("OBS kept-free %d\n", (int)cuMemFree(kept));
    CUdeviceptr pool = pool_alloc(stream(), 200000);
    lost_with_context(3000);
    check(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease"); /* the last: a reset */
    use_primary(0);
    CUstream s = stream();
    printf("OBS pool-free %d\n", (int)cuMemFreeAsync(pool, s));
    cuStreamSynchronize(s);
}

/* An entry point the way NVIDIA's runtime gets it: by base name at the
 * version it asks for (tools/fakecuda/real_runtime_requests.txt). */
static void *fetch(const char *name, int version)
{
    void *fn = NULL;
    check(cuGetProcAddress(name, &fn, version, 0, NULL), name);
    return fn;
}

static void v1_release(void)
{
    CUresult (*release)(CUdevice) = (CUresult(*)(CUdevice))fetch("cuDevicePrimaryCtxRelease", 7000);
    CUdevice dev = use_primary(0);
    CUcontext again;
    check(cuDevicePrimaryCtxRetain(&again, dev), "cuDevicePrimaryCtxRetain"); /* two references */
    CUdeviceptr kept;
    check(cuMemAlloc(&kept, 4000), "cuMemAlloc");
    check(release(dev), "cuDevicePrimaryCtxRelease@7000"); /* not the last */
    printf("OBS kept-free %d\n", (int)cuMemFree(kept));
    lost_with_context(3000);
    check(release(dev), "cuDevicePrimaryCtxRelease@7000"); /* the last: a reset */
}

static void ctx_detach(void)
{
    CUresult (*attach)(CUcontext *, unsigned) = (CUresult(*)(CUcontext *, unsigned))fetch("cuCtxAttach", 2000);
    CUresult (*detach)(CUcontext) = (CUresult(*)(CUcontext))fetch("cuCtxDetach", 2000);
    CUdevice dev;
    CUcontext own, same;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuCtxCreate(&own, NULL, 0, dev), "cuCtxCreate");
    check(attach(&same, 0), "cuCtxAttach"); /* two usages */
    CUdeviceptr kept;
    check(cuMemAlloc(&kept, 4000), "cuMemAlloc");
    check(detach(own), "cuCtxDetach"); /* not the last */
    printf("OBS kept-free %d\n", (int)cuMemFree(kept));
    lost_with_context(2000);
    check(detach(own), "cuCtxDetach"); /* the last: destroyed */
}

/* Green contexts, the way a program built for CUDA 12.4 or later gets them */
typedef CUresult (*get_res_fn)(CUdevice, CUdevResource *, CUdevResourceType);
typedef CUresult (*split_fn)(CUdevResource *, unsigned *, const CUdevResource *, CUdevResource *, unsigned, unsigned);
typedef CUresult (*gen_desc_fn)(CUdevResourceDesc *, CUdevResource *, unsigned);
typedef CUresult (*green_create_fn)(CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned);
typedef CUresult (*green_destroy_fn)(CUgreenCtx);
typedef CUresult (*from_green_fn)(CUcontext *, CUgreenCtx);

/* A green context of 8 SMs on dev, its CUcontext made current. */
static CUgreenCtx green_current(CUdevice dev)
{
    CUdevResource whole, groups[2];
    unsigned n = 2;
    CUdevResourceDesc desc;
    CUgreenCtx g;
    CUcontext gc;
    check(((get_res_fn)fetch("cuDeviceGetDevResource", 12040))(dev, &whole, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
    check(((split_fn)fetch("cuDevSmResourceSplitByCount", 12040))(groups, &n, &whole, NULL, 0, 8), "split");
    check(((gen_desc_fn)fetch("cuDevResourceGenerateDesc", 12040))(&desc, groups, 1), "cuDevResourceGenerateDesc");
    check(((green_create_fn)fetch("cuGreenCtxCreate", 12040))(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM), "cuGreenCtxCreate");
    check(((from_green_fn)fetch("cuCtxFromGreenCtx", 12040))(&gc, g), "cuCtxFromGreenCtx");
    check(cuCtxSetCurrent(gc), "cuCtxSetCurrent(green)");
    return g;
}

static void green_destroy(CUgreenCtx g)
{
    check(((green_destroy_fn)fetch("cuGreenCtxDestroy", 12040))(g), "cuGreenCtxDestroy");
}

static int primary_active(CUdevice dev)
{
    unsigned flags;
    int active = -1;
    check(cuDevicePrimaryCtxGetState(dev, &flags, &active), "cuDevicePrimaryCtxGetState");
    return active;
}

NOINLINE static CUdeviceptr green_alloc(size_t bytes)
{
    CUdeviceptr p;
    check(cuMemAlloc(&p, bytes), "cuMemAlloc(green)"); /* GREEN-SITE */
    return p;
}

NOINLINE static CUdeviceptr primary_alloc(size_t bytes)
{
    CUdeviceptr p;
    check(cuMemAlloc(&p, bytes), "cuMemAlloc(primary)"); /* PRIMARY-SITE */
    return p;
}

static void green_last(void)
{
    CUdevice dev;
    CUcontext p;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&p, dev), "cuDevicePrimaryCtxRetain");
    CUgreenCtx g = green_current(dev);
    green_alloc(3 * MiB);
    check(cuCtxSetCurrent(p), "cuCtxSetCurrent(primary)");
    primary_alloc(1 * MiB);
    check(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease"); /* not the last */
    printf("OBS active %d\n", primary_active(dev));
    green_destroy(g); /* the last: a reset */
    printf("OBS active %d\n", primary_active(dev));
}

static size_t free_now(void)
{
    size_t free_b = 0, total = 0;
    check(cuMemGetInfo(&free_b, &total), "cuMemGetInfo");
    return free_b;
}

/* Also prints what the driver's free memory does around the destruction
 * and the free ("INFO ..."): on hardware, whether the green context's
 * allocation outlived it (scripts/gpu-check.sh's green case). */
static void green_held(void)
{
    CUdevice dev;
    CUcontext p;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&p, dev), "cuDevicePrimaryCtxRetain");
    CUgreenCtx g = green_current(dev);
    CUdeviceptr kept = green_alloc(3 * MiB);
    check(cuCtxSetCurrent(p), "cuCtxSetCurrent(primary)");
    size_t before = free_now();
    green_destroy(g); /* the program still holds the primary context */
    size_t after = free_now();
    printf("INFO free-before-destroy %zu\nINFO free-after-destroy %zu\n", before, after);
    printf("OBS active %d\n", primary_active(dev));
    printf("OBS green-free %d\n", (int)cuMemFree(kept));
    printf("INFO free-after-free %zu\n", free_now());
    lost_with_context(3000);
    check(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease"); /* the last: a reset */
}

static void green_leak(void)
{
    CUdevice dev;
    CUcontext p;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&p, dev), "cuDevicePrimaryCtxRetain");
    green_current(dev);
    green_alloc(2 * MiB); /* never freed; the process exits holding the primary context */
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    check(cuInit(0), "cuInit");
    if (!strcmp(what, "primary-reset"))
        primary_reset();
    else if (!strcmp(what, "ctx-destroy"))
        ctx_destroy();
    else if (!strcmp(what, "own-ctx-reset"))
        own_ctx_reset();
    else if (!strcmp(what, "primary-release"))
        primary_release();
    else if (!strcmp(what, "v1-release"))
        v1_release();
    else if (!strcmp(what, "ctx-detach"))
        ctx_detach();
    else if (!strcmp(what, "green-last"))
        green_last();
    else if (!strcmp(what, "green-held"))
        green_held();
    else if (!strcmp(what, "green-leak"))
        green_leak();
    else {
        fprintf(stderr, "usage: ctx_teardown primary-reset|ctx-destroy|own-ctx-reset|primary-release|v1-release|ctx-detach|"
                        "green-last|green-held|green-leak\n");
        return 2;
    }
    return 0;
}
