/* Attribute get/set of the cuBLASLt stand-in's descriptors (fc_blaslt.h):
 * one table per descriptor kind, values kept in the caller-visible opaque
 * storage (cublasLt*Init works on memory the caller owns). */
#include "fc_blaslt_attr.h"

#include <string.h>

static const struct fc_attr *attr_find(const struct fc_attr *table, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].id == id)
            return &table[i];
    return NULL;
}

cublasStatus_t fc_attr_set(const struct fc_attr *table, size_t n, void *store,
                           uint32_t id, const void *buf, size_t size)
{
    const struct fc_attr *a = attr_find(table, n, id);
    if (!store)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!a || !buf || size != a->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy((char *)store + a->offset, buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t fc_attr_get(const struct fc_attr *table, size_t n, const void *store,
                           uint32_t id, void *buf, size_t size, size_t *sizeWritten)
{
    const struct fc_attr *a = attr_find(table, n, id);
    if (!store)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!a)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (size == 0 && sizeWritten) {
        *sizeWritten = a->size;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size != a->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, (const char *)store + a->offset, size);
    if (sizeWritten)
        *sizeWritten = a->size;
    return CUBLAS_STATUS_SUCCESS;
}
