/* The cuBLAS stand-in's library queries: version, property, status names. */
#include "fc_blas.h"
#include "fc_blas_status.h"

cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    return fc_blas_property(type, value);
}

size_t cublasGetCudartVersion(void) { return CUDART_VERSION; }
const char *cublasGetStatusName(cublasStatus_t status) { return fc_blas_status_name(status); }
const char *cublasGetStatusString(cublasStatus_t status) { return fc_blas_status_string(status); }
