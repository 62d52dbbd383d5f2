/* Stream-ordered memory lives on the stream's device, or the named pool's,
 * not necessarily the calling thread's current one.  With device 0
 * current, each family allocates on device 1 and leaks (LEAK-SITE lines):
 *   runtime  cudaMallocAsync on a stream of device 1 (1 MiB),
 *            cudaMallocFromPoolAsync from device 1's pool (2 MiB)
 *   driver   cuMemAllocAsync on a stream created in device 1's context, used
 *            while device 0's is current (3 MiB), cuMemAllocFromPoolAsync
 *            from device 1's pool (4 MiB)
 * and, on the default stream of device 0, 512 KiB that stays on device 0.
 * oom: requests on device 1's stream that fail are device 1's failures.
 * Usage: cross_device runtime|driver|oom  (exits 3 with fewer than two devices) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"

#define NOINLINE __attribute__((noinline))
#define MiB (1024u * 1024u)

NOINLINE static void rt_leak_on_stream(cudaStream_t s1)
{
    void *p;
    rt_check(cudaMallocAsync(&p, MiB, s1), "cudaMallocAsync"); /* LEAK-SITE: rt_leak_on_stream */
}

NOINLINE static void rt_leak_from_pool(cudaMemPool_t pool1)
{
    void *p;
    rt_check(cudaMallocFromPoolAsync(&p, 2 * MiB, pool1, 0), "cudaMallocFromPoolAsync"); /* LEAK-SITE: rt_leak_from_pool */
}

NOINLINE static void rt_leak_here(void)
{
    void *p;
    rt_check(cudaMallocAsync(&p, MiB / 2, 0), "cudaMallocAsync"); /* LEAK-SITE: rt_leak_here */
}

static void runtime(void)
{
    cudaStream_t s1;
    cudaMemPool_t pool1;
    rt_check(cudaSetDevice(1), "cudaSetDevice");
    rt_check(cudaStreamCreate(&s1), "cudaStreamCreate");
    rt_check(cudaDeviceGetDefaultMemPool(&pool1, 1), "cudaDeviceGetDefaultMemPool");
    rt_check(cudaSetDevice(0), "cudaSetDevice");
    rt_leak_on_stream(s1);
    rt_leak_from_pool(pool1);
    rt_leak_here();
    rt_check(cudaStreamSynchronize(s1), "cudaStreamSynchronize");
    rt_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

NOINLINE static void cu_leak_on_stream(CUstream s1)
{
    CUdeviceptr p;
    check(cuMemAllocAsync(&p, 3 * MiB, s1), "cuMemAllocAsync"); /* LEAK-SITE: cu_leak_on_stream */
}

NOINLINE static void cu_leak_from_pool(CUmemoryPool pool1)
{
    CUdeviceptr p;
    check(cuMemAllocFromPoolAsync(&p, 4 * MiB, pool1, 0), "cuMemAllocFromPoolAsync"); /* LEAK-SITE: cu_leak_from_pool */
}

NOINLINE static void cu_leak_here(void)
{
    CUdeviceptr p;
    check(cuMemAllocAsync(&p, MiB / 2, 0), "cuMemAllocAsync"); /* LEAK-SITE: cu_leak_here */
}

static void driver(void)
{
    CUdevice d0, d1;
    CUcontext c0, c1;
    CUstream s1;
    CUmemoryPool pool1;
    check(cuInit(0), "cuInit");
    check(cuDeviceGet(&d0, 0), "cuDeviceGet");
    check(cuDeviceGet(&d1, 1), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&c1, d1), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(c1), "cuCtxSetCurrent");
    check(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    check(cuDeviceGetDefaultMemPool(&pool1, d1), "cuDeviceGetDefaultMemPool");
    check(cuDevicePrimaryCtxRetain(&c0, d0), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(c0), "cuCtxSetCurrent");
    cu_leak_on_stream(s1);
    cu_leak_from_pool(pool1);
    cu_leak_here();
    check(cuStreamSynchronize(s1), "cuStreamSynchronize");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
}

/* oom: with device 0 current, stream-ordered requests on a stream of
 * device 1 that cannot succeed: failed on device 1 (runtime, then driver). */
static void oom(void)
{
    cudaStream_t s1;
    rt_check(cudaSetDevice(1), "cudaSetDevice");
    rt_check(cudaStreamCreate(&s1), "cudaStreamCreate");
    rt_check(cudaSetDevice(0), "cudaSetDevice");
    void *p;
    rt_check(cudaMalloc(&p, 4096), "cudaMalloc"); /* device 0 has a record, and no failure */
    rt_check(cudaFree(p), "cudaFree");
    printf("oom runtime %d\n", (int)cudaMallocAsync(&p, (size_t)1 << 50, s1));
    CUdeviceptr d;
    printf("oom driver %d\n", (int)cuMemAllocAsync(&d, (size_t)1 << 50, (CUstream)s1));
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "";
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) {
        fprintf(stderr, "cross_device needs two devices (%d)\n", n);
        return 3;
    }
    if (!strcmp(how, "runtime"))
        runtime();
    else if (!strcmp(how, "driver"))
        driver();
    else if (!strcmp(how, "oom"))
        oom();
    else {
        fprintf(stderr, "usage: cross_device runtime|driver|oom\n");
        return 2;
    }
    return 0;
}
