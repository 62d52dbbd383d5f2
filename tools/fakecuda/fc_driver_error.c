/* cuGetErrorName / cuGetErrorString for the codes fakecuda can return (and
 * the commonest others).  Unknown codes give CUDA_ERROR_INVALID_VALUE and
 * *pStr = NULL, like the real driver. */
#include "fc_internal.h"

struct err {
    CUresult code;
    const char *name, *str;
};

#define E(c, s) { c, #c, s }
static const struct err errs[] = {
    E(CUDA_SUCCESS, "no error"),
    E(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
    E(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
    E(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
    E(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
    E(CUDA_ERROR_PROFILER_DISABLED, "profiler disabled while using external profiling tool"),
    E(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library"),
    E(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
    E(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    E(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
    E(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
    E(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "context already current"),
    E(CUDA_ERROR_MAP_FAILED, "mapping of buffer object failed"),
    E(CUDA_ERROR_UNMAP_FAILED, "unmapping of buffer object failed"),
    E(CUDA_ERROR_ALREADY_MAPPED, "resource already mapped"),
    E(CUDA_ERROR_NOT_MAPPED, "resource not mapped"),
    E(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
    E(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
    E(CUDA_ERROR_NOT_READY, "device not ready"),
    E(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
    E(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "part or all of the requested memory range is already mapped"),
    E(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "pointer does not correspond to a registered memory region"),
    E(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
    E(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
    E(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
    E(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state"),
    E(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing"),
    E(CUDA_ERROR_UNKNOWN, "unknown error"),
};
#undef E

/* The table's row of a code, or NULL. */
static const struct err *err_of(CUresult code)
{
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++)
        if (errs[i].code == code)
            return &errs[i];
    return NULL;
}

CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    const struct err *e = err_of(error);
    *pStr = e ? e->str : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    const struct err *e = err_of(error);
    *pStr = e ? e->name : NULL;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
