/* The cuBLASLt stand-in's handle and library queries.  A handle is a heap
 * object holding nothing on the device: NVIDIA's cublasLtCreate allocates
 * no device memory either, cublasLtMatmul works in the workspace its
 * caller passes. */
#include "fc_blaslt.h"
#include "fc_blas_status.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
{
    if (!lightHandle)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct cublasLtContext *h = calloc(1, sizeof *h);
    if (!h)
        return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = FC_BLASLT_MAGIC;
    *lightHandle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle)
{
    if (!lightHandle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    lightHandle->magic = 0;
    free(lightHandle);
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasLtGetStatusName(cublasStatus_t status) { return fc_blas_status_name(status); }
const char *cublasLtGetStatusString(cublasStatus_t status) { return fc_blas_status_string(status); }

/* The toolkit's: the headers these stand-ins are built with. */
size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }
size_t cublasLtGetCudartVersion(void) { return CUDART_VERSION; }

cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
    return fc_blas_property(type, value);
}

/* The heuristics cache: nothing is cached, its capacity round-trips. */
static size_t cache_capacity = 8192;

cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t *capacity)
{
    if (!capacity)
        return CUBLAS_STATUS_INVALID_VALUE;
    *capacity = __atomic_load_n(&cache_capacity, __ATOMIC_RELAXED);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t capacity)
{
    __atomic_store_n(&cache_capacity, capacity, __ATOMIC_RELAXED);
    return CUBLAS_STATUS_SUCCESS;
}
