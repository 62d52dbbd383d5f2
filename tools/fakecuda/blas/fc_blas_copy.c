/* cuBLAS's host <-> device copies (cublasSet/GetVector, cublasSet/GetMatrix,
 * their Async and _64 forms): copies are no kernels, so they copy, through
 * this library's own runtime (one cudaMemcpy per contiguous run; fakecuda
 * completes async copies at the call).  Arguments are checked as cuBLAS
 * documents: INVALID_VALUE for a negative count, an element size or
 * increment under 1, a leading dimension under the rows; MAPPING_ERROR
 * when the runtime refuses the copy. */
#include "fc_blas.h"

#include <stdint.h>

static cublasStatus_t copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                           const cudaStream_t *stream)
{
    cudaError_t e = stream ? cudaMemcpyAsync(dst, src, bytes, kind, *stream) : cudaMemcpy(dst, src, bytes, kind);
    return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
}

static cublasStatus_t matrix(int64_t rows, int64_t cols, int64_t elem, const void *a, int64_t lda, void *b,
                             int64_t ldb, enum cudaMemcpyKind kind, const cudaStream_t *stream)
{
    if (rows < 0 || cols < 0 || elem <= 0 || lda <= 0 || ldb <= 0 || lda < rows || ldb < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (lda == rows && ldb == rows)
        return rows && cols ? copy(b, a, (size_t)(rows * cols * elem), kind, stream) : CUBLAS_STATUS_SUCCESS;
    for (int64_t j = 0; j < cols && rows; j++) {
        cublasStatus_t s = copy((char *)b + j * ldb * elem, (const char *)a + j * lda * elem, (size_t)(rows * elem),
                                kind, stream);
        if (s != CUBLAS_STATUS_SUCCESS)
            return s;
    }
    return CUBLAS_STATUS_SUCCESS;
}

/* A vector is a matrix of 1 row: n columns, elem apart by inc. */
static cublasStatus_t vector(int64_t n, int64_t elem, const void *src, int64_t incs, void *dst, int64_t incd,
                             enum cudaMemcpyKind kind, const cudaStream_t *stream)
{
    return matrix(1, n, elem, src, incs, dst, incd, kind, stream);
}

#define H2D cudaMemcpyHostToDevice
#define D2H cudaMemcpyDeviceToHost

cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *devicePtr, int incy)
{
    return vector(n, elemSize, x, incx, devicePtr, incy, H2D, NULL);
}

cublasStatus_t cublasSetVector_64(int64_t n, int64_t elemSize, const void *x, int64_t incx, void *devicePtr,
                                  int64_t incy)
{
    return vector(n, elemSize, x, incx, devicePtr, incy, H2D, NULL);
}

cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy)
{
    return vector(n, elemSize, x, incx, y, incy, D2H, NULL);
}

cublasStatus_t cublasGetVector_64(int64_t n, int64_t elemSize, const void *x, int64_t incx, void *y, int64_t incy)
{
    return vector(n, elemSize, x, incx, y, incy, D2H, NULL);
}

cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *hostPtr, int incx, void *devicePtr, int incy,
                                    cudaStream_t stream)
{
    return vector(n, elemSize, hostPtr, incx, devicePtr, incy, H2D, &stream);
}

cublasStatus_t cublasSetVectorAsync_64(int64_t n, int64_t elemSize, const void *hostPtr, int64_t incx,
                                       void *devicePtr, int64_t incy, cudaStream_t stream)
{
    return vector(n, elemSize, hostPtr, incx, devicePtr, incy, H2D, &stream);
}

cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *devicePtr, int incx, void *hostPtr, int incy,
                                    cudaStream_t stream)
{
    return vector(n, elemSize, devicePtr, incx, hostPtr, incy, D2H, &stream);
}

cublasStatus_t cublasGetVectorAsync_64(int64_t n, int64_t elemSize, const void *devicePtr, int64_t incx,
                                       void *hostPtr, int64_t incy, cudaStream_t stream)
{
    return vector(n, elemSize, devicePtr, incx, hostPtr, incy, D2H, &stream);
}

cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, H2D, NULL);
}

cublasStatus_t cublasSetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize, const void *A, int64_t lda, void *B,
                                  int64_t ldb)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, H2D, NULL);
}

cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, D2H, NULL);
}

cublasStatus_t cublasGetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize, const void *A, int64_t lda, void *B,
                                  int64_t ldb)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, D2H, NULL);
}

cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb,
                                    cudaStream_t stream)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, H2D, &stream);
}

cublasStatus_t cublasSetMatrixAsync_64(int64_t rows, int64_t cols, int64_t elemSize, const void *A, int64_t lda,
                                       void *B, int64_t ldb, cudaStream_t stream)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, H2D, &stream);
}

cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda, void *B, int ldb,
                                    cudaStream_t stream)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, D2H, &stream);
}

cublasStatus_t cublasGetMatrixAsync_64(int64_t rows, int64_t cols, int64_t elemSize, const void *A, int64_t lda,
                                       void *B, int64_t ldb, cudaStream_t stream)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, D2H, &stream);
}
