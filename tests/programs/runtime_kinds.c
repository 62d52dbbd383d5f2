/* One leak of every runtime allocation family, each from its own named
 * function, plus balanced use of each family and the context teardown.
 * Built four ways (tests/module.mk): against the shared runtime, linked with
 * the static runtime, as a plugin loaded RTLD_LOCAL by plugin_host.c, and
 * with the per-thread default stream (which calls the _ptsz entry points). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t rc_ = (call);                                                \
        if (rc_ != cudaSuccess) {                                                \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)rc_); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

#define NOINLINE __attribute__((noinline))

NOINLINE static void leak_device(void) { void *p; CHECK(cudaMalloc(&p, 100000)); }
NOINLINE static void leak_managed(void) { void *p; CHECK(cudaMallocManaged(&p, 200000, cudaMemAttachGlobal)); }
NOINLINE static void leak_pitch(void)
{
    void *p;
    size_t pitch;
    CHECK(cudaMallocPitch(&p, &pitch, 1000, 30));
    printf("pitch %zu\n", pitch);
}
NOINLINE static void leak_async(cudaStream_t s) { void *p; CHECK(cudaMallocAsync(&p, 300000, s)); }
NOINLINE static void leak_from_pool(cudaStream_t s)
{
    cudaMemPool_t pool;
    void *p;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    CHECK(cudaMallocFromPoolAsync(&p, 400000, pool, s));
}
NOINLINE static void leak_host(void) { void *p; CHECK(cudaMallocHost(&p, 500000)); }
NOINLINE static void leak_host_alloc(void) { void *p; CHECK(cudaHostAlloc(&p, 600000, cudaHostAllocDefault)); }
NOINLINE static void leak_registered(void)
{
    void *p = malloc(700000);
    CHECK(cudaHostRegister(p, 700000, cudaHostRegisterDefault));
}
NOINLINE static void leak_array(void)
{
    cudaArray_t a;
    struct cudaChannelFormatDesc desc = {32, 0, 0, 0, cudaChannelFormatKindFloat};
    CHECK(cudaMallocArray(&a, &desc, 100, 50, 0)); /* 100 x 50 x 4 = 20000 bytes */
}

NOINLINE static void leak_3d(void)
{
    struct cudaPitchedPtr p;
    struct cudaExtent e = {100, 10, 3}; /* pitch x 10 x 3 */
    CHECK(cudaMalloc3D(&p, e));
    printf("pitch3d %zu\n", p.pitch);
}
NOINLINE static void leak_array3d(void)
{
    cudaArray_t a;
    struct cudaChannelFormatDesc desc = {16, 16, 0, 0, cudaChannelFormatKindSigned};
    struct cudaExtent e = {20, 10, 5};
    CHECK(cudaMalloc3DArray(&a, &desc, e, 0)); /* 20 x 10 x 5 x 4 = 4000 bytes */
}
NOINLINE static void leak_mipmap(void)
{
    cudaMipmappedArray_t a;
    struct cudaChannelFormatDesc desc = {8, 0, 0, 0, cudaChannelFormatKindUnsigned};
    struct cudaExtent e = {128, 128, 0};
    CHECK(cudaMallocMipmappedArray(&a, &desc, e, 2, 0)); /* 128*128 + 64*64 = 20480 bytes */
}

/* Every family once more, freed: none of these may show up. */
NOINLINE static void balanced(cudaStream_t s)
{
    void *p;
    size_t pitch;
    cudaArray_t a;
    struct cudaChannelFormatDesc desc = {8, 0, 0, 0, cudaChannelFormatKindUnsigned};
    CHECK(cudaMalloc(&p, 1)); CHECK(cudaFree(p));
    CHECK(cudaMallocManaged(&p, 2, cudaMemAttachGlobal)); CHECK(cudaFree(p));
    CHECK(cudaMallocPitch(&p, &pitch, 3, 3)); CHECK(cudaFree(p));
    CHECK(cudaMallocAsync(&p, 4, s)); CHECK(cudaFreeAsync(p, s));
    CHECK(cudaMallocHost(&p, 5)); CHECK(cudaFreeHost(p));
    CHECK(cudaHostAlloc(&p, 6, 0)); CHECK(cudaFreeHost(p));
    void *h = malloc(7);
    CHECK(cudaHostRegister(h, 7, 0)); CHECK(cudaHostUnregister(h));
    free(h);
    CHECK(cudaMallocArray(&a, &desc, 8, 8, 0)); CHECK(cudaFreeArray(a));
    CHECK(cudaStreamSynchronize(s));
}

/* Entry point for the plugin build. */
int run_kinds(const char *mode);
int run_kinds(const char *mode)
{
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    balanced(s);
    if (!strcmp(mode, "all")) {
        leak_device();
        leak_managed();
        leak_pitch();
        leak_async(s);
        leak_from_pool(s);
        leak_host();
        leak_host_alloc();
        leak_registered();
        leak_array();
        leak_3d();
        leak_array3d();
        leak_mipmap();
    } else if (!strcmp(mode, "reset")) {
        /* cudaDeviceReset frees everything of the device's primary context
         * except stream-ordered allocations (CUDA documents it so). */
        leak_device();
        leak_managed();
        leak_async(s);
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaDeviceReset());
    } else if (!strcmp(mode, "reset-only")) {
        /* Like most CUDA samples: nothing freed by hand, cudaDeviceReset last.
         * The reset frees it all, so nothing leaks. */
        leak_device();
        leak_managed();
        CHECK(cudaDeviceReset());
    } else if (!strcmp(mode, "device1")) {
        CHECK(cudaSetDevice(1));
        leak_device();
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    if (strcmp(mode, "reset") != 0 && strcmp(mode, "reset-only") != 0)
        CHECK(cudaStreamSynchronize(s));
    return 0;
}

#ifndef RUNTIME_KINDS_PLUGIN
int main(int argc, char **argv) { return run_kinds(argc > 1 ? argv[1] : "all"); }
#endif
