/* cudaGetErrorName / cudaGetErrorString (the runtime's own tables, not the
 * driver's, as in the real library). */
#include "fc_rt.h"

#include <stddef.h>

#define E(c, s) { c, #c, s }
static const struct { cudaError_t code; const char *name, *str; } errs[] = {
    E(cudaSuccess, "no error"),
    E(cudaErrorInvalidValue, "invalid argument"),
    E(cudaErrorMemoryAllocation, "out of memory"),
    E(cudaErrorInitializationError, "initialization error"),
    E(cudaErrorCudartUnloading, "driver shutting down"),
    E(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    E(cudaErrorInvalidChannelDescriptor, "invalid channel descriptor"),
    E(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    E(cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version"),
    E(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    E(cudaErrorInvalidDevice, "invalid device ordinal"),
    E(cudaErrorDeviceUninitialized, "invalid device context"),
    E(cudaErrorAlreadyMapped, "resource already mapped"),
    E(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    E(cudaErrorSymbolNotFound, "named symbol not found"),
    E(cudaErrorNotReady, "device not ready"),
    E(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    E(cudaErrorHostMemoryAlreadyRegistered, "part or all of the requested memory range is already mapped"),
    E(cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region"),
    E(cudaErrorNotPermitted, "operation not permitted"),
    E(cudaErrorNotSupported, "operation not supported"),
    E(cudaErrorIllegalState, "the operation cannot be performed in the present state"),
    E(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    E(cudaErrorUnknown, "unknown error"),
};
#undef E

const char *cudaGetErrorName(cudaError_t error)
{
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++)
        if (errs[i].code == error)
            return errs[i].name;
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++)
        if (errs[i].code == error)
            return errs[i].str;
    return "unrecognized error code";
}
