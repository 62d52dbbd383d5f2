/* Unit test of interpose/cuda/ pieces with a clean seam, in process:
 *   array_size.c  the bytes recorded for a CUDA array (driver descriptor,
 *                 runtime channel format, mipmap levels);
 *   pool_kinds.c  which pools hand out managed memory;
 *   where.c       where an allocation belongs, asked of fakecuda's driver
 *                 and runtime (the test is linked against them, as a CUDA
 *                 program is, and where.c resolves the real functions the
 *                 way libgpuleak does): the current device, the current
 *                 context and the primary one, a pointer's device when no
 *                 context is current, a stream's device for a failed pool
 *                 allocation, a mapping's size; the driver's context kept
 *                 per thread until forgotten (here by hand, where the
 *                 hooks on the context calls would).
 * Linked from cuda/, resolve/, state/ and base/ objects; no hooks, no
 * libgpuleak.so.  Run with fakecuda on LD_LIBRARY_PATH (tests/t_unit_cuda.sh). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/array_size.h"
#include "cuda/pool_kinds.h"
#include "cuda/where.h"
#include "snapshot_format.h"

static int failures;

#define CHECK_EQ(got, want)                                                    \
    do {                                                                       \
        unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
        if (g_ != w_) {                                                        \
            fprintf(stderr, "FAIL %s:%d: %s = %llu, want %s = %llu\n", __FILE__, __LINE__, #got, g_, \
                    #want, w_);                                                \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static void test_array_size(void)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {.Width = 100, .Height = 10, .Depth = 0, .Format = CU_AD_FORMAT_FLOAT,
                                 .NumChannels = 4};
    CHECK_EQ(gl_array_bytes_driver(&d, 1), 100 * 10 * 16);
    /* mipmapped: 64x64, 32x32, 16x16 of one byte */
    CUDA_ARRAY3D_DESCRIPTOR m = {.Width = 64, .Height = 64, .Format = CU_AD_FORMAT_UNSIGNED_INT8,
                                 .NumChannels = 1};
    CHECK_EQ(gl_array_bytes_driver(&m, 3), 4096 + 1024 + 256);
    /* each dimension halves down to 1 */
    CUDA_ARRAY3D_DESCRIPTOR t = {.Width = 4, .Height = 1, .Depth = 2, .Format = CU_AD_FORMAT_HALF,
                                 .NumChannels = 2};
    CHECK_EQ(gl_array_bytes_driver(&t, 4), (4 * 2 + 2 * 1 + 1 + 1) * 4);
    CHECK_EQ(gl_array_bytes_driver(NULL, 1), 0);
    struct cudaChannelFormatDesc f = {.x = 8, .y = 8, .z = 8, .w = 8};
    CHECK_EQ(gl_array_bytes_runtime(&f, (struct cudaExtent){10, 0, 0}, 1), 40);
    struct cudaChannelFormatDesc odd = {.x = 12};
    CHECK_EQ(gl_array_bytes_runtime(&odd, (struct cudaExtent){10, 3, 2}, 2), 10 * 3 * 2 * 2 + 5 * 1 * 1 * 2);
    CHECK_EQ(gl_array_bytes_runtime(NULL, (struct cudaExtent){7, 0, 0}, 1), 7);
}

static void test_pool_kinds(void)
{
    CHECK_EQ(gl_pool_kind(0x10), GL_KIND_POOL);
    gl_pool_kinds_created(0x10, 1);
    gl_pool_kinds_created(0x20, 0);
    CHECK_EQ(gl_pool_kind(0x10), GL_KIND_MANAGED);
    CHECK_EQ(gl_pool_kind(0x20), GL_KIND_POOL);
    CHECK_EQ(gl_pool_kind(0), GL_KIND_POOL); /* the stream's device's current pool */
    gl_pool_kinds_created(0x10, 0);          /* a handle reused by a device pool */
    CHECK_EQ(gl_pool_kind(0x10), GL_KIND_POOL);
    gl_pool_kinds_created(0x30, 1);
    gl_pool_kinds_destroyed(0x30);
    CHECK_EQ(gl_pool_kind(0x30), GL_KIND_POOL);
}

static CUdeviceptr dptr;

/* A thread with no current context: the pointer says where.  "No context"
 * is not kept: once one is current (here without a hook seeing it, as the
 * runtime's lazy binding may), the next query asks and finds it. */
static void *no_context(void *arg)
{
    struct gl_where *w = arg;
    w[0] = gl_where_driver(dptr);
    CUcontext primary = NULL;
    cuDevicePrimaryCtxRetain(&primary, 1);
    cuCtxSetCurrent(primary);
    w[1] = gl_where_driver(0);
    return NULL;
}

