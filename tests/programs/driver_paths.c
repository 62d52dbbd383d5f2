/* The driver allocation families reached through every way a program can
 * obtain driver entry points:
 *   direct    the program's own references to libcuda's exports
 *   dlsym     dlopen("libcuda.so.1") + dlsym of the versioned names
 *   procaddr  dlsym of cuGetProcAddress_v2 only, then queries by base name
 *             (exactly how the CUDA runtime gets every driver function)
 *   entry     cudaGetDriverEntryPointByVersion from the runtime
 *   procaddr-ptds the same with the per-thread default stream flag (_ptsz)
 *   entry-legacy  cudaGetDriverEntryPoint (no version argument)
 * Each family leaks once from its own named function. */
#define __CUDA_API_VERSION_INTERNAL /* declare the _v2 names as they are */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "mem_props.h"

struct driver {
    CUresult (*init)(unsigned);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*primary_retain)(CUcontext *, CUdevice);
    CUresult (*ctx_set)(CUcontext);
    CUresult (*mem_alloc)(CUdeviceptr *, size_t);
    CUresult (*mem_free)(CUdeviceptr);
    CUresult (*alloc_managed)(CUdeviceptr *, size_t, unsigned);
    CUresult (*alloc_host)(void **, size_t);
    CUresult (*alloc_async)(CUdeviceptr *, size_t, CUstream);
    CUresult (*free_async)(CUdeviceptr, CUstream);
    CUresult (*array_create)(CUarray *, const CUDA_ARRAY_DESCRIPTOR *);
    CUresult (*stream_sync)(CUstream);
    CUresult (*alloc_pitch)(CUdeviceptr *, size_t *, size_t, size_t, unsigned);
    CUresult (*host_alloc)(void **, size_t, unsigned);
    CUresult (*host_register)(void *, size_t, unsigned);
    CUresult (*pool_get)(CUmemoryPool *, CUdevice);
    CUresult (*alloc_from_pool)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
    CUresult (*array3d_create)(CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *);
    CUresult (*mipmap_create)(CUmipmappedArray *, const CUDA_ARRAY3D_DESCRIPTOR *, unsigned);
    CUresult (*mem_create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
};

#define NOINLINE __attribute__((noinline))

static void *need(void *p, const char *what)
{
    if (p == NULL) {
        fprintf(stderr, "cannot get %s\n", what);
        exit(1);
    }
    return p;
}

