/* fakecuda self-test of the driver API, linked directly against libcuda.
 * Usage: fc_drv_test SCENARIO; exits 0 when every check holds. */
#define _GNU_SOURCE /* memfd_create */
#include <cuda.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../programs/mem_props.h"
#include "fc_check.h"
#include "fc_driver.h"

/* ABI names cuda.h does not declare for ordinary (legacy-stream) callers */
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream);
CUresult cuStreamSynchronize_ptsz(CUstream hStream);
typedef CUresult (*gpa_legacy_t)(const char *, void **, int, cuuint64_t);

static CUcontext setup(void)
{
    CUcontext c;
    EQ(cuInit(0), CUDA_SUCCESS);
    EQ(cuCtxCreate(&c, NULL, 0, 0), CUDA_SUCCESS);
    return c;
}

static void ctx(void)
{
    CUdeviceptr d = 42;
    size_t f, t;
    EQ(cuMemAlloc(&d, 100), CUDA_ERROR_NOT_INITIALIZED);
    EQ(cuDeviceGetCount(&(int){0}), CUDA_ERROR_NOT_INITIALIZED);
    int v;
    EQ(cuDriverGetVersion(&v), CUDA_SUCCESS); /* works before cuInit */
    EQ(v, 13000);
    EQ(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    EQ(cuInit(0), CUDA_SUCCESS);
    EQ(cuMemAlloc(&d, 100), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuMemGetInfo(&f, &t), CUDA_ERROR_INVALID_CONTEXT);
    EQ(d, 42);
    int n;
    EQ(cuDeviceGetCount(&n), CUDA_SUCCESS);
    EQ(n, 2);
    CUdevice dev;
    EQ(cuDeviceGet(&dev, 2), CUDA_ERROR_INVALID_DEVICE);
    EQ(cuDeviceGet(&dev, 1), CUDA_SUCCESS);
    char name[64];
    EQ(cuDeviceGetName(name, sizeof name, dev), CUDA_SUCCESS);
    CHECK(strstr(name, "fakecuda") != NULL);
    size_t tot;
    EQ(cuDeviceTotalMem(&tot, dev), CUDA_SUCCESS);
    EQ(tot, (size_t)1 << 30);
    int cc;
    EQ(cuDeviceGetAttribute(&cc, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), CUDA_SUCCESS);
    CHECK(cc >= 7);

    CUcontext c1, c2, cur;
    EQ(cuCtxCreate(&c1, NULL, 0, 1), CUDA_SUCCESS);
    EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    CHECK(cur == c1);
    EQ(cuCtxGetDevice(&dev), CUDA_SUCCESS);
    EQ(dev, 1);
    size_t f0 = free_mem();
    EQ(f0, ((size_t)1 << 30) - (5 << 20)); /* the context's own: 4 MiB + 1 MiB on device 1 */
    CUdeviceptr a, b, base;
    EQ(cuMemAlloc(&a, 5000), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 5120);
    EQ(cuMemsetD8(a, 0xab, 5000), CUDA_SUCCESS);
    unsigned char buf[5000];
    EQ(cuMemcpyDtoH(buf, a, 5000), CUDA_SUCCESS);
    CHECK(buf[0] == 0xab && buf[4999] == 0xab);
    EQ(cuMemcpyDtoH(buf, a + 4000, 5000), CUDA_ERROR_INVALID_VALUE); /* past the allocation */
    EQ(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)buf, buf, 10), CUDA_ERROR_INVALID_VALUE); /* not device memory */
    /* pointer attributes */
    int ord;
    unsigned type;
    CUcontext owner;
    size_t rsize;
    EQ(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a + 10), CUDA_SUCCESS);
    EQ(ord, 1);
    EQ(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, a), CUDA_SUCCESS);
    CHECK(owner == c1);
    EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a), CUDA_SUCCESS);
    EQ(type, CU_MEMORYTYPE_DEVICE);
    EQ(cuPointerGetAttribute(&base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a + 4999), CUDA_SUCCESS);
    EQ(base, a);
    EQ(cuPointerGetAttribute(&rsize, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a + 1), CUDA_SUCCESS);
    EQ(rsize, 5000);
    EQ(cuMemGetAddressRange(&base, &rsize, a + 7), CUDA_SUCCESS);
    EQ(base, a);
    EQ(rsize, 5000);
    EQ(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)(uintptr_t)buf),
       CUDA_ERROR_INVALID_VALUE);
    /* frees */
    EQ(cuMemFree(a + 512), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemFree((CUdeviceptr)(uintptr_t)buf), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemFree(a), CUDA_SUCCESS);
    EQ(cuMemFree(a), CUDA_ERROR_INVALID_VALUE);
    EQ(free_mem(), f0);
    /* context stack */
    EQ(cuCtxCreate(&c2, NULL, 0, 0), CUDA_SUCCESS);
    EQ(cuCtxGetDevice(&dev), CUDA_SUCCESS);
    EQ(dev, 0);
    EQ(cuCtxPopCurrent(&cur), CUDA_SUCCESS);
    CHECK(cur == c2);
    EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    CHECK(cur == c1);
    EQ(cuCtxPushCurrent(c2), CUDA_SUCCESS);
    EQ(cuMemAlloc(&b, 3 * 1024 * 1024), CUDA_SUCCESS); /* in c2 (device 0) */
    EQ(cuCtxSetCurrent(c1), CUDA_SUCCESS);             /* replaces the top */
    EQ(cuMemAlloc(&a, 100), CUDA_SUCCESS);             /* in c1 */
    CUstream s;
    EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
    /* destroying a context frees its memory, and only its memory */
    EQ(cuCtxDestroy(c1), CUDA_SUCCESS);
    EQ(cuCtxDestroy(c1), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    CHECK(cur == NULL || cur == c1); /* popped once; c1 was on the stack twice */
    EQ(cuMemAlloc(&d, 1), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuCtxSetCurrent(c1), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE); /* stream of a dead context */
    EQ(cuCtxSetCurrent(c2), CUDA_SUCCESS);
    EQ(cuMemFree(a), CUDA_ERROR_INVALID_VALUE);
    EQ(((size_t)1 << 30) - free_mem(), 8 * 1024 * 1024); /* device 0: c2's own 4 MiB and b */
    EQ(cuCtxCreate(&c1, NULL, 0, 1), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    EQ(cuCtxDestroy(c1), CUDA_SUCCESS);
    EQ(cuCtxSetCurrent(c2), CUDA_SUCCESS);
    EQ(cuMemFree(b), CUDA_SUCCESS);
    EQ(cuCtxDestroy(c2), CUDA_SUCCESS);
    const char *str;
    EQ(cuGetErrorName(CUDA_ERROR_INVALID_CONTEXT, &str), CUDA_SUCCESS);
    CHECK(strcmp(str, "CUDA_ERROR_INVALID_CONTEXT") == 0);
    EQ(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &str), CUDA_SUCCESS);
    CHECK(strcmp(str, "out of memory") == 0);
    EQ(cuGetErrorString((CUresult)12345, &str), CUDA_ERROR_INVALID_VALUE);
    /* the deprecated usage count, fetched as NVIDIA's runtime fetches it */
    CUresult (*attach)(CUcontext *, unsigned) = NULL;
    CUresult (*detach)(CUcontext) = NULL;
    EQ(cuGetProcAddress("cuCtxAttach", (void **)&attach, 2000, 0, NULL), CUDA_SUCCESS);
    EQ(cuGetProcAddress("cuCtxDetach", (void **)&detach, 2000, 0, NULL), CUDA_SUCCESS);
    CUcontext c3, same, none = NULL;
    unsigned api;
    EQ(cuCtxCreate(&c3, NULL, 0, 0), CUDA_SUCCESS);
    EQ(attach(&same, 0), CUDA_SUCCESS);
    CHECK(same == c3);
    EQ(cuMemAlloc(&a, 1024 * 1024), CUDA_SUCCESS);
    EQ(detach(c3), CUDA_SUCCESS); /* one usage left */
    EQ(cuCtxGetApiVersion(c3, &api), CUDA_SUCCESS);
    EQ(((size_t)1 << 30) - free_mem(), 5 * 1024 * 1024); /* device 0: c3's own 4 MiB and a */
    EQ(detach(c3), CUDA_SUCCESS); /* the last: destroyed, its memory freed */
    EQ(cuCtxGetApiVersion(c3, &api), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuCtxGetCurrent(&none), CUDA_SUCCESS);
    CHECK(none == NULL);
    EQ(detach(c3), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuCtxCreate(&c1, NULL, 0, 0), CUDA_SUCCESS);
    EQ(free_mem(), ((size_t)1 << 30) - 4 * 1024 * 1024); /* c1's own only */
    EQ(detach(c3), CUDA_ERROR_INVALID_CONTEXT); /* not current either */
    EQ(cuCtxDestroy(c1), CUDA_SUCCESS);
}