/* The driver's context is kept per thread: a change no hook saw is not
 * noticed until the thread's value is forgotten, or every thread's. */
static void test_where_kept(CUcontext primary, CUcontext own)
{
    CHECK_EQ(cuCtxSetCurrent(own), CUDA_SUCCESS);
    gl_where_device_forget();
    CHECK_EQ(gl_where_driver(0).device, 0);
    CHECK_EQ(cuCtxSetCurrent(primary), CUDA_SUCCESS); /* unseen */
    struct gl_where w = gl_where_driver(0);
    CHECK_EQ(w.device, 0);
    CHECK_EQ(w.ctx, (uintptr_t)own);
    gl_where_device_forget();
    w = gl_where_driver(0);
    CHECK_EQ(w.device, 1);
    CHECK_EQ(w.ctx, 0);
    CHECK_EQ(cuCtxSetCurrent(own), CUDA_SUCCESS); /* unseen */
    gl_where_devices_forget_all();
    CHECK_EQ(gl_where_driver(0).device, 0);
    CHECK_EQ(cuCtxSetCurrent(primary), CUDA_SUCCESS); /* unseen */
    gl_where_device_set(1, gl_where_device_epoch()); /* as cudaSetDevice's hook */
    CHECK_EQ(gl_where_driver(0).device, 1);
}

static void test_where(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) {
        fprintf(stderr, "FAIL: fakecuda has %d devices, want FAKECUDA_DEVICES=2\n", n);
        failures++;
        return;
    }
    CHECK_EQ(cudaSetDevice(1), cudaSuccess);
    CHECK_EQ(gl_where_runtime().device, 1);

    CUcontext primary = NULL, own = NULL;
    CHECK_EQ(cuInit(0), CUDA_SUCCESS);
    CHECK_EQ(cuDevicePrimaryCtxRetain(&primary, 1), CUDA_SUCCESS);
    CHECK_EQ(cuCtxSetCurrent(primary), CUDA_SUCCESS);
    gl_where_device_forget(); /* as the hook on cuCtxSetCurrent does */
    struct gl_where w = gl_where_driver(0);
    CHECK_EQ(w.device, 1);
    CHECK_EQ(w.ctx, (uintptr_t)primary); /* not yet known as the primary */
    gl_where_note_primary(1, (uintptr_t)primary);
    CHECK_EQ(gl_where_driver(0).ctx, 0);
    CHECK_EQ(gl_where_primary(1), (uintptr_t)primary);

    CHECK_EQ(cuCtxCreate_v2(&own, 0, 0), CUDA_SUCCESS); /* device 0, made current */
    gl_where_device_forget();
    w = gl_where_driver(0);
    CHECK_EQ(w.device, 0);
    CHECK_EQ(w.ctx, (uintptr_t)own);

    test_where_kept(primary, own);

    CHECK_EQ(cuCtxSetCurrent(primary), CUDA_SUCCESS);
    gl_where_device_forget();
    CHECK_EQ(cuMemAlloc_v2(&dptr, 3000), CUDA_SUCCESS);
    CHECK_EQ(gl_where_mapping_size(dptr), 3000);
    CHECK_EQ(gl_where_mapping_size(dptr + 8), 0); /* not its start */
    pthread_t t;
    struct gl_where other[2] = {{-5, 5}, {-5, 5}};
    pthread_create(&t, NULL, no_context, other);
    pthread_join(t, NULL);
    CHECK_EQ(other[0].device, 1);
    CHECK_EQ(other[0].ctx, 0);
    CHECK_EQ(other[1].device, 1);
    CHECK_EQ(other[1].ctx, 0);

    /* a failed pool allocation on a stream of device 1, the caller on 0 */
    CUstream s;
    CHECK_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
    CHECK_EQ(gl_where_failed(0, GL_KIND_POOL, (uintptr_t)s), 1);
    CHECK_EQ(gl_where_failed(0, GL_KIND_DEVICE, (uintptr_t)s), 0);
    CHECK_EQ(gl_where_failed(0, GL_KIND_POOL, 1), 0); /* the legacy stream */
    cuStreamDestroy_v2(s);
    cuMemFree_v2(dptr);
    cuCtxDestroy_v2(own);
}

int main(void)
{
    /* two devices unless told otherwise: fakecuda reads it at its first call */
    setenv("FAKECUDA_DEVICES", "2", 0);
    test_array_size();
    test_pool_kinds();
    test_where();
    if (failures) {
        fprintf(stderr, "cuda_where: %d failures\n", failures);
        return 1;
    }
    puts("ok: cuda_where: array sizes, pool kinds, where against fakecuda");
    return 0;
}
