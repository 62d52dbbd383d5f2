/* fakecuda self-test through the shared runtime (no interposer).
 * Usage: fc_rt_test SCENARIO; exits 0 when every check holds. */
#define _GNU_SOURCE 1 /* dladdr */
#define CUDA_ENABLE_DEPRECATED 1 /* cudaGetDriverEntryPoint is tested too */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "../programs/mem_props.h"
#include "fc_check.h"

/* The per-thread-default-stream entry points (what nvcc's
 * --default-stream per-thread calls). */
cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream);
cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);

static size_t free_mem(void)
{
    size_t f, t;
    EQ(cudaMemGetInfo(&f, &t), cudaSuccess);
    return f;
}

static void basic(void)
{
    EQ(cudaFree(NULL), cudaSuccess);
    void *p = (void *)1;
    EQ(cudaMalloc(&p, 0), cudaSuccess);
    CHECK(p == NULL);
    size_t before = free_mem();
    EQ(cudaMalloc(&p, 1000), cudaSuccess);
    CHECK(p != NULL && ((uintptr_t)p % 512) == 0);
    EQ(before - free_mem(), 1024);
    char in[1000], out[1000];
    for (int i = 0; i < 1000; i++)
        in[i] = (char)i;
    EQ(cudaMemcpy(p, in, sizeof in, cudaMemcpyHostToDevice), cudaSuccess);
    EQ(cudaMemcpy(out, p, sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
    CHECK(memcmp(in, out, sizeof in) == 0);
    EQ(cudaMemset(p, 0x5a, 100), cudaSuccess);
    EQ(cudaMemcpyAsync(out, p, 100, cudaMemcpyDefault, 0), cudaSuccess);
    CHECK(out[0] == 0x5a && out[99] == 0x5a);
    EQ(cudaMemsetAsync(p, 1, 10, 0), cudaSuccess);
    EQ(cudaMemcpy(out, p, 1, (enum cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
    EQ(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    /* bogus frees: interior, host, stack pointer; then a double free */
    EQ(cudaFree((char *)p + 512), cudaErrorInvalidValue);
    EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
    EQ(cudaGetLastError(), cudaErrorInvalidValue);
    EQ(cudaGetLastError(), cudaSuccess);
    EQ(cudaFree(in), cudaErrorInvalidValue);
    EQ(cudaFree((void *)0x1234), cudaErrorInvalidValue);
    EQ(cudaFree(p), cudaSuccess);
    EQ(cudaFree(p), cudaErrorInvalidValue);
    EQ(free_mem(), before);
    CHECK(strcmp(cudaGetErrorName(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") == 0);
    int v;
    EQ(cudaRuntimeGetVersion(&v), cudaSuccess);
    EQ(v, 13000);
    EQ(cudaDriverGetVersion(&v), cudaSuccess);
    EQ(v, 13000);
}

/* Run with FAKECUDA_MEM_BYTES=67108864. */
static void oom(void)
{
    size_t f, t;
    EQ(cudaMemGetInfo(&f, &t), cudaSuccess);
    EQ(t, 64 * MiB);
    EQ(f, t);
    void *a, *b, *c;
    EQ(cudaMalloc(&a, 1), cudaSuccess);
    EQ(free_mem(), t - 512);
    EQ(cudaMalloc(&b, 3 * MiB), cudaSuccess); /* >= 2 MiB: 2 MiB granularity */
    EQ(free_mem(), t - 512 - 4 * MiB);
    EQ(cudaMalloc(&c, 2 * MiB + 1), cudaSuccess);
    EQ(free_mem(), t - 512 - 8 * MiB);
    void *sentinel = (void *)0xdeadbeef, *x = sentinel;
    EQ(cudaMalloc(&x, 60 * MiB), cudaErrorMemoryAllocation);
    CHECK(x == sentinel);
    EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
    EQ(cudaMallocManaged(&x, 60 * MiB, cudaMemAttachGlobal), cudaErrorMemoryAllocation);
    EQ(cudaMallocAsync(&x, 60 * MiB, 0), cudaErrorMemoryAllocation);
    CHECK(x == sentinel);
    EQ(cudaMalloc(&x, (size_t)1 << 62), cudaErrorMemoryAllocation);
    EQ(cudaFree(b), cudaSuccess);
    EQ(free_mem(), t - 512 - 4 * MiB);
    EQ(cudaMalloc(&x, 56 * MiB), cudaSuccess); /* exactly fits what is left after rounding */
    EQ(free_mem(), t - 512 - 60 * MiB);
    EQ(cudaFree(x), cudaSuccess);
    EQ(cudaFree(a), cudaSuccess);
    EQ(cudaFree(c), cudaSuccess);
    EQ(free_mem(), t);
}

/* Run with FAKECUDA_DEVICES=3 FAKECUDA_MEM_BYTES=268435456. */
static void devices(void)
{
    int n, d;
    EQ(cudaGetDeviceCount(&n), cudaSuccess);
    EQ(n, 3);
    EQ(cudaGetDevice(&d), cudaSuccess);
    EQ(d, 0);
    EQ(cudaSetDevice(3), cudaErrorInvalidDevice);
    EQ(cudaGetLastError(), cudaErrorInvalidDevice);
    void *p[3];
    for (int i = 0; i < 3; i++) {
        EQ(cudaSetDevice(i), cudaSuccess);
        EQ(cudaGetDevice(&d), cudaSuccess);
        EQ(d, i);
        EQ(cudaMalloc(&p[i], ((size_t)1 << i) * MiB), cudaSuccess);
        /* the primary context's own memory: 4 MiB + 1 MiB per ordinal */
        EQ(free_mem(), 256 * MiB - (4 + (size_t)i) * MiB - ((size_t)1 << i) * MiB);
    }
    for (int i = 0; i < 3; i++) {
        struct cudaPointerAttributes a;
        EQ(cudaPointerGetAttributes(&a, p[i]), cudaSuccess);
        EQ(a.type, cudaMemoryTypeDevice);
        EQ(a.device, i);
        CHECK(a.devicePointer == p[i] && a.hostPointer == NULL);
        for (int j = 0; j < i; j++) /* distinct, far-apart ranges */
            CHECK((uintptr_t)p[i] - (uintptr_t)p[j] >= 256 * MiB || (uintptr_t)p[j] - (uintptr_t)p[i] >= 256 * MiB);
    }
    /* device pointers do not look like host heap pointers */
    void *h = malloc(16);
    CHECK((uintptr_t)p[0] - (uintptr_t)h >= ((uintptr_t)1 << 32) || (uintptr_t)h - (uintptr_t)p[0] >= ((uintptr_t)1 << 32));
    struct cudaPointerAttributes a;
    EQ(cudaPointerGetAttributes(&a, h), cudaSuccess);
    EQ(a.type, cudaMemoryTypeUnregistered);
    free(h);
    /* freeing from another device's context works (unified addressing) */
    EQ(cudaSetDevice(0), cudaSuccess);
    EQ(cudaFree(p[2]), cudaSuccess);
    EQ(cudaSetDevice(2), cudaSuccess);
    EQ(free_mem(), 256 * MiB - 6 * MiB); /* its context's own */
    EQ(cudaFree(p[0]), cudaSuccess);
    EQ(cudaFree(p[1]), cudaSuccess);
}

static uint64_t pool_attr(cudaMemPool_t pool, enum cudaMemPoolAttr a)
{
    uint64_t v = 0;
    EQ(cudaMemPoolGetAttribute(pool, a, &v), cudaSuccess);
    return v;
}

static void pool(void)
{
    size_t f0 = free_mem();
    cudaMemPool_t dp, cur;
    EQ(cudaDeviceGetDefaultMemPool(&dp, 0), cudaSuccess);
    EQ(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
    CHECK(dp == cur && dp != NULL);
    cudaStream_t s;
    EQ(cudaStreamCreate(&s), cudaSuccess);
    void *p, *q;
    EQ(cudaMallocAsync(&p, MiB, s), cudaSuccess);
    EQ(f0 - free_mem(), MiB);
    EQ(pool_attr(dp, cudaMemPoolAttrUsedMemCurrent), MiB);
    EQ(cudaFreeAsync(p, s), cudaSuccess);
    /* freed to the pool: still reserved until a synchronisation */
    EQ(f0 - free_mem(), MiB);
    EQ(pool_attr(dp, cudaMemPoolAttrReservedMemCurrent), MiB);
    EQ(pool_attr(dp, cudaMemPoolAttrUsedMemCurrent), 0);
    EQ(cudaMallocAsync(&q, MiB, s), cudaSuccess); /* reuses the block */
    CHECK(q == p);
    EQ(f0 - free_mem(), MiB);
    EQ(cudaFreeAsync(q, s), cudaSuccess);
    EQ(cudaFreeAsync(q, s), cudaErrorInvalidValue); /* double free */
    EQ(cudaStreamSynchronize(s), cudaSuccess);
    EQ(free_mem(), f0);
    EQ(pool_attr(dp, cudaMemPoolAttrReservedMemCurrent), 0);
    EQ(pool_attr(dp, cudaMemPoolAttrReservedMemHigh), MiB);
    EQ(pool_attr(dp, cudaMemPoolAttrUsedMemHigh), MiB);
    /* a release threshold keeps memory across syncs; TrimTo drops it */
    uint64_t thr = 64 * MiB;
    EQ(cudaMemPoolSetAttribute(dp, cudaMemPoolAttrReleaseThreshold, &thr), cudaSuccess);
    EQ(pool_attr(dp, cudaMemPoolAttrReleaseThreshold), thr);
    EQ(cudaMallocAsync(&p, 4 * MiB, s), cudaSuccess);
    EQ(cudaFreeAsync(p, s), cudaSuccess);
    EQ(cudaDeviceSynchronize(), cudaSuccess);
    EQ(f0 - free_mem(), 4 * MiB);
    EQ(cudaMemPoolTrimTo(dp, 0), cudaSuccess);
    EQ(free_mem(), f0);
    thr = 0;
    EQ(cudaMemPoolSetAttribute(dp, cudaMemPoolAttrReleaseThreshold, &thr), cudaSuccess);
    /* per-thread default stream variants */
    EQ(cudaMallocAsync_ptsz(&p, 1000, cudaStreamPerThread), cudaSuccess);
    EQ(f0 - free_mem(), 1024);
    EQ(cudaFreeAsync_ptsz(p, cudaStreamPerThread), cudaSuccess);
    EQ(f0 - free_mem(), 1024);
    EQ(cudaStreamSynchronize_ptsz(cudaStreamPerThread), cudaSuccess);
    EQ(free_mem(), f0);
    /* cudaMalloc memory may be freed with cudaFreeAsync; pool memory with cudaFree */
    EQ(cudaMalloc(&p, 512), cudaSuccess);
    EQ(cudaFreeAsync(p, s), cudaSuccess);
    EQ(cudaMallocAsync(&p, 512, s), cudaSuccess);
    EQ(cudaFree(p), cudaSuccess);
    EQ(cudaStreamSynchronize(s), cudaSuccess);
    EQ(free_mem(), f0);
    /* explicit pool: alloc, free, destroy releases what it holds */
    struct cudaMemPoolProps props = rt_device0_pool_props(cudaMemAllocationTypePinned);
    cudaMemPool_t mp;
    EQ(cudaMemPoolCreate(&mp, &props), cudaSuccess);
    thr = UINT64_MAX;
    EQ(cudaMemPoolSetAttribute(mp, cudaMemPoolAttrReleaseThreshold, &thr), cudaSuccess);
    EQ(cudaMallocFromPoolAsync(&p, 3 * MiB, mp, s), cudaSuccess);
    EQ(f0 - free_mem(), 4 * MiB);
    struct cudaPointerAttributes a;
    EQ(cudaPointerGetAttributes(&a, p), cudaSuccess);
    EQ(a.type, cudaMemoryTypeDevice);
    EQ(cudaFreeAsync(p, s), cudaSuccess);
    EQ(cudaStreamSynchronize(s), cudaSuccess);
    EQ(f0 - free_mem(), 4 * MiB); /* threshold: kept */
    EQ(cudaDeviceSetMemPool(0, mp), cudaSuccess);
    EQ(cudaMallocAsync(&q, 3 * MiB, s), cudaSuccess); /* from the current pool: reused */
    CHECK(q == p);
    EQ(cudaFreeAsync(q, s), cudaSuccess);
    EQ(cudaMemPoolDestroy(mp), cudaSuccess);
    EQ(free_mem(), f0);
    EQ(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
    CHECK(cur == dp);
    EQ(cudaMemPoolDestroy(dp), cudaErrorInvalidValue); /* the default pool cannot go */
    EQ(cudaStreamDestroy(s), cudaSuccess);
}

static void reset(void)
{
    size_t f0 = free_mem();
    void *p, *q, *h, *m;
    cudaArray_t arr;
    struct cudaChannelFormatDesc fd = {32, 0, 0, 0, cudaChannelFormatKindFloat};
    EQ(cudaMalloc(&p, 5 * MiB), cudaSuccess);
    EQ(cudaMallocManaged(&m, 1000, cudaMemAttachGlobal), cudaSuccess);
    EQ(cudaMallocArray(&arr, &fd, 64, 64, 0), cudaSuccess);
    EQ(cudaMallocAsync(&q, MiB, 0), cudaSuccess);
    EQ(cudaMallocHost(&h, 4096), cudaSuccess);
    CHECK(free_mem() < f0);
    EQ(cudaDeviceReset(), cudaSuccess);
    /* the runtime comes back by itself; the stream-ordered allocation is
     * not the reset's to free (CUDA documents it so) */
    EQ(f0 - free_mem(), MiB);
    EQ(cudaFree(p), cudaErrorInvalidValue);
    EQ(cudaFreeAsync(q, 0), cudaSuccess);
    EQ(cudaDeviceSynchronize(), cudaSuccess);
    EQ(free_mem(), f0);
    EQ(cudaFreeHost(h), cudaErrorInvalidValue);
    EQ(cudaFreeArray(arr), cudaErrorInvalidResourceHandle);
    EQ(cudaMalloc(&p, MiB), cudaSuccess);
    EQ(cudaFree(p), cudaSuccess);
    /* a reset of device 1 leaves device 0 alone */
    EQ(cudaMalloc(&p, MiB), cudaSuccess);
    EQ(cudaSetDevice(1), cudaSuccess);
    EQ(cudaMalloc(&q, MiB), cudaSuccess);
    EQ(cudaDeviceReset(), cudaSuccess);
    EQ(cudaSetDevice(0), cudaSuccess);
    EQ(f0 - free_mem(), MiB);
    EQ(cudaFree(p), cudaSuccess);
}

static void other(void)
{
    size_t f0 = free_mem();
    void *p, *h;
    size_t pitch;
    EQ(cudaMallocManaged(&p, 100, cudaMemAttachGlobal), cudaSuccess);
    ((char *)p)[99] = 7; /* host accessible */
    struct cudaPointerAttributes a;
    EQ(cudaPointerGetAttributes(&a, p), cudaSuccess);
    EQ(a.type, cudaMemoryTypeManaged);
    CHECK(a.hostPointer == p);
    EQ(f0 - free_mem(), 512);
    EQ(cudaFree(p), cudaSuccess);
    EQ(cudaMallocPitch(&p, &pitch, 1000, 10), cudaSuccess);
    EQ(pitch, 1024);
    EQ(f0 - free_mem(), 10240);
    EQ(cudaFree(p), cudaSuccess);
    struct cudaPitchedPtr pp;
    EQ(cudaMalloc3D(&pp, (struct cudaExtent){100, 4, 5}), cudaSuccess);
    EQ(pp.pitch, 512);
    EQ(pp.xsize, 100);
    EQ(f0 - free_mem(), 512 * 20);
    EQ(cudaFree(pp.ptr), cudaSuccess);
    /* arrays: width*height*depth*element bytes, rounded */
    cudaArray_t arr, arr3;
    cudaMipmappedArray_t mip;
    struct cudaChannelFormatDesc f4 = {32, 32, 32, 32, cudaChannelFormatKindFloat};
    EQ(cudaMallocArray(&arr, &f4, 100, 100, 0), cudaSuccess);
    EQ(f0 - free_mem(), 160256);
    EQ(cudaMalloc3DArray(&arr3, &f4, (struct cudaExtent){16, 16, 16}, 0), cudaSuccess);
    EQ(f0 - free_mem(), 160256 + 65536);
    EQ(cudaFreeArray(arr), cudaSuccess);
    EQ(cudaFreeArray(arr), cudaErrorInvalidResourceHandle);
    EQ(cudaFreeArray(arr3), cudaSuccess);
    struct cudaChannelFormatDesc u8 = {8, 0, 0, 0, cudaChannelFormatKindUnsigned};
    EQ(cudaMallocMipmappedArray(&mip, &u8, (struct cudaExtent){64, 64, 0}, 3, 0), cudaSuccess);
    EQ(f0 - free_mem(), 4096 + 1024 + 512); /* 64x64 + 32x32 + 16x16 -> 512 */
    EQ(cudaFreeMipmappedArray(mip), cudaSuccess);
    struct cudaChannelFormatDesc bad = {12, 0, 0, 0, cudaChannelFormatKindFloat};
    EQ(cudaMallocArray(&arr, &bad, 4, 4, 0), cudaErrorInvalidChannelDescriptor);
    EQ(free_mem(), f0);
    /* pinned host memory: not device memory */
    EQ(cudaMallocHost(&h, 10000), cudaSuccess);
    memset(h, 1, 10000);
    EQ(free_mem(), f0);
    EQ(cudaPointerGetAttributes(&a, h), cudaSuccess);
    EQ(a.type, cudaMemoryTypeHost);
    EQ(cudaFreeHost(h), cudaSuccess);
    EQ(cudaFreeHost(h), cudaErrorInvalidValue);
    EQ(cudaHostAlloc(&h, 100, cudaHostAllocMapped | cudaHostAllocPortable), cudaSuccess);
    void *dp;
    EQ(cudaHostGetDevicePointer(&dp, h, 0), cudaSuccess);
    CHECK(dp == h);
    EQ(cudaFreeHost(h), cudaSuccess);
    static char buf[8192];
    EQ(cudaHostRegister(buf, sizeof buf, cudaHostRegisterDefault), cudaSuccess);
    EQ(cudaHostRegister(buf + 100, 10, 0), cudaErrorHostMemoryAlreadyRegistered);
    EQ(cudaPointerGetAttributes(&a, buf + 10), cudaSuccess);
    EQ(a.type, cudaMemoryTypeHost);
    EQ(cudaHostUnregister(buf), cudaSuccess);
    EQ(cudaHostUnregister(buf), cudaErrorHostMemoryNotRegistered);
    EQ(free_mem(), f0);
}

static void entry(void)
{
    void *fn = (void *)1;
    enum cudaDriverEntryPointQueryResult st;
    EQ(cudaGetDriverEntryPoint("cuMemAlloc", &fn, cudaEnableDefault, &st), cudaSuccess);
    EQ(st, cudaDriverEntryPointSuccess);
    /* the runtime loaded the driver without RTLD_GLOBAL, as NVIDIA's does:
     * its names are not in the global scope, only behind its own handle */
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    CHECK(drv != NULL);
    CHECK(dlsym(RTLD_DEFAULT, "cuMemAlloc_v2") == NULL);
    CHECK(fn != NULL && fn == dlsym(drv, "cuMemAlloc_v2"));
    EQ(cudaGetDriverEntryPoint("cuMemAllocAsync", &fn, cudaEnablePerThreadDefaultStream, &st), cudaSuccess);
    CHECK(fn == dlsym(drv, "cuMemAllocAsync_ptsz"));
    EQ(cudaGetDriverEntryPoint("cuMemAllocAsync", &fn, cudaEnableLegacyStream, &st), cudaSuccess);
    CHECK(fn == dlsym(drv, "cuMemAllocAsync"));
    EQ(cudaGetDriverEntryPoint("cuNoSuchThing", &fn, cudaEnableDefault, &st), cudaSuccess);
    CHECK(fn == NULL);
    EQ(st, cudaDriverEntryPointSymbolNotFound);
    EQ(cudaGetDriverEntryPointByVersion("cuMemAllocAsync", &fn, 11000, cudaEnableDefault, &st), cudaSuccess);
    CHECK(fn == NULL);
    EQ(st, cudaDriverEntryPointVersionNotSufficent);
    EQ(cudaGetDriverEntryPointByVersion("cuMemFree", &fn, 12000, cudaEnableDefault, &st), cudaSuccess);
    CHECK(fn == dlsym(drv, "cuMemFree_v2"));
    /* the runtime's allocations are made in the primary context, by the driver */
    CUresult (*retain)(CUcontext *, CUdevice) = (CUresult(*)(CUcontext *, CUdevice))dlsym(drv, "cuDevicePrimaryCtxRetain");
    CUresult (*attr)(void *, CUpointer_attribute, CUdeviceptr) =
        (CUresult(*)(void *, CUpointer_attribute, CUdeviceptr))dlsym(drv, "cuPointerGetAttribute");
    CHECK(retain && attr);
    void *p;
    EQ(cudaMalloc(&p, 100), cudaSuccess);
    CUcontext prim, owner;
    EQ(retain(&prim, 0), CUDA_SUCCESS);
    EQ(attr(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)(uintptr_t)p), CUDA_SUCCESS);
    CHECK(owner == prim);
    EQ(cudaFree(p), cudaSuccess);
}

/* Prints what the environment configured, and which libcudart is in use. */
static void info(void)
{
    int n = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    printf("devices=%d err=%d\n", n, (int)e);
    for (int i = 0; i < n; i++) {
        size_t f, t;
        EQ(cudaSetDevice(i), cudaSuccess);
        EQ(cudaMemGetInfo(&f, &t), cudaSuccess);
        printf("dev%d total=%zu free=%zu\n", i, t, f);
    }
    Dl_info di;
    CHECK(dladdr((void *)cudaMalloc, &di) != 0);
    printf("libcudart=%s\n", di.dli_fname);
}

#define NTHREADS 8
#define ITERS 400

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    void *live[16] = {0};
    cudaStream_t s;
    EQ(cudaSetDevice((int)(seed % 2)), cudaSuccess);
    EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    for (int i = 0; i < ITERS; i++) {
        int k = (int)(rand_r(&seed) % 16);
        if (live[k]) {
            unsigned char c;
            EQ(cudaMemcpy(&c, live[k], 1, cudaMemcpyDeviceToHost), cudaSuccess);
            EQ(c, k);
            EQ((i & 1) ? cudaFree(live[k]) : cudaFreeAsync(live[k], s), cudaSuccess);
            live[k] = NULL;
        } else {
            size_t n = 1 + rand_r(&seed) % (3 * MiB);
            EQ((i & 1) ? cudaMalloc(&live[k], n) : cudaMallocAsync(&live[k], n, s), cudaSuccess);
            EQ(cudaMemset(live[k], k, n), cudaSuccess);
        }
        if (i % 50 == 0)
            EQ(cudaStreamSynchronize(s), cudaSuccess);
    }
    for (int k = 0; k < 16; k++)
        if (live[k])
            EQ(cudaFree(live[k]), cudaSuccess);
    EQ(cudaStreamSynchronize(s), cudaSuccess);
    EQ(cudaStreamDestroy(s), cudaSuccess);
    return NULL;
}

static void threads(void)
{
    size_t f0 = free_mem(), f1;
    EQ(cudaSetDevice(1), cudaSuccess);
    f1 = free_mem();
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1)) == 0);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    EQ(cudaSetDevice(1), cudaSuccess);
    EQ(cudaDeviceSynchronize(), cudaSuccess);
    EQ(free_mem(), f1);
    EQ(cudaSetDevice(0), cudaSuccess);
    EQ(cudaDeviceSynchronize(), cudaSuccess);
    EQ(free_mem(), f0);
}

int main(int argc, char **argv)
{
    static const struct fc_scenario tests[] = {
        {"basic", basic}, {"oom", oom}, {"devices", devices}, {"pool", pool},
        {"reset", reset}, {"other", other}, {"entry", entry}, {"threads", threads},
        {"info", info},
    };
    return FC_RUN_SCENARIO(argc, argv, tests);
}
