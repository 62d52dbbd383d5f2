/* A minimal, O(1), lock-free stand-in for libcudart.so.13, used only by the
 * scale workloads of `make bench` (threads, snapshot, memory).
 *
 * fakecuda's first-fit allocator walks a list of every block on each call,
 * which is right for tests but makes 1,000,000 live allocations quadratic,
 * and its one global lock would serialize a thread-scaling measurement before
 * gpuleak is even reached.  This library hands out addresses from an atomic
 * counter and never reuses them, so everything the benchmark measures on top
 * of it is gpuleak's own cost.  It exports exactly what bench_work and
 * gpuleak's record path call. */
#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <stdint.h>

#define FAST_BASE 0x300000000000ull

static _Atomic uint64_t next_addr = FAST_BASE;

static cudaError_t take(void **p, size_t size)
{
    if (p == NULL)
        return cudaErrorInvalidValue;
    if (size == 0) {
        *p = NULL;
        return cudaSuccess;
    }
    uint64_t rounded = (size + 511) & ~(uint64_t)511;
    *p = (void *)(uintptr_t)atomic_fetch_add_explicit(&next_addr, rounded, memory_order_relaxed);
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **devPtr, size_t size) { return take(devPtr, size); }
cudaError_t cudaFree(void *devPtr)
{
    (void)devPtr;
    return cudaSuccess;
}
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
    (void)stream;
    return take(devPtr, size);
}
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
    (void)devPtr;
    (void)stream;
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int *device)
{
    if (device == NULL)
        return cudaErrorInvalidValue;
    *device = 0;
    return cudaSuccess;
}
