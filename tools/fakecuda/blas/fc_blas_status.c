/* Names and descriptions of cublasStatus_t (cublasGetStatusName/String,
 * cublasLtGetStatusName/String) and the version property
 * (cublas[Lt]GetProperty): built into both stand-ins. */
#include "fc_blas_status.h"
#include "fc_lib.h"
#include "fc_status.h"

static const struct fc_status statuses[] = {
    FC_STATUS(CUBLAS_STATUS_SUCCESS, "the operation completed successfully"),
    FC_STATUS(CUBLAS_STATUS_NOT_INITIALIZED, "the library was not initialized"),
    FC_STATUS(CUBLAS_STATUS_ALLOC_FAILED, "the resource allocation failed"),
    FC_STATUS(CUBLAS_STATUS_INVALID_VALUE, "an invalid numeric value was used as an argument"),
    FC_STATUS(CUBLAS_STATUS_ARCH_MISMATCH, "an absent device architectural feature is required"),
    FC_STATUS(CUBLAS_STATUS_MAPPING_ERROR, "an access to GPU memory space failed"),
    FC_STATUS(CUBLAS_STATUS_EXECUTION_FAILED, "the GPU program failed to execute"),
    FC_STATUS(CUBLAS_STATUS_INTERNAL_ERROR, "an internal operation failed"),
    FC_STATUS(CUBLAS_STATUS_NOT_SUPPORTED, "the functionality requested is not supported"),
    FC_STATUS(CUBLAS_STATUS_LICENSE_ERROR, "an error was detected when checking the current licensing"),
};

const char *fc_blas_status_name(cublasStatus_t status)
{
    return fc_status_name(statuses, FC_STATUS_ROWS(statuses), status, "CUBLAS_STATUS_UNKNOWN");
}

const char *fc_blas_status_string(cublasStatus_t status)
{
    return fc_status_text(statuses, FC_STATUS_ROWS(statuses), status, "unknown cuBLAS status");
}

cublasStatus_t fc_blas_property(libraryPropertyType type, int *value)
{
    return fc_lib_property(type, CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH, value)
               ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
}
