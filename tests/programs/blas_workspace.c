/* cuBLAS's default workspace (scripts/gpu-check.sh cublas-workspace; on
 * fakecuda, its cuBLAS stand-in: tools/fakecuda/README.md): one SGEMM on
 * the default stream and one on a stream of its own, with no workspace of
 * the program's, and the handle left alive at exit so that the exit
 * snapshot holds what cuBLAS allocated itself.  Prints the device's compute
 * capability major (the default workspace's size depends on it). */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

static int fail(const char *what, int code)
{
    fprintf(stderr, "blas_workspace: %s failed (%d)\n", what, code);
    return 1;
}

int main(void)
{
    const float one = 1.0f, zero = 0.0f;
    float *m;
    int major = 0;
    cublasHandle_t h;
    cudaStream_t s;
    cudaError_t e;
    cublasStatus_t b;
    if ((e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0)) != cudaSuccess)
        return fail("cudaDeviceGetAttribute", e);
    if ((e = cudaMalloc((void **)&m, 64 * 64 * sizeof(float))) != cudaSuccess)
        return fail("cudaMalloc", e);
    if ((e = cudaStreamCreate(&s)) != cudaSuccess)
        return fail("cudaStreamCreate", e);
    if ((b = cublasCreate(&h)) != CUBLAS_STATUS_SUCCESS)
        return fail("cublasCreate", b);
    if ((b = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, m, 64, m, 64, &zero, m, 64)) !=
        CUBLAS_STATUS_SUCCESS)
        return fail("cublasSgemm on the default stream", b);
    if ((b = cublasSetStream(h, s)) != CUBLAS_STATUS_SUCCESS)
        return fail("cublasSetStream", b);
    if ((b = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, m, 64, m, 64, &zero, m, 64)) !=
        CUBLAS_STATUS_SUCCESS)
        return fail("cublasSgemm on a stream", b);
    if ((e = cudaDeviceSynchronize()) != cudaSuccess)
        return fail("cudaDeviceSynchronize", e);
    if ((e = cudaFree(m)) != cudaSuccess)
        return fail("cudaFree", e);
    printf("cc_major %d\n", major);
    return 0; /* the handle and its workspaces are left to the process's end */
}
