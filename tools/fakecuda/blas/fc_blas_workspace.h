/* The cuBLAS stand-in's default workspace (fc_blas_workspace.c). */
#ifndef FC_BLAS_WORKSPACE_H
#define FC_BLAS_WORKSPACE_H

#include "fc_blas.h"
#include "fc_blas_stub.h"

/* The size of the default workspace of a device of compute capability
 * major cc_major: CUBLAS_WORKSPACE_CONFIG (":KiB:COUNT" pairs) if set and
 * well formed, else 32 MiB from Hopper (9.x) on, else 8 MiB + 128 KiB
 * (":4096:2:16:8"). */
size_t fc_blas_default_ws_size(int cc_major);

/* Frees every default workspace of h (cublasDestroy). */
void fc_blas_default_ws_free(struct cublasContext *h);

#endif
