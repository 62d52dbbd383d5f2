/* The legacy cuBLAS API (cublas.h): device memory through cublasAlloc /
 * cublasFree (cudaMalloc / cudaFree of this library's own runtime, as
 * NVIDIA's), and the functions that return a value rather than a status
 * (a generated stub returns an int; these return a float, a double or a
 * complex in other registers), which compute nothing and return 0. */
#include <cublas.h>
#include <cuda_runtime_api.h>

cublasStatus cublasInit(void) { return CUBLAS_STATUS_SUCCESS; }
cublasStatus cublasShutdown(void) { return CUBLAS_STATUS_SUCCESS; }

/* No legacy call here fails. */
cublasStatus cublasGetError(void) { return CUBLAS_STATUS_SUCCESS; }

cublasStatus cublasGetVersion(int *version)
{
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus cublasAlloc(int n, int elemSize, void **devicePtr)
{
    if (n <= 0 || elemSize <= 0 || !devicePtr)
        return CUBLAS_STATUS_INVALID_VALUE;
    return cudaMalloc(devicePtr, (size_t)n * (size_t)elemSize) == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                                                                              : CUBLAS_STATUS_ALLOC_FAILED;
}

cublasStatus cublasFree(void *devicePtr)
{
    return cudaFree(devicePtr) == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

#define FC_ZERO1(T, NAME, X) \
    T NAME(int n, const X *x, int incx) { (void)n, (void)x, (void)incx; return (T){0}; }
#define FC_ZERO2(T, NAME, X)                                            \
    T NAME(int n, const X *x, int incx, const X *y, int incy)          \
    {                                                                   \
        (void)n, (void)x, (void)incx, (void)y, (void)incy;              \
        return (T){0};                                                  \
    }
FC_ZERO1(float, cublasSnrm2, float)
FC_ZERO1(double, cublasDnrm2, double)
FC_ZERO1(float, cublasScnrm2, cuComplex)
FC_ZERO1(double, cublasDznrm2, cuDoubleComplex)
FC_ZERO1(float, cublasSasum, float)
FC_ZERO1(double, cublasDasum, double)
FC_ZERO1(float, cublasScasum, cuComplex)
FC_ZERO1(double, cublasDzasum, cuDoubleComplex)
FC_ZERO2(float, cublasSdot, float)
FC_ZERO2(double, cublasDdot, double)
FC_ZERO2(cuComplex, cublasCdotu, cuComplex)
FC_ZERO2(cuComplex, cublasCdotc, cuComplex)
FC_ZERO2(cuDoubleComplex, cublasZdotu, cuDoubleComplex)
FC_ZERO2(cuDoubleComplex, cublasZdotc, cuDoubleComplex)
