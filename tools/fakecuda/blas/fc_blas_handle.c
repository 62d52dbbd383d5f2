/* The cuBLAS stand-in's handle: creation (the device and its compute
 * capability, asked of the library's own runtime, as NVIDIA's cuBLAS asks
 * its static runtime), the stream, the workspace and the modes, each of
 * which reads back what was set.  cublasCreate allocates no device memory;
 * the default workspace comes at first use (fc_blas_workspace.c). */
#include "fc_blas_handle.h"
#include "fc_blas_workspace.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cublasContext *live;

int fc_blas_with_live_handle(const void *p, void (*fn)(struct cublasContext *h, void *arg), void *arg)
{
    int found = 0;
    pthread_mutex_lock(&live_lock);
    for (struct cublasContext *h = live; h && !found; h = h->next_live)
        if ((const void *)h == p) {
            fn(h, arg);
            found = 1;
        }
    pthread_mutex_unlock(&live_lock);
    return found;
}

static void live_add(struct cublasContext *h)
{
    pthread_mutex_lock(&live_lock);
    h->next_live = live;
    live = h;
    pthread_mutex_unlock(&live_lock);
}

static int live_remove(struct cublasContext *h)
{
    int found = 0;
    pthread_mutex_lock(&live_lock);
    for (struct cublasContext **pp = &live; *pp; pp = &(*pp)->next_live)
        if (*pp == h) {
            *pp = h->next_live;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    return found;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    int device, major;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasContext *h = calloc(1, sizeof *h);
    if (!h)
        return CUBLAS_STATUS_ALLOC_FAILED;
    h->lt.magic = FC_BLASLT_MAGIC;
    h->device = device;
    h->cc_major = major;
    h->pointer_mode = CUBLAS_POINTER_MODE_HOST;
    h->atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
    h->math_mode = CUBLAS_DEFAULT_MATH;
    h->emulation_strategy = CUBLAS_EMULATION_STRATEGY_DEFAULT;
    h->special_values = CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT;
    h->mantissa_control = CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC;
    live_add(h);
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (!handle || !live_remove(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    fc_blas_default_ws_free(handle);
    handle->lt.magic = 0;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = streamId;
    handle->user_ws = NULL;
    handle->user_ws_size = 0;
    handle->user_ws_set = 0;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    /* NVIDIA: the workspace must be aligned to at least 256 bytes. */
    if (((uintptr_t)workspace & 255) != 0 || (!workspace && workspaceSizeInBytes))
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->user_ws = workspace;
    handle->user_ws_size = workspaceSizeInBytes;
    handle->user_ws_set = 1;
    return CUBLAS_STATUS_SUCCESS;
}

/* A getter and a setter of one field of the handle, each as NVIDIA's:
 * NOT_INITIALIZED without a handle, INVALID_VALUE without an output. */
#define FC_BLAS_GETTER(GET, T, FIELD)                                     \
    cublasStatus_t GET(cublasHandle_t handle, T *out)                     \
    {                                                                     \
        if (!handle)                                                      \
            return CUBLAS_STATUS_NOT_INITIALIZED;                         \
        if (!out)                                                         \
            return CUBLAS_STATUS_INVALID_VALUE;                           \
        *out = handle->FIELD;                                             \
        return CUBLAS_STATUS_SUCCESS;                                     \
    }
#define FC_BLAS_FIELD(GET, SET, T, FIELD)                                 \
    FC_BLAS_GETTER(GET, T, FIELD)                                         \
    cublasStatus_t SET(cublasHandle_t handle, T value)                    \
    {                                                                     \
        if (!handle)                                                      \
            return CUBLAS_STATUS_NOT_INITIALIZED;                         \
        handle->FIELD = value;                                            \
        return CUBLAS_STATUS_SUCCESS;                                     \
    }

FC_BLAS_GETTER(cublasGetStream_v2, cudaStream_t, stream)
FC_BLAS_FIELD(cublasGetPointerMode_v2, cublasSetPointerMode_v2, cublasPointerMode_t, pointer_mode)
FC_BLAS_FIELD(cublasGetAtomicsMode, cublasSetAtomicsMode, cublasAtomicsMode_t, atomics_mode)
FC_BLAS_FIELD(cublasGetMathMode, cublasSetMathMode, cublasMath_t, math_mode)
FC_BLAS_FIELD(cublasGetSmCountTarget, cublasSetSmCountTarget, int, sm_count_target)
FC_BLAS_FIELD(cublasGetEmulationStrategy, cublasSetEmulationStrategy, cublasEmulationStrategy_t, emulation_strategy)
FC_BLAS_FIELD(cublasGetEmulationSpecialValuesSupport, cublasSetEmulationSpecialValuesSupport,
              cudaEmulationSpecialValuesSupport, special_values)
FC_BLAS_FIELD(cublasGetFixedPointEmulationMantissaControl, cublasSetFixedPointEmulationMantissaControl,
              cudaEmulationMantissaControl, mantissa_control)
FC_BLAS_FIELD(cublasGetFixedPointEmulationMaxMantissaBitCount, cublasSetFixedPointEmulationMaxMantissaBitCount,
              int, max_mantissa_bits)
FC_BLAS_FIELD(cublasGetFixedPointEmulationMantissaBitOffset, cublasSetFixedPointEmulationMantissaBitOffset,
              int, mantissa_bit_offset)
FC_BLAS_FIELD(cublasGetFixedPointEmulationMantissaBitCountPointer, cublasSetFixedPointEmulationMantissaBitCountPointer,
              int *, mantissa_bit_count)
