/* What a test program does when a CUDA call it depends on fails: it names
 * the call and the error code on stderr and exits 1, so that a test sees a
 * broken setup, not a wrong count.  Each program is one source
 * (tests/rules.mk), so these are static inline: a program that uses only
 * one of them is not warned about the other. */
#ifndef CUDA_CHECK_H
#define CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

/* A driver call's result. */
static inline void check(CUresult rc, const char *what)
{
    if (rc != CUDA_SUCCESS) {
        fprintf(stderr, "%s failed: %d\n", what, (int)rc);
        exit(1);
    }
}

/* A runtime call's result. */
static inline void rt_check(cudaError_t rc, const char *what)
{
    if (rc != cudaSuccess) {
        fprintf(stderr, "%s failed: %d\n", what, (int)rc);
        exit(1);
    }
}

#endif