NOINLINE static void leak_mem_alloc(const struct driver *d)
{
    CUdeviceptr p;
    check(d->mem_alloc(&p, 110000), "cuMemAlloc");
}
NOINLINE static void leak_managed(const struct driver *d)
{
    CUdeviceptr p;
    check(d->alloc_managed(&p, 120000, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged");
}
NOINLINE static void leak_host(const struct driver *d)
{
    void *p;
    check(d->alloc_host(&p, 130000), "cuMemAllocHost");
}
NOINLINE static void leak_async(const struct driver *d)
{
    CUdeviceptr p;
    check(d->alloc_async(&p, 140000, NULL), "cuMemAllocAsync");
}
NOINLINE static void leak_array(const struct driver *d)
{
    CUarray a;
    CUDA_ARRAY_DESCRIPTOR desc = {.Width = 100, .Height = 10, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 2};
    check(d->array_create(&a, &desc), "cuArrayCreate"); /* 100 x 10 x 2 x 4 = 8000 bytes */
}

NOINLINE static void leak_pitch(const struct driver *d)
{
    CUdeviceptr p;
    size_t pitch;
    check(d->alloc_pitch(&p, &pitch, 1000, 20, 4), "cuMemAllocPitch"); /* pitch x 20 */
}
NOINLINE static void leak_host_alloc(const struct driver *d)
{
    void *p;
    check(d->host_alloc(&p, 150000, 0), "cuMemHostAlloc");
}
NOINLINE static void leak_registered(const struct driver *d)
{
    void *p = malloc(160000);
    check(d->host_register(p, 160000, 0), "cuMemHostRegister");
}
NOINLINE static void leak_from_pool(const struct driver *d)
{
    CUmemoryPool pool;
    CUdeviceptr p;
    check(d->pool_get(&pool, 0), "cuDeviceGetDefaultMemPool");
    check(d->alloc_from_pool(&p, 170000, pool, NULL), "cuMemAllocFromPoolAsync");
}
NOINLINE static void leak_array3d(const struct driver *d)
{
    CUarray a;
    CUDA_ARRAY3D_DESCRIPTOR desc = {.Width = 10, .Height = 10, .Depth = 10, .Format = CU_AD_FORMAT_UNSIGNED_INT16, .NumChannels = 1};
    check(d->array3d_create(&a, &desc), "cuArray3DCreate"); /* 10 x 10 x 10 x 2 = 2000 bytes */
}
NOINLINE static void leak_mipmap(const struct driver *d)
{
    CUmipmappedArray a;
    CUDA_ARRAY3D_DESCRIPTOR desc = {.Width = 64, .Height = 64, .Format = CU_AD_FORMAT_UNSIGNED_INT8, .NumChannels = 4};
    check(d->mipmap_create(&a, &desc, 3), "cuMipmappedArrayCreate"); /* (64*64 + 32*32 + 16*16) x 4 = 21504 */
}
NOINLINE static void leak_vmm(const struct driver *d)
{
    CUmemAllocationProp prop = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
    CUmemGenericAllocationHandle h;
    check(d->mem_create(&h, 2 * 1024 * 1024, &prop, 0), "cuMemCreate");
}

static void fill_direct(struct driver *d)
{
    d->init = cuInit;
    d->device_get = cuDeviceGet;
    d->primary_retain = cuDevicePrimaryCtxRetain;
    d->ctx_set = cuCtxSetCurrent;
    d->mem_alloc = cuMemAlloc_v2;
    d->mem_free = cuMemFree_v2;
    d->alloc_managed = cuMemAllocManaged;
    d->alloc_host = cuMemAllocHost_v2;
    d->alloc_async = cuMemAllocAsync;
    d->free_async = cuMemFreeAsync;
    d->array_create = cuArrayCreate_v2;
    d->stream_sync = cuStreamSynchronize;
    d->alloc_pitch = cuMemAllocPitch_v2;
    d->host_alloc = cuMemHostAlloc;
    d->host_register = cuMemHostRegister_v2;
    d->pool_get = cuDeviceGetDefaultMemPool;
    d->alloc_from_pool = cuMemAllocFromPoolAsync;
    d->array3d_create = cuArray3DCreate_v2;
    d->mipmap_create = cuMipmappedArrayCreate;
    d->mem_create = cuMemCreate;
}

static void fill_dlsym(struct driver *d)
{
    void *h = need(dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), "libcuda.so.1");
#define SYM(field, name) d->field = need(dlsym(h, name), name)
    SYM(init, "cuInit");
    SYM(device_get, "cuDeviceGet");
    SYM(primary_retain, "cuDevicePrimaryCtxRetain");
    SYM(ctx_set, "cuCtxSetCurrent");
    SYM(mem_alloc, "cuMemAlloc_v2");
    SYM(mem_free, "cuMemFree_v2");
    SYM(alloc_managed, "cuMemAllocManaged");
    SYM(alloc_host, "cuMemAllocHost_v2");
    SYM(alloc_async, "cuMemAllocAsync");
    SYM(free_async, "cuMemFreeAsync");
    SYM(array_create, "cuArrayCreate_v2");
    SYM(stream_sync, "cuStreamSynchronize");
    SYM(alloc_pitch, "cuMemAllocPitch_v2");
    SYM(host_alloc, "cuMemHostAlloc");
    SYM(host_register, "cuMemHostRegister_v2");
    SYM(pool_get, "cuDeviceGetDefaultMemPool");
    SYM(alloc_from_pool, "cuMemAllocFromPoolAsync");
    SYM(array3d_create, "cuArray3DCreate_v2");
    SYM(mipmap_create, "cuMipmappedArrayCreate");
    SYM(mem_create, "cuMemCreate");
#undef SYM
}

typedef CUresult (*procaddr_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

static cuuint64_t query_flags = CU_GET_PROC_ADDRESS_DEFAULT;

static void *query(procaddr_fn get, const char *name)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult status;
    check(get(name, &fn, 12000, query_flags, &status), name);
    if (status != CU_GET_PROC_ADDRESS_SUCCESS)
        check(CUDA_ERROR_NOT_FOUND, name);
    return need(fn, name);
}

static void fill_procaddr(struct driver *d)
{
    void *h = need(dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), "libcuda.so.1");
    procaddr_fn get = (procaddr_fn)need(dlsym(h, "cuGetProcAddress_v2"), "cuGetProcAddress_v2");
    /* The way runtimes do it: get cuGetProcAddress itself through it too. */
    get = (procaddr_fn)query(get, "cuGetProcAddress");
#define Q(field, name) d->field = query(get, name)
    Q(init, "cuInit");
    Q(device_get, "cuDeviceGet");
    Q(primary_retain, "cuDevicePrimaryCtxRetain");
    Q(ctx_set, "cuCtxSetCurrent");
    Q(mem_alloc, "cuMemAlloc");
    Q(mem_free, "cuMemFree");
    Q(alloc_managed, "cuMemAllocManaged");
    Q(alloc_host, "cuMemAllocHost");
    Q(alloc_async, "cuMemAllocAsync");
    Q(free_async, "cuMemFreeAsync");
    Q(array_create, "cuArrayCreate");
    Q(stream_sync, "cuStreamSynchronize");
    Q(alloc_pitch, "cuMemAllocPitch");
    Q(host_alloc, "cuMemHostAlloc");
    Q(host_register, "cuMemHostRegister");
    Q(pool_get, "cuDeviceGetDefaultMemPool");
    Q(alloc_from_pool, "cuMemAllocFromPoolAsync");
    Q(array3d_create, "cuArray3DCreate");
    Q(mipmap_create, "cuMipmappedArrayCreate");
    Q(mem_create, "cuMemCreate");
#undef Q
}