static void primary(void)
{
    CUcontext p, p2;
    EQ(cuInit(0), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRetain(&p, 0), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRetain(&p2, 0), CUDA_SUCCESS);
    CHECK(p == p2);
    unsigned fl;
    int active;
    EQ(cuDevicePrimaryCtxGetState(0, &fl, &active), CUDA_SUCCESS);
    EQ(active, 1);
    EQ(cuCtxSetCurrent(p), CUDA_SUCCESS);
    size_t f0 = free_mem();
    CUdeviceptr a, m, as;
    void *h;
    EQ(cuMemAlloc(&a, 10 << 20), CUDA_SUCCESS);
    EQ(cuMemAllocManaged(&m, 100, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
    EQ(cuMemAllocAsync(&as, 1000, NULL), CUDA_SUCCESS);
    EQ(cuMemAllocHost(&h, 100), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS); /* one reference left */
    EQ(f0 - free_mem(), (10 << 20) + 512 + 1024);
    EQ(cuDevicePrimaryCtxReset(0), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxGetState(0, &fl, &active), CUDA_SUCCESS);
    EQ(active, 0);
    EQ(cuMemAlloc(&a, 1), CUDA_ERROR_INVALID_CONTEXT); /* inactive until retained */
    EQ(cuDevicePrimaryCtxRetain(&p2, 0), CUDA_SUCCESS);
    CHECK(p == p2);
    /* the stream-ordered allocation belongs to no context: it outlives the
     * reset until freed (cuCtxDestroy's documentation) */
    EQ(f0 - free_mem(), 1024);
    EQ(cuCtxSetCurrent(p2), CUDA_SUCCESS);
    EQ(cuMemFreeAsync(as, NULL), CUDA_SUCCESS);
    EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    EQ(cuMemFree(a), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);
    /* releasing the last reference also frees the context's memory */
    EQ(cuMemAlloc(&a, 1 << 20), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuDevicePrimaryCtxRetain(&p2, 0), CUDA_SUCCESS);
    EQ(free_mem(), f0);
}

/* Run with FAKECUDA_OTHER_USED=3145728 FAKECUDA_OTHER_USED_LATER=7340032:
 * what contexts take (4 MiB + 1 MiB per device ordinal), charged while they
 * live, and other processes' memory, there from the start or appearing with
 * the device's first cuMemAlloc. */
static void ctxcost(void)
{
    const size_t MB = 1 << 20, total = (size_t)1 << 30, other = 3 * MB, later = 7 * MB;
    CUcontext p, u;
    EQ(cuInit(0), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRetain(&p, 0), CUDA_SUCCESS);
    EQ(cuCtxSetCurrent(p), CUDA_SUCCESS);
    EQ(free_mem(), total - other - 4 * MB);
    CUdeviceptr a;
    EQ(cuMemAlloc(&a, MB), CUDA_SUCCESS); /* the other process's later use appears */
    EQ(free_mem(), total - other - 4 * MB - later - MB);
    EQ(cuMemAlloc(&a, MB), CUDA_SUCCESS); /* once */
    EQ(free_mem(), total - other - 4 * MB - later - 2 * MB);
    /* a reset gives the context's memory back, the new retain takes it again */
    EQ(cuDevicePrimaryCtxReset(0), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRetain(&p, 0), CUDA_SUCCESS);
    EQ(cuCtxSetCurrent(p), CUDA_SUCCESS);
    EQ(free_mem(), total - other - 4 * MB - later);
    /* a context made with cuCtxCreate costs the same; device 1 has not seen
     * the later use yet */
    EQ(cuCtxCreate(&u, NULL, 0, 1), CUDA_SUCCESS);
    EQ(free_mem(), total - other - 5 * MB);
    EQ(cuCtxDestroy(u), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRetain(&u, 1), CUDA_SUCCESS);
    EQ(cuCtxSetCurrent(u), CUDA_SUCCESS);
    EQ(free_mem(), total - other - 5 * MB); /* the destroyed one's given back */
}

static void procaddr(void)
{
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult st;
    /* no cuInit needed: the runtime bootstraps through this */
    EQ(cuGetProcAddress("cuMemAlloc", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemAlloc_v2);
    EQ(st, CU_GET_PROC_ADDRESS_SUCCESS);
    EQ(cuGetProcAddress("cuMemAlloc", &fn, 3020, 0, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemAlloc_v2);
    fn = (void *)1;
    EQ(cuGetProcAddress("cuMemAlloc", &fn, 3000, 0, &st), CUDA_ERROR_NOT_FOUND);
    CHECK(fn == NULL);
    EQ(st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    fn = (void *)1;
    EQ(cuGetProcAddress("cuNoSuchFunction", &fn, 13000, 0, &st), CUDA_ERROR_NOT_FOUND);
    CHECK(fn == NULL);
    EQ(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    EQ(cuGetProcAddress("cuMemAlloc_v2", &fn, 13000, 0, &st), CUDA_ERROR_NOT_FOUND); /* base names only */
    EQ(cuGetProcAddress("cuMemAlloc", &fn, 14000, 0, &st), CUDA_ERROR_INVALID_VALUE); /* newer than driver */
    EQ(cuGetProcAddress("cuMemAlloc", &fn, 13000, 4, &st), CUDA_ERROR_INVALID_VALUE);
    EQ(cuGetProcAddress("cuMemAlloc", NULL, 13000, 0, &st), CUDA_ERROR_INVALID_VALUE);
    /* stream flavours */
    EQ(cuGetProcAddress("cuMemAllocAsync", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemAllocAsync_ptsz);
    EQ(cuGetProcAddress("cuMemAllocAsync", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemAllocAsync);
    EQ(cuGetProcAddress("cuMemAllocAsync", &fn, 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemAllocAsync);
    EQ(cuGetProcAddress("cuMemFreeAsync", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemFreeAsync_ptsz);
    EQ(cuGetProcAddress("cuMemAllocFromPoolAsync", &fn, 11020, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemAllocFromPoolAsync_ptsz);
    EQ(cuGetProcAddress("cuMemAllocAsync", &fn, 11000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_ERROR_NOT_FOUND);
    EQ(st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    EQ(cuGetProcAddress("cuStreamSynchronize", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuStreamSynchronize_ptsz);
    /* per-thread request without a per-thread variant: the plain one */
    EQ(cuGetProcAddress("cuMemFree", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemFree_v2);
    EQ(cuGetProcAddress("cuCtxCreate", &fn, 13000, 0, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuCtxCreate_v4);
    EQ(cuGetProcAddress("cuCtxCreate", &fn, 11040, 0, &st), CUDA_SUCCESS);
    CHECK(fn == dlsym(RTLD_DEFAULT, "cuCtxCreate_v3"));
    EQ(cuGetProcAddress("cuCtxDestroy", &fn, 13000, 0, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuCtxDestroy_v2);
    /* what NVIDIA's 13.0 runtime asks (tools/fakecuda/real_runtime_requests.txt):
     * each at the ABI of its version, v1 functions exported by their names */
    EQ(cuGetProcAddress("cuDevicePrimaryCtxReset", &fn, 7000, 0, NULL), CUDA_SUCCESS);
    CHECK(fn != NULL && fn == dlsym(RTLD_DEFAULT, "cuDevicePrimaryCtxReset") && fn != (void *)cuDevicePrimaryCtxReset_v2);
    EQ(cuGetProcAddress("cuDevicePrimaryCtxRelease", &fn, 7000, 0, NULL), CUDA_SUCCESS);
    CHECK(fn != NULL && fn == dlsym(RTLD_DEFAULT, "cuDevicePrimaryCtxRelease") && fn != (void *)cuDevicePrimaryCtxRelease_v2);
    EQ(cuGetProcAddress("cuDevicePrimaryCtxRelease", &fn, 11000, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)cuDevicePrimaryCtxRelease_v2);
    EQ(cuGetProcAddress("cuCtxDetach", &fn, 2000, 0, NULL), CUDA_SUCCESS);
    CHECK(fn != NULL && fn == dlsym(RTLD_DEFAULT, "cuCtxDetach"));
    EQ(cuGetProcAddress("cuMemAlloc", &fn, 3020, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemAlloc_v2);
    EQ(cuGetProcAddress("cuIpcOpenMemHandle", &fn, 4010, 0, NULL), CUDA_SUCCESS);
    CHECK(fn != NULL && fn == dlsym(RTLD_DEFAULT, "cuIpcOpenMemHandle"));
    EQ(cuGetProcAddress("cuStreamBeginCapture", &fn, 10000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL), CUDA_SUCCESS);
    CHECK(fn != NULL && fn == dlsym(RTLD_DEFAULT, "cuStreamBeginCapture_ptsz"));
    EQ(cuGetProcAddress("cuCtxGetDevice", &fn, 13000, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)cuCtxGetDevice_v2);
    EQ(cuGetProcAddress("cuCtxGetDevice", &fn, 2000, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)cuCtxGetDevice);
    EQ(cuGetProcAddress("cuCtxSynchronize", &fn, 13000, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)cuCtxSynchronize_v2);
    /* cuGetProcAddress itself: _v2 from 12.0, the 4-argument legacy before */
    void *legacy = dlsym(RTLD_DEFAULT, "cuGetProcAddress");
    CHECK(legacy != NULL && legacy != (void *)cuGetProcAddress_v2);
    EQ(cuGetProcAddress("cuGetProcAddress", &fn, 12000, 0, &st), CUDA_SUCCESS);
    CHECK(fn == (void *)cuGetProcAddress_v2);
    EQ(cuGetProcAddress("cuGetProcAddress", &fn, 11030, 0, &st), CUDA_SUCCESS);
    CHECK(fn == legacy);
    EQ(((gpa_legacy_t)legacy)("cuMemFree", &fn, 11000, 0), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemFree_v2);
    EQ(((gpa_legacy_t)legacy)("cuNope", &fn, 11000, 0), CUDA_ERROR_NOT_FOUND);
    /* pointers obtained this way work */
    CUresult (*init)(unsigned) = NULL;
    EQ(cuGetProcAddress("cuInit", (void **)&init, 13000, 0, NULL), CUDA_SUCCESS);
    EQ(init(0), CUDA_SUCCESS);
}

static uint64_t pool_attr(CUmemoryPool p, CUmemPool_attribute a)
{
    uint64_t v;
    EQ(cuMemPoolGetAttribute(p, a, &v), CUDA_SUCCESS);
    return v;
}

static void pool(void)
{
    setup();
    size_t f0 = free_mem();
    CUmemoryPool dp;
    EQ(cuDeviceGetDefaultMemPool(&dp, 0), CUDA_SUCCESS);
    CUstream s;
    EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CUdeviceptr a, b, c;
    EQ(cuMemAllocAsync(&a, 5 << 20, s), CUDA_SUCCESS);
    EQ(cuMemAllocAsync_ptsz(&b, 100, CU_STREAM_PER_THREAD), CUDA_SUCCESS);
    EQ(f0 - free_mem(), (6 << 20) + 512);
    EQ(pool_attr(dp, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), (6 << 20) + 512);
    EQ(cuMemFreeAsync(a, s), CUDA_SUCCESS);
    EQ(cuMemFreeAsync_ptsz(b, CU_STREAM_PER_THREAD), CUDA_SUCCESS);
    EQ(f0 - free_mem(), (6 << 20) + 512);
    EQ(cuMemFreeAsync(b, s), CUDA_ERROR_INVALID_VALUE);
    EQ(pool_attr(dp, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0);
    EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    /* explicit pool, trim semantics */
    CUmemPoolProps props = device0_pool_props(CU_MEM_ALLOCATION_TYPE_PINNED);
    CUmemoryPool mp;
    EQ(cuMemPoolCreate(&mp, &props), CUDA_SUCCESS);
    uint64_t thr = 100 << 20;
    EQ(cuMemPoolSetAttribute(mp, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &thr), CUDA_SUCCESS);
    EQ(cuMemAllocFromPoolAsync(&a, 2 << 20, mp, s), CUDA_SUCCESS);
    EQ(cuMemAllocFromPoolAsync_ptsz(&b, 2 << 20, mp, NULL), CUDA_SUCCESS);
    EQ(cuMemAllocFromPoolAsync(&c, 2 << 20, mp, s), CUDA_SUCCESS);
    CUmemoryPool owner;
    EQ(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, b), CUDA_SUCCESS);
    CHECK(owner == mp);
    EQ(cuMemFreeAsync(a, s), CUDA_SUCCESS);
    EQ(cuMemFreeAsync(b, s), CUDA_SUCCESS);
    EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 6 << 20);
    EQ(cuMemPoolTrimTo(mp, 4 << 20), CUDA_SUCCESS); /* keeps 4 MiB reserved (2 in use) */
    EQ(pool_attr(mp, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 4 << 20);
    EQ(f0 - free_mem(), 4 << 20);
    /* destroy: held memory goes now, the live block when it is freed */
    EQ(cuMemPoolDestroy(mp), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 2 << 20);
    EQ(cuMemPoolDestroy(mp), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemAllocFromPoolAsync(&a, 1, mp, s), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemFreeAsync(c, s), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    EQ(cuStreamDestroy(s), CUDA_SUCCESS);
    EQ(cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
}

static void vmm(void)
{
    setup();
    size_t f0 = free_mem(), g;
    const size_t G = 2 << 20;
    CUmemAllocationProp prop = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
    EQ(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
    EQ(g, G);
    CUmemGenericAllocationHandle h, h2;
    EQ(cuMemCreate(&h, G + 1, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemCreate(&h, 2 * G, &prop, 0), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 2 * G); /* physical memory counts */
    CUdeviceptr va;
    EQ(cuMemAddressReserve(&va, 8 * G, 0, 0, 0), CUDA_SUCCESS);
    EQ(va % G, 0);
    EQ(f0 - free_mem(), 2 * G); /* address space does not */
    EQ(cuMemMap(va + 1, 2 * G, 0, h, 0), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemMap(va + 7 * G, 2 * G, 0, h, 0), CUDA_ERROR_INVALID_VALUE); /* past the reservation */
    EQ(cuMemMap(va, 2 * G, 0, h, 0), CUDA_SUCCESS);
    EQ(cuMemMap(va + G, 2 * G, 0, h, 0), CUDA_ERROR_ALREADY_MAPPED);
    CUmemAccessDesc acc = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    EQ(cuMemSetAccess(va, 2 * G, &acc, 1), CUDA_SUCCESS);
    memset((void *)(uintptr_t)va, 0x11, 2 * G);
    EQ(cuMemsetD32(va + 64, 0x22222222, 4), CUDA_SUCCESS);
    CHECK(((unsigned char *)(uintptr_t)va)[2 * G - 1] == 0x11 && ((unsigned char *)(uintptr_t)va)[64] == 0x22);
    int ord;
    CUdeviceptr start;
    size_t rs;
    EQ(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va + 5), CUDA_SUCCESS);
    EQ(ord, 0);
    EQ(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, va + 5), CUDA_SUCCESS);
    EQ(start, va);
    EQ(cuPointerGetAttribute(&rs, CU_POINTER_ATTRIBUTE_RANGE_SIZE, va + 5), CUDA_SUCCESS);
    EQ(rs, 8 * G);
    EQ(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va + 4 * G), CUDA_ERROR_INVALID_VALUE);
    /* order 1: unmap, release, free the address range */
    EQ(cuMemAddressFree(va, 8 * G), CUDA_ERROR_INVALID_VALUE); /* still mapped */
    EQ(cuMemUnmap(va, G), CUDA_ERROR_INVALID_VALUE);            /* half a mapping */
    EQ(cuMemUnmap(va, 2 * G), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 2 * G);
    EQ(cuMemRelease(h), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    EQ(cuMemRelease(h), CUDA_ERROR_INVALID_VALUE);
    /* order 2: release while mapped (twice, sharing the memory), then unmap */
    EQ(cuMemCreate(&h, 2 * G, &prop, 0), CUDA_SUCCESS);
    EQ(cuMemMap(va, 2 * G, 0, h, 0), CUDA_SUCCESS);
    EQ(cuMemMap(va + 4 * G, G, G, h, 0), CUDA_SUCCESS); /* second half, again */
    EQ(cuMemSetAccess(va, 2 * G, &acc, 1), CUDA_SUCCESS);
    EQ(cuMemSetAccess(va + 4 * G, G, &acc, 1), CUDA_SUCCESS);
    EQ(cuMemRelease(h), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 2 * G); /* still alive: mapped */
    ((char *)(uintptr_t)va)[G + 5] = 42;
    CHECK(((char *)(uintptr_t)va)[4 * G + 5] == 42); /* same physical memory */
    EQ(cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)(va + 4 * G)), CUDA_SUCCESS);
    CHECK(h2 == h);
    EQ(cuMemUnmap(va, 2 * G), CUDA_SUCCESS);
    EQ(cuMemUnmap(va + 4 * G, G), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 2 * G); /* the retained reference */
    EQ(cuMemRelease(h2), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    /* order 3: free the address range first is refused while mapped; unmap
       the whole reservation span at once */
    EQ(cuMemCreate(&h, G, &prop, 0), CUDA_SUCCESS);
    EQ(cuMemCreate(&h2, G, &prop, 0), CUDA_SUCCESS);
    EQ(cuMemMap(va, G, 0, h, 0), CUDA_SUCCESS);
    EQ(cuMemMap(va + G, G, 0, h2, 0), CUDA_SUCCESS);
    EQ(cuMemSetAccess(va, 2 * G, &acc, 1), CUDA_SUCCESS);
    EQ(cuMemcpyHtoD(va + G - 4, "abcdefgh", 8), CUDA_SUCCESS);
    EQ(cuMemRelease(h), CUDA_SUCCESS);
    EQ(cuMemRelease(h2), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 2 * G);
    EQ(cuMemUnmap(va, 2 * G), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    EQ(cuMemAddressFree(va, 8 * G), CUDA_SUCCESS);
    EQ(cuMemAddressFree(va, 8 * G), CUDA_ERROR_INVALID_VALUE);
    /* physical memory is bounded by the device */
    EQ(cuMemCreate(&h, (size_t)2 << 30, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
}

static void arrays(void)
{
    setup();
    size_t f0 = free_mem();
    CUarray a, b;
    CUmipmappedArray m;
    CUDA_ARRAY_DESCRIPTOR d = {.Width = 1000, .Height = 1000, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 2};
    EQ(cuArrayCreate(&a, &d), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 8000000 + (2 << 20) - 8000000 % (2 << 20));
    CUDA_ARRAY3D_DESCRIPTOR d3 = {.Width = 10, .Height = 10, .Depth = 10, .Format = CU_AD_FORMAT_UNSIGNED_INT8,
                                  .NumChannels = 1};
    EQ(cuArray3DCreate(&b, &d3), CUDA_SUCCESS);
    CUDA_ARRAY3D_DESCRIPTOR back;
    EQ(cuArray3DGetDescriptor(&back, b), CUDA_SUCCESS);
    EQ(back.Depth, 10);
    EQ(cuMipmappedArrayCreate(&m, &d3, 2), CUDA_SUCCESS);
    EQ(cuArrayDestroy(a), CUDA_SUCCESS);
    EQ(cuArrayDestroy(a), CUDA_ERROR_INVALID_HANDLE);
    EQ(cuArrayDestroy((CUarray)(void *)&d), CUDA_ERROR_INVALID_HANDLE);
    EQ(cuArrayDestroy((CUarray)m), CUDA_ERROR_INVALID_HANDLE);
    EQ(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 1024);
    EQ(cuArrayDestroy(b), CUDA_SUCCESS);
    EQ(free_mem(), f0);
}

/* A memfd stands in for another API's export (vkGetMemoryFdKHR). */
static int exported_fd(off_t size)
{
    int fd = memfd_create("fc-extmem", MFD_CLOEXEC);
    CHECK(fd >= 0 && ftruncate(fd, size) == 0);
    return fd;
}

static int fd_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

/* External memory: charged to nothing, bounds checked, the descriptor the
 * driver's once imported, buffers freed with cuMemFree (even after the object
 * is destroyed), arrays with cuMipmappedArrayDestroy, everything gone with
 * the context. */
static void extmem(void)
{
    CUcontext c = setup();
    size_t f0 = free_mem();
    int fd = exported_fd(8 << 20);
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC hd = {.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD, .size = 8 << 20};
    hd.handle.fd = fd;
    CUexternalMemory ext, ext2;
    hd.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32;
    EQ(cuImportExternalMemory(&ext, &hd), CUDA_ERROR_NOT_SUPPORTED);
    hd.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    hd.size = (8 << 20) + 1; /* longer than what was exported */
    EQ(cuImportExternalMemory(&ext, &hd), CUDA_ERROR_INVALID_VALUE);
    CHECK(fd_open(fd)); /* a failed import leaves the descriptor the caller's */
    hd.size = 8 << 20;
    EQ(cuImportExternalMemory(&ext, &hd), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd = {.offset = 7 << 20, .size = (1 << 20) + 1};
    CUdeviceptr b, b2;
    EQ(cuExternalMemoryGetMappedBuffer(&b, ext, &bd), CUDA_ERROR_INVALID_VALUE);
    bd.size = 1 << 20;
    EQ(cuExternalMemoryGetMappedBuffer(&b, ext, &bd), CUDA_SUCCESS);
    bd.offset = 0;
    bd.size = 3000000;
    EQ(cuExternalMemoryGetMappedBuffer(&b2, ext, &bd), CUDA_SUCCESS);
    CHECK(b != b2);
    EQ(free_mem(), f0);
    CUdeviceptr base;
    size_t size;
    EQ(cuMemGetAddressRange(&base, &size, b2 + 10), CUDA_SUCCESS);
    EQ(base, b2);
    EQ(size, 3000000);
    EQ(cuMemsetD8(b2, 0x5a, 3000000), CUDA_SUCCESS);
    /* 256 x 256 x 16 B + 128 x 128 x 16 B: 1,310,720 bytes */
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC md = {
        .offset = (8 << 20) - 1310719,
        .arrayDesc = {.Width = 256, .Height = 256, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 4},
        .numLevels = 2};
    CUmipmappedArray m;
    EQ(cuExternalMemoryGetMappedMipmappedArray(&m, ext, &md), CUDA_ERROR_INVALID_VALUE);
    md.offset--;
    EQ(cuExternalMemoryGetMappedMipmappedArray(&m, ext, &md), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    EQ(cuDestroyExternalMemory(ext), CUDA_SUCCESS);
    CHECK(!fd_open(fd)); /* the driver closed what it owned */
    EQ(cuDestroyExternalMemory(ext), CUDA_ERROR_INVALID_HANDLE);
    EQ(cuExternalMemoryGetMappedBuffer(&b, ext, &bd), CUDA_ERROR_INVALID_HANDLE);
    /* what was mapped outlives the object until freed */
    EQ(cuMemFree(b), CUDA_SUCCESS);
    EQ(cuMemFree(b), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
    /* a second object: its buffer and itself go with the context */
    fd = exported_fd(1 << 20);
    hd.handle.fd = fd;
    hd.size = 1 << 20;
    hd.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD;
    EQ(cuImportExternalMemory(&ext2, &hd), CUDA_SUCCESS);
    bd.size = 1 << 20;
    EQ(cuExternalMemoryGetMappedBuffer(&b, ext2, &bd), CUDA_SUCCESS);
    EQ(cuCtxDestroy(c), CUDA_SUCCESS);
    CHECK(!fd_open(fd));
    setup();
    EQ(cuMemFree(b), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemFree(b2), CUDA_ERROR_INVALID_VALUE);
    EQ(free_mem(), f0);
}

static void host(void)
{
    setup();
    size_t f0 = free_mem();
    void *p, *q;
    EQ(cuMemAllocHost(&p, 1 << 20), CUDA_SUCCESS);
    EQ(cuMemHostAlloc(&q, 100, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    memset(p, 3, 1 << 20);
    unsigned type;
    EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)p + 10), CUDA_SUCCESS);
    EQ(type, CU_MEMORYTYPE_HOST);
    EQ(cuMemFreeHost((char *)p + 1), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemFreeHost(p), CUDA_SUCCESS);
    EQ(cuMemFreeHost(p), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemFreeHost(q), CUDA_SUCCESS);
    static char buf[4096];
    EQ(cuMemHostRegister(buf, sizeof buf, 0), CUDA_SUCCESS);
    EQ(cuMemHostRegister(buf, 10, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EQ(cuMemFreeHost(buf), CUDA_ERROR_INVALID_VALUE); /* registered, not ours */
    EQ(cuMemHostUnregister(buf), CUDA_SUCCESS);
    EQ(cuMemHostUnregister(buf), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
}

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    int shared = seed & 1;
    CUcontext c;
    /* half the threads share the primary context, half make their own */
    if (shared) {
        EQ(cuDevicePrimaryCtxRetain(&c, 0), CUDA_SUCCESS);
        EQ(cuCtxSetCurrent(c), CUDA_SUCCESS);
    } else {
        EQ(cuCtxCreate(&c, NULL, 0, 0), CUDA_SUCCESS);
    }
    CUdeviceptr live[8] = {0};
    int async[8] = {0};
    for (int i = 0; i < 300; i++) {
        int k = (int)(rand_r(&seed) % 8);
        if (live[k]) {
            EQ((i & 1) ? cuMemFree(live[k]) : cuMemFreeAsync(live[k], NULL), CUDA_SUCCESS);
            live[k] = 0;
        } else {
            size_t n = 1 + rand_r(&seed) % (4 << 20);
            async[k] = !(i & 1);
            EQ(async[k] ? cuMemAllocAsync(&live[k], n, NULL) : cuMemAlloc(&live[k], n), CUDA_SUCCESS);
            EQ(cuMemsetD8(live[k], (unsigned char)k, n), CUDA_SUCCESS);
        }
    }
    EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    if (shared) {
        for (int k = 0; k < 8; k++)
            if (live[k])
                EQ(cuMemFree(live[k]), CUDA_SUCCESS);
        EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
    } else {
        /* stream-ordered allocations outlive the context: freed first */
        for (int k = 0; k < 8; k++)
            if (live[k] && async[k])
                EQ(cuMemFreeAsync(live[k], NULL), CUDA_SUCCESS);
        EQ(cuCtxDestroy(c), CUDA_SUCCESS); /* frees what is left */
    }
    return NULL;
}

/* Green contexts: the SM resource calls, and the memory rules cuda.h
 * gives (tools/fakecuda/fc_driver_green.c): the green context holds a
 * reference on the primary context, its CUcontext is a handle of its own
 * whose memory the primary context owns, and its destruction is a release
 * (the last one resets the primary context). */
static CUgreenCtx make_green(CUdevice dev, unsigned *sm)
{
    CUdevResource whole, groups[4], rest;
    EQ(cuDeviceGetDevResource(dev, &whole, CU_DEV_RESOURCE_TYPE_SM), CUDA_SUCCESS);
    unsigned n = 0;
    EQ(cuDevSmResourceSplitByCount(NULL, &n, &whole, NULL, 0, 8), CUDA_SUCCESS);
    EQ(n, 16); /* 132 SMs in groups of 8 */
    n = 2;
    EQ(cuDevSmResourceSplitByCount(groups, &n, &whole, &rest, 0, 12), CUDA_SUCCESS);
    EQ(n, 2);
    EQ(groups[0].sm.smCount, 16); /* 12 rounded up to the alignment, 8 */
    EQ(rest.sm.smCount, 132 - 32);
    CUdevResourceDesc desc;
    EQ(cuDevResourceGenerateDesc(&desc, groups, 1), CUDA_SUCCESS);
    CUgreenCtx g;
    EQ(cuGreenCtxCreate(&g, desc, dev, 0), CUDA_ERROR_INVALID_VALUE); /* the default stream is required */
    EQ(cuGreenCtxCreate(&g, desc, dev == 0 ? 1 : 0, CU_GREEN_CTX_DEFAULT_STREAM), CUDA_ERROR_INVALID_VALUE);
    EQ(cuGreenCtxCreate(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM), CUDA_SUCCESS);
    *sm = groups[0].sm.smCount;
    return g;
}

static int primary_active(CUdevice dev)
{
    unsigned fl;
    int active = -1;
    EQ(cuDevicePrimaryCtxGetState(dev, &fl, &active), CUDA_SUCCESS);
    return active;
}

static void green(void)
{
    CUdevResource r, groups[2], rest;
    unsigned n = 2;
    EQ(cuDeviceGetDevResource(0, &r, CU_DEV_RESOURCE_TYPE_SM), CUDA_ERROR_NOT_INITIALIZED);
    EQ(cuInit(0), CUDA_SUCCESS);
    EQ(cuDeviceGetDevResource(0, &r, CU_DEV_RESOURCE_TYPE_INVALID), CUDA_ERROR_INVALID_RESOURCE_TYPE);
    EQ(cuDeviceGetDevResource(5, &r, CU_DEV_RESOURCE_TYPE_SM), CUDA_ERROR_INVALID_DEVICE);
    EQ(cuDeviceGetDevResource(0, &r, CU_DEV_RESOURCE_TYPE_SM), CUDA_SUCCESS);
    EQ(r.type, CU_DEV_RESOURCE_TYPE_SM);
    EQ(r.sm.smCount, 132);
    EQ(r.sm.minSmPartitionSize, 8);
    EQ(r.sm.smCoscheduledAlignment, 8);
    EQ(cuDevSmResourceSplitByCount(groups, &n, &r, &rest, 0, 133), CUDA_ERROR_INVALID_VALUE);
    EQ(cuDevSmResourceSplitByCount(groups, &n, &r, &rest, 0, 0), CUDA_SUCCESS); /* 0: the minimum */
    EQ(n, 2);
    EQ(groups[1].sm.smCount, 8);
    EQ(cuDevSmResourceSplitByCount(groups, &n, &groups[0], NULL, 0, 8), CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
    CUdevResourceDesc desc;
    CUdevResource mixed[2] = {groups[0], r};
    EQ(cuDevResourceGenerateDesc(&desc, mixed, 2), CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
    EQ(cuDevResourceGenerateDesc(&desc, groups, 2), CUDA_SUCCESS); /* one split: fine */
    CUdevResource bogus;
    memset(&bogus, 0, sizeof bogus);
    bogus.type = CU_DEV_RESOURCE_TYPE_SM;
    EQ(cuDevResourceGenerateDesc(&desc, &bogus, 1), CUDA_ERROR_INVALID_VALUE);

    /* the green context retains the primary context */
    EQ(primary_active(0), 0);
    unsigned sm;
    CUgreenCtx g = make_green(0, &sm);
    EQ(primary_active(0), 1);
    EQ(cuGreenCtxGetDevResource(g, &r, CU_DEV_RESOURCE_TYPE_SM), CUDA_SUCCESS);
    EQ(r.sm.smCount, sm);
    CUcontext gc, gc2, p, cur;
    EQ(cuCtxFromGreenCtx(&gc, g), CUDA_SUCCESS);
    EQ(cuCtxFromGreenCtx(&gc2, g), CUDA_SUCCESS);
    CHECK(gc == gc2);
    EQ(cuDevicePrimaryCtxRetain(&p, 0), CUDA_SUCCESS); /* the program's own reference */
    CHECK(gc != p); /* a handle of its own */
    EQ(cuCtxGetDevResource(gc, &r, CU_DEV_RESOURCE_TYPE_SM), CUDA_SUCCESS);
    EQ(r.sm.smCount, sm);
    EQ(cuCtxGetDevResource(p, &r, CU_DEV_RESOURCE_TYPE_SM), CUDA_SUCCESS);
    EQ(r.sm.smCount, 132);
    EQ(cuCtxDestroy(gc), CUDA_ERROR_INVALID_CONTEXT); /* not the program's to destroy */
    EQ(cuCtxSetCurrent(gc), CUDA_SUCCESS);
    EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    CHECK(cur == gc);
    CUdevice dev = 7;
    EQ(cuCtxGetDevice(&dev), CUDA_SUCCESS);
    EQ(dev, 0);
    CUgreenCtx back;
    EQ(cuStreamGetGreenCtx(NULL, &back), CUDA_SUCCESS);
    CHECK(back == g);
    CUstream s, gs;
    EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    EQ(cuStreamGetGreenCtx(s, &back), CUDA_SUCCESS);
    CHECK(back == g);
    EQ(cuGreenCtxStreamCreate(&gs, g, 0, 0), CUDA_ERROR_INVALID_VALUE); /* non-blocking is required */
    EQ(cuGreenCtxStreamCreate(&gs, g, CU_STREAM_NON_BLOCKING, 0), CUDA_SUCCESS);
    unsigned long long id = 0, id2 = 1;
    EQ(cuGreenCtxGetId(g, &id), CUDA_SUCCESS);
    EQ(cuGreenCtxGetId(NULL, &id2), CUDA_SUCCESS); /* NULL: the current one */
    EQ(id, id2);
    size_t f0 = free_mem();
    CUdeviceptr a, b;
    EQ(cuMemAlloc(&a, 3 * MiB), CUDA_SUCCESS);
    EQ(cuCtxSetCurrent(p), CUDA_SUCCESS);
    EQ(cuMemAlloc(&b, 1 * MiB), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 5 * MiB); /* 3 MiB takes 4 (2 MiB granules) */
    /* (b) destroyed while the program holds the primary: nothing goes, the
     * green context's allocation is the primary context's */
    EQ(cuGreenCtxDestroy(g), CUDA_SUCCESS);
    EQ(cuGreenCtxDestroy(g), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    EQ(cuGreenCtxDestroy(NULL), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuGreenCtxDestroy((CUgreenCtx)&r), CUDA_ERROR_INVALID_CONTEXT); /* not a handle: refused */
    EQ(cuCtxFromGreenCtx(&gc2, g), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuGreenCtxGetDevResource(g, &r, CU_DEV_RESOURCE_TYPE_SM), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuGreenCtxGetId(g, &id), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    EQ(cuCtxSetCurrent(gc), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuStreamSynchronize(gs), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    EQ(cuStreamDestroy(s), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    EQ(primary_active(0), 1);
    EQ(f0 - free_mem(), 5 * MiB); /* 3 MiB takes 4 (2 MiB granules) */
    EQ(cuMemFree(a), CUDA_SUCCESS);
    /* (a) the primary context's last reference is the green context's */
    g = make_green(0, &sm);
    EQ(cuCtxFromGreenCtx(&gc, g), CUDA_SUCCESS);
    EQ(cuCtxSetCurrent(gc), CUDA_SUCCESS);
    EQ(cuMemAlloc(&a, 3 * MiB), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS); /* the program's: not the last */
    EQ(primary_active(0), 1);
    EQ(cuMemFree(b), CUDA_SUCCESS); /* made in the primary, freed in the green: one context */
    EQ(cuMemAlloc(&b, 1 * MiB), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 5 * MiB); /* 3 MiB takes 4 (2 MiB granules) */
    EQ(cuGreenCtxDestroy(g), CUDA_SUCCESS); /* the last: a reset */
    EQ(primary_active(0), 0);
    EQ(cuDevicePrimaryCtxRetain(&p, 0), CUDA_SUCCESS);
    EQ(cuCtxSetCurrent(p), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    EQ(cuMemFree(a), CUDA_ERROR_INVALID_VALUE); /* gone with the reset */
    EQ(cuMemFree(b), CUDA_ERROR_INVALID_VALUE);
    /* a reset ends the green context's reference too: its destruction then
     * releases nothing (the program's new reference stays) */
    g = make_green(0, &sm);
    EQ(cuDevicePrimaryCtxReset(0), CUDA_SUCCESS);
    EQ(cuCtxFromGreenCtx(&gc, g), CUDA_ERROR_INVALID_CONTEXT);
    EQ(cuDevicePrimaryCtxRetain(&p, 0), CUDA_SUCCESS);
    EQ(cuGreenCtxDestroy(g), CUDA_SUCCESS);
    EQ(primary_active(0), 1);
    EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
    EQ(primary_active(0), 0);
    /* by cuGetProcAddress, at cudaTypedefs.h's versions */
    void *fn;
    EQ(cuGetProcAddress("cuGreenCtxCreate", &fn, 12040, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)cuGreenCtxCreate);
    EQ(cuGetProcAddress("cuGreenCtxCreate", &fn, 12030, 0, NULL), CUDA_ERROR_NOT_FOUND);
    EQ(cuGetProcAddress("cuCtxFromGreenCtx", &fn, 12040, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)cuCtxFromGreenCtx);
    EQ(cuGetProcAddress("cuGreenCtxDestroy", &fn, 13000, 0, NULL), CUDA_SUCCESS);
    CHECK(fn == (void *)cuGreenCtxDestroy);
    EQ(cuGetProcAddress("cuGreenCtxStreamCreate", &fn, 12040, 0, NULL), CUDA_ERROR_NOT_FOUND);
    EQ(cuGetProcAddress("cuGreenCtxStreamCreate", &fn, 12050, 0, NULL), CUDA_SUCCESS);
}

static void threads(void)
{
    CUcontext c;
    EQ(cuInit(0), CUDA_SUCCESS);
    EQ(cuDevicePrimaryCtxRetain(&c, 0), CUDA_SUCCESS); /* keeps the primary alive */
    EQ(cuCtxSetCurrent(c), CUDA_SUCCESS);
    size_t f0 = free_mem();
    pthread_t t[8];
    for (int i = 0; i < 8; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1)) == 0);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    EQ(free_mem(), f0);
}

int main(int argc, char **argv)
{
    static const struct fc_scenario tests[] = {
        {"ctx", ctx}, {"primary", primary}, {"ctxcost", ctxcost}, {"procaddr", procaddr}, {"pool", pool},
        {"vmm", vmm}, {"arrays", arrays}, {"extmem", extmem}, {"host", host}, {"threads", threads},
        {"green", green},
    };
    return FC_RUN_SCENARIO(argc, argv, tests);
}
