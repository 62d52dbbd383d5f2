/* A minimal, O(1), lock-free stand-in for libcudart.so.13, used only by the
 * scale workloads of `make bench` (threads, snapshot, memory).
 *
 * fakecuda's first-fit allocator walks a list of every block on each call,
 * which is right for tests but makes 1,000,000 live allocations quadratic,
 * and its one global lock would serialize a thread-scaling measurement before
 * gpuleak is even reached.  This library hands out addresses from an atomic
 * counter and never reuses them, so everything the benchmark measures on top
 * of it is gpuleak's own cost.  It exports exactly what bench_work and
 * gpuleak's record path call.
 *
 * FASTCUDA_REUSE=1: a freed block goes on its thread's LIFO list and that
 * thread's next allocation of the same size takes it back, as CUDA's
 * stream-ordered pools and the frameworks' caching allocators hand a loop
 * the address it just freed.  Without it every address is new, which
 * spreads a loop's records over every shard of gpuleak's live table (the
 * thread table shows both). */
#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAST_BASE 0x300000000000ull

static _Atomic uint64_t next_addr = FAST_BASE;

#define REUSE_SLOTS 64
struct reuse {
    uint64_t addr[REUSE_SLOTS], size[REUSE_SLOTS];
    int n;
};
static __thread struct reuse reuse;
static int reuse_on = -1;
static __thread uint64_t last_size; /* the size of this thread's last block */

static int reusing(void)
{
    if (reuse_on < 0) {
        const char *e = getenv("FASTCUDA_REUSE");
        reuse_on = e != NULL && strcmp(e, "1") == 0;
    }
    return reuse_on;
}

static cudaError_t take(void **p, size_t size)
{
    if (p == NULL)
        return cudaErrorInvalidValue;
    if (size == 0) {
        *p = NULL;
        return cudaSuccess;
    }
    uint64_t rounded = (size + 511) & ~(uint64_t)511;
    if (reusing() && reuse.n > 0 && reuse.size[reuse.n - 1] == rounded) {
        reuse.n--;
        *p = (void *)(uintptr_t)reuse.addr[reuse.n];
        last_size = rounded;
        return cudaSuccess;
    }
    *p = (void *)(uintptr_t)atomic_fetch_add_explicit(&next_addr, rounded, memory_order_relaxed);
    last_size = rounded;
    return cudaSuccess;
}

/* A free goes on the freeing thread's list with the size of that thread's
 * last block: exact for the bench's loops, which free what they just
 * allocated, one size per loop. */
static void give(void *p)
{
    if (p != NULL && reusing() && reuse.n < REUSE_SLOTS) {
        reuse.addr[reuse.n] = (uint64_t)(uintptr_t)p;
        reuse.size[reuse.n] = last_size;
        reuse.n++;
    }
}

cudaError_t cudaMalloc(void **devPtr, size_t size) { return take(devPtr, size); }
cudaError_t cudaFree(void *devPtr)
{
    give(devPtr);
    return cudaSuccess;
}
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
    (void)stream;
    return take(devPtr, size);
}
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
    (void)stream;
    give(devPtr);
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int *device)
{
    if (device == NULL)
        return cudaErrorInvalidValue;
    *device = 0;
    return cudaSuccess;
}
