/* The cuBLASLt stand-in's descriptors (fc_blaslt_desc.c). */
#ifndef FC_BLASLT_DESC_H
#define FC_BLASLT_DESC_H

#include <cublasLt.h>
#include <stdint.h>

/* A preference's CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES
 * (0 for NULL), which the heuristic's one algorithm asks for. */
uint64_t fc_preference_max_workspace(cublasLtMatmulPreference_t pref);

#endif
