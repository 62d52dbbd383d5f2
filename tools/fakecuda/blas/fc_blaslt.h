/* fakecuda's cuBLASLt stand-in (libcublasLt.so.13): its handle, which the
 * cuBLAS stand-in's handle begins with (NVIDIA: "any valid cublasHandle_t
 * can be used in place of cublasLtHandle_t with a simple cast", and
 * PyTorch does so), and the attribute tables of its descriptors. */
#ifndef FC_BLASLT_H
#define FC_BLASLT_H

#include <cublasLt.h>
#include <stddef.h>
#include <stdint.h>

/* A heap object per handle; nothing of it lives on the device. */
struct cublasLtContext {
    uint32_t magic; /* FC_BLASLT_MAGIC while alive */
};
#define FC_BLASLT_MAGIC 0x744c4246u /* "FBLt" */

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

/* fc_blaslt_desc.c: a preference's CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
 * (0 for NULL), which the heuristic's one algorithm asks for. */
uint64_t fc_preference_max_workspace(cublasLtMatmulPreference_t pref);

/* fc_blas_status.c: cublasGetStatusName / String, shared by both libraries
 * (each has its own copy: the cuBLAS stand-in is not asked to call
 * cuBLASLt for them). */
const char *fc_blas_status_name(cublasStatus_t status);
const char *fc_blas_status_string(cublasStatus_t status);

#endif
