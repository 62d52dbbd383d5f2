/* The cuBLAS stand-in's library queries: version, property, status names. */
#include "fc_blas.h"
#include "fc_blas_status.h"

cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}

size_t cublasGetCudartVersion(void) { return CUDART_VERSION; }
const char *cublasGetStatusName(cublasStatus_t status) { return fc_blas_status_name(status); }
const char *cublasGetStatusString(cublasStatus_t status) { return fc_blas_status_string(status); }
