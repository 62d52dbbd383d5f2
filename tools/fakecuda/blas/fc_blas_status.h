/* Names and descriptions of cublasStatus_t (fc_blas_status.c). */
#ifndef FC_BLAS_STATUS_H
#define FC_BLAS_STATUS_H

#include <cublas_api.h>

/* cublasGetStatusName / String, shared by both libraries
 * (each has its own copy: the cuBLAS stand-in is not asked to call
 * cuBLASLt for them). */
const char *fc_blas_status_name(cublasStatus_t status);
const char *fc_blas_status_string(cublasStatus_t status);

/* cublasGetProperty / cublasLtGetProperty: the toolkit's cuBLAS version
 * (fc_lib_property). */
cublasStatus_t fc_blas_property(libraryPropertyType type, int *value);

#endif
