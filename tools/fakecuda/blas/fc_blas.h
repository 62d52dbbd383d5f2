/* fakecuda's cuBLAS stand-in (libcublas.so.13): its handle.  It begins
 * with a cuBLASLt handle (fc_blaslt.h), so that a cublasHandle_t cast to
 * cublasLtHandle_t works with the cuBLASLt stand-in, as NVIDIA documents
 * and PyTorch relies on. */
#ifndef FC_BLAS_H
#define FC_BLAS_H

#include "fc_blaslt.h"

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <stddef.h>

/* The default workspace of one stream (fc_blas_workspace.c). */
struct fc_blas_default_ws {
    cudaStream_t stream;
    void *ptr;
    struct fc_blas_default_ws *next;
};

struct cublasContext {
    struct cublasLtContext lt; /* first: the cast to cublasLtHandle_t */
    int device, cc_major;
    cudaStream_t stream;
    /* cublasSetWorkspace's buffer, until cublasSetStream drops it (NVIDIA:
     * "cublasSetStream() unconditionally resets the cuBLAS library
     * workspace back to the default workspace pool"). */
    void *user_ws;
    size_t user_ws_size;
    int user_ws_set;
    cublasPointerMode_t pointer_mode;
    cublasAtomicsMode_t atomics_mode;
    cublasMath_t math_mode;
    int sm_count_target;
    cublasEmulationStrategy_t emulation_strategy;
    cudaEmulationSpecialValuesSupport special_values;
    cudaEmulationMantissaControl mantissa_control;
    int max_mantissa_bits, mantissa_bit_offset;
    int *mantissa_bit_count;
    struct fc_blas_default_ws *default_ws; /* one per stream used without a user workspace */
    struct cublasContext *next_live;       /* the live handles (fc_blas_handle.c) */
};

#endif
