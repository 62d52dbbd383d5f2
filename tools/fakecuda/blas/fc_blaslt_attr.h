/* Attribute get/set of the cuBLASLt stand-in's descriptors
 * (fc_blaslt_attr.c): one table per descriptor kind. */
#ifndef FC_BLASLT_ATTR_H
#define FC_BLASLT_ATTR_H

#include <cublasLt.h>
#include <stddef.h>
#include <stdint.h>

/* One attribute of a descriptor: its number, its size as the header
 * documents it (get and set insist on exactly that size, as cuBLASLt
 * does), and where its value lives in the descriptor's opaque storage. */
struct fc_attr {
    uint32_t id;
    uint16_t size;
    uint16_t offset;
};

/* cublasLt*SetAttribute: the attribute must be in table (n rows) and
 * size must be its size; copies buf into store. */
cublasStatus_t fc_attr_set(const struct fc_attr *table, size_t n, void *store,
                           uint32_t id, const void *buf, size_t size);

/* cublasLt*GetAttribute: size 0 with sizeWritten asks for the size; else
 * size must be the attribute's and buf non-null. */
cublasStatus_t fc_attr_get(const struct fc_attr *table, size_t n, const void *store,
                           uint32_t id, void *buf, size_t size, size_t *sizeWritten);

#endif
