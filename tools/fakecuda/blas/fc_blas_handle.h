/* The cuBLAS stand-in's live handles (fc_blas_handle.c). */
#ifndef FC_BLAS_HANDLE_H
#define FC_BLAS_HANDLE_H

#include "fc_blas.h"

/* Runs fn(h, arg) under the registry's lock if p is a live handle (found
 * by address only, never dereferenced otherwise) and returns 1; else 0. */
int fc_blas_with_live_handle(const void *p, void (*fn)(struct cublasContext *h, void *arg), void *arg);

#endif