/* Built with CUDA_API_PER_THREAD_DEFAULT_STREAM, a program's runtime calls
 * are the _ptsz exports.  The header would rename them, but not under
 * __CUDA_API_VERSION_INTERNAL (needed above for the _v2 driver names), so
 * name them here. */
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
cudaError_t cudaGetDriverEntryPoint_ptsz(const char *, void **, unsigned long long,
                                         enum cudaDriverEntryPointQueryResult *);
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *, void **, unsigned int, unsigned long long,
                                                  enum cudaDriverEntryPointQueryResult *);
#define cudaGetDriverEntryPoint cudaGetDriverEntryPoint_ptsz
#define cudaGetDriverEntryPointByVersion cudaGetDriverEntryPointByVersion_ptsz
#endif

static void *entry(const char *name, int legacy)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult status;
    /* Deprecated, still called by programs built against CUDA 12. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    cudaError_t rc = legacy ? cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &status)
                            : cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &status);
#pragma GCC diagnostic pop
    if (rc != cudaSuccess || status != cudaDriverEntryPointSuccess)
        need(NULL, name);
    return need(fn, name);
}

static void fill_entry(struct driver *d, int legacy)
{
#define E(field, name) d->field = entry(name, legacy)
    E(init, "cuInit");
    E(device_get, "cuDeviceGet");
    E(primary_retain, "cuDevicePrimaryCtxRetain");
    E(ctx_set, "cuCtxSetCurrent");
    E(mem_alloc, "cuMemAlloc");
    E(mem_free, "cuMemFree");
    E(alloc_managed, "cuMemAllocManaged");
    E(alloc_host, "cuMemAllocHost");
    E(alloc_async, "cuMemAllocAsync");
    E(free_async, "cuMemFreeAsync");
    E(array_create, "cuArrayCreate");
    E(stream_sync, "cuStreamSynchronize");
    E(alloc_pitch, "cuMemAllocPitch");
    E(host_alloc, "cuMemHostAlloc");
    E(host_register, "cuMemHostRegister");
    E(pool_get, "cuDeviceGetDefaultMemPool");
    E(alloc_from_pool, "cuMemAllocFromPoolAsync");
    E(array3d_create, "cuArray3DCreate");
    E(mipmap_create, "cuMipmappedArrayCreate");
    E(mem_create, "cuMemCreate");
#undef E
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "";
    struct driver d;
    if (!strcmp(how, "direct"))
        fill_direct(&d);
    else if (!strcmp(how, "dlsym"))
        fill_dlsym(&d);
    else if (!strcmp(how, "procaddr"))
        fill_procaddr(&d);
    else if (!strcmp(how, "procaddr-ptds")) {
        /* Per-thread default stream: the _ptsz variants. */
        query_flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
        fill_procaddr(&d);
    }
    else if (!strcmp(how, "entry"))
        fill_entry(&d, 0);
    else if (!strcmp(how, "entry-legacy"))
        fill_entry(&d, 1);
    else {
        fprintf(stderr, "usage: driver_paths direct|dlsym|procaddr|procaddr-ptds|entry|entry-legacy\n");
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    check(d.init(0), "cuInit");
    check(d.device_get(&dev, 0), "cuDeviceGet");
    check(d.primary_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(d.ctx_set(ctx), "cuCtxSetCurrent");
    /* Balanced use first: must not show up. */
    CUdeviceptr p;
    check(d.mem_alloc(&p, 1000), "cuMemAlloc");
    check(d.mem_free(p), "cuMemFree");
    check(d.alloc_async(&p, 2000, NULL), "cuMemAllocAsync");
    check(d.free_async(p, NULL), "cuMemFreeAsync");
    leak_mem_alloc(&d);
    leak_managed(&d);
    leak_host(&d);
    leak_async(&d);
    leak_array(&d);
    leak_pitch(&d);
    leak_host_alloc(&d);
    leak_registered(&d);
    leak_from_pool(&d);
    leak_array3d(&d);
    leak_mipmap(&d);
    leak_vmm(&d);
    check(d.stream_sync(NULL), "cuStreamSynchronize");
    return 0;
}
