/* A plugin with its own CUDA runtime, as a Python extension module has: the
 * test builds it twice, against two different runtimes (sonames
 * libcudart.so.13 and libcudart.so.12), and loads both RTLD_LOCAL. */
#include <cuda_runtime_api.h>

int plugin_alloc(unsigned long bytes);
int plugin_alloc(unsigned long bytes)
{
    void *p;
    return (int)cudaMalloc(&p, bytes); /* leaked */
}

/* Each runtime keeps its own last error: which one a call reached shows. */
int plugin_last_error(void);
int plugin_last_error(void) { return (int)cudaGetLastError(); }
