// A CUDA program as users write them, built with nvcc against NVIDIA's real
// runtime (shared or static): allocate, free, reset.  It prints the code of
// each call so that a run with gpuleak can be compared with one without.
#include <cuda_runtime.h>
#include <stdio.h>

int main(void)
{
    void *p = NULL;
    printf("cudaMalloc %d\n", (int)cudaMalloc(&p, 1 << 20));
    printf("cudaFree %d\n", (int)cudaFree(p));
    void *h = NULL;
    printf("cudaMallocHost %d\n", (int)cudaMallocHost(&h, 4096));
    printf("cudaDeviceReset %d\n", (int)cudaDeviceReset());
    printf("cudaGetLastError %d\n", (int)cudaGetLastError());
    return 0;
}
