// Stand-ins for PyTorch's two CUDA allocators, with their real namespaces:
// the native caching allocator (whose segments are a cache) and the
// cudaMallocAsync backend (whose allocations are tensors), and the caching
// host allocator (pinned blocks).  Each keeps one allocation alive at exit.  --set-no-caching: turns caching off the way a
// script does, in code, after start and before the first allocation.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda_runtime_api.h>

namespace c10 { namespace cuda { namespace CUDACachingAllocator {
namespace Native {
struct DeviceCachingAllocator {
    __attribute__((noinline)) void *malloc(size_t bytes)
    {
        void *p = nullptr;
        if (cudaMalloc(&p, bytes) != cudaSuccess)
            std::abort();
        return p;
    }
};
} // namespace Native
namespace CudaMallocAsync {
__attribute__((noinline)) void *mallocAsync(size_t bytes)
{
    void *p = nullptr;
    if (cudaMallocAsync(&p, bytes, nullptr) != cudaSuccess)
        std::abort();
    return p;
}
} // namespace CudaMallocAsync
}}} // namespace c10::cuda::CUDACachingAllocator

// PyTorch's caching host allocator: pinned blocks kept for reuse.
namespace at { namespace cuda { namespace {
struct CUDACachingHostAllocatorImpl {
    __attribute__((noinline)) void allocate_host_memory_slowpath(size_t size, void **ptr)
    {
        if (cudaHostAlloc(ptr, size, cudaHostAllocDefault) != cudaSuccess)
            std::abort();
    }
};
}}} // namespace at::cuda::(anonymous)

int main(int argc, char **argv)
{
    // A script that turns caching off in code, after CUDA started
    // (torch.cuda.is_available()) and before its first tensor, as training
    // scripts do with os.environ[...] = "1".
    if (argc > 1 && std::string(argv[1]) == "--set-no-caching") {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess)
            std::abort();
        setenv("PYTORCH_NO_CUDA_MEMORY_CACHING", "1", 1);
    }
    c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator a;
    a.malloc(2 << 20);
    c10::cuda::CUDACachingAllocator::CudaMallocAsync::mallocAsync(3 << 20);
    void *pinned = nullptr;
    at::cuda::CUDACachingHostAllocatorImpl().allocate_host_memory_slowpath(1 << 20, &pinned);
    return 0;
}
