// Stand-ins for PyTorch's two CUDA allocators, with their real namespaces:
// the native caching allocator (whose segments are a cache) and the
// cudaMallocAsync backend (whose allocations are tensors).  Each keeps one
// allocation alive at exit.
#include <cstdio>
#include <cstdlib>

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

int main()
{
    c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator a;
    a.malloc(2 << 20);
    c10::cuda::CUDACachingAllocator::CudaMallocAsync::mallocAsync(3 << 20);
    return 0;
}
