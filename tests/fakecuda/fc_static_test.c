/* fakecuda self-test of the static runtime (libcudart_static.a): the runtime
 * lives inside this executable, hidden, and still reaches the driver through
 * dlopen + cuGetProcAddress. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <string.h>

#include "fc_check.h"

int main(void)
{
    size_t f0, f, t;
    void *p, *q;
    EQ(cudaMemGetInfo(&f0, &t), cudaSuccess);
    EQ(cudaMalloc(&p, 3 * MiB), cudaSuccess);
    EQ(cudaMemGetInfo(&f, &t), cudaSuccess);
    EQ(f0 - f, 4 * MiB);
    EQ(cudaMemset(p, 7, 3 * MiB), cudaSuccess);
    char c;
    EQ(cudaMemcpy(&c, (char *)p + 3 * MiB - 1, 1, cudaMemcpyDeviceToHost), cudaSuccess);
    EQ(c, 7);
    EQ(cudaMallocAsync(&q, 100, 0), cudaSuccess);
    EQ(cudaFreeAsync(q, 0), cudaSuccess);
    EQ(cudaFree(p), cudaSuccess);
    EQ(cudaFree(p), cudaErrorInvalidValue);
    EQ(cudaDeviceSynchronize(), cudaSuccess);
    EQ(cudaMemGetInfo(&f, &t), cudaSuccess);
    EQ(f, f0);
    /* nothing named cuda* is visible to the dynamic linker ... */
    CHECK(dlsym(RTLD_DEFAULT, "cudaMalloc") == NULL);
    CHECK(dlsym(RTLD_DEFAULT, "cudaFree") == NULL);
    /* ... nor the driver's, loaded without RTLD_GLOBAL as by the real
     * runtime, but loaded */
    CHECK(dlsym(RTLD_DEFAULT, "cuMemAlloc_v2") == NULL);
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    CHECK(drv != NULL && dlsym(drv, "cuMemAlloc_v2") != NULL);
    printf("ok static\n");
    return 0;
}
