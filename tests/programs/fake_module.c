/* One shared object, built under several names (tests/module.mk) to stand
 * for a library known by its file name: CuPy's Cython modules
 * cupy/cuda/memory and cupy/cuda/pinned_memory, cuBLASLt, NCCL.  Each function
 * allocates once and keeps it, as their pools and workspaces do. */
#include <stddef.h>

#include <cuda_runtime_api.h>

void *fake_module_alloc(size_t bytes);
void *fake_module_alloc_host(size_t bytes);

void *fake_module_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
}

void *fake_module_alloc_host(size_t bytes)
{
    void *p = NULL;
    return cudaHostAlloc(&p, bytes, cudaHostAllocDefault) == cudaSuccess ? p : NULL;
}
