// A training loop whose framework cache grows at every step: PyTorch's
// commonest leak (a tensor kept alive, e.g. a loss appended to a list with
// its graph) seen from below, where only the caching allocator's segments
// are CUDA calls.  A stand-in for c10's native caching allocator, with its
// real namespace, so gpuleak's built-in cache rule takes its memory:
//   - weights: one 4 MiB segment, allocated once (stable);
//   - kept activations: one more 2 MiB segment at every step, never given
//     back: the cache grows 2, 4, 6, 8 MiB over four steps;
//   - a workspace that grows, then shrinks: not monotonic.
// After each step the program asks for a snapshot (gpuleak_snapshot, declared
// weak so the program also runs without gpuleak), naming it step<i>.snap.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime_api.h>

extern "C" int gpuleak_snapshot(const char *path) __attribute__((weak));

namespace c10 { namespace cuda { namespace CUDACachingAllocator { namespace Native {
struct DeviceCachingAllocator {
    __attribute__((noinline)) void *malloc(size_t bytes)
    {
        void *p = nullptr;
        if (cudaMalloc(&p, bytes) != cudaSuccess)
            std::abort();
        return p;
    }
    __attribute__((noinline)) void release(void *p)
    {
        if (cudaFree(p) != cudaSuccess)
            std::abort();
    }
};
}}}} // namespace c10::cuda::CUDACachingAllocator::Native

using c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator;

static const size_t MiB = 1024 * 1024;

__attribute__((noinline)) static void *load_weights(DeviceCachingAllocator &a)
{
    return a.malloc(4 * MiB);
}

__attribute__((noinline)) static void keep_activations(DeviceCachingAllocator &a)
{
    a.malloc(2 * MiB); /* KEPT-SITE */
}

__attribute__((noinline)) static void *workspace(DeviceCachingAllocator &a, size_t bytes)
{
    return a.malloc(bytes); /* WORK-SITE */
}

int main()
{
    DeviceCachingAllocator alloc;
    load_weights(alloc);
    /* workspace per step: 1, 3, 2, 1 MiB (grows, then shrinks) */
    static const size_t work[] = {1, 3, 2, 1};
    void *ws = nullptr;
    for (int step = 0; step < 4; step++) {
        if (ws)
            alloc.release(ws);
        ws = workspace(alloc, work[step] * MiB);
        keep_activations(alloc);
        char name[32];
        std::snprintf(name, sizeof name, "step%d.snap", step);
        if (gpuleak_snapshot && gpuleak_snapshot(name) != 0)
            return 1;
    }
    return 0;
}
