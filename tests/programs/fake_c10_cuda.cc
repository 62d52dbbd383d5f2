// A libc10_cuda.so as a PyTorch build without symbols would have it: the
// allocators' functions are hidden and the symbol table is stripped, so the
// reporter sees nothing but the library's name (t_allocator_caches).  One
// entry point, fake_c10_alloc, stands for the tensor code that asks either
// the native caching allocator or the cudaMallocAsync backend.
#include <cstddef>
#include <cstdlib>

#include <cuda_runtime_api.h>

namespace c10 { namespace cuda { namespace CUDACachingAllocator {
namespace Native {
__attribute__((noinline)) void *malloc_segment(size_t bytes)
{
    void *p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess)
        std::abort();
    return p;
}
} // namespace Native
namespace CudaMallocAsync {
__attribute__((noinline)) void *malloc_async(size_t bytes)
{
    void *p = nullptr;
    if (cudaMallocAsync(&p, bytes, nullptr) != cudaSuccess)
        std::abort();
    return p;
}
} // namespace CudaMallocAsync
}}} // namespace c10::cuda::CUDACachingAllocator

extern "C" __attribute__((visibility("default"))) void *fake_c10_alloc(size_t bytes, int async)
{
    return async ? c10::cuda::CUDACachingAllocator::CudaMallocAsync::malloc_async(bytes)
                 : c10::cuda::CUDACachingAllocator::Native::malloc_segment(bytes);
}
