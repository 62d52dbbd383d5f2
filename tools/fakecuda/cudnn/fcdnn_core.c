/* Handles, versions, properties, error strings, streams and tracing of
 * fakecuda's cuDNN stand-in. */
#include "fcdnn_core.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tracing (FAKECUDNN_TRACE=1) ---- */

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
#define TRACE_SEEN_MAX 4096
static char *trace_seen[TRACE_SEEN_MAX];
static size_t trace_nseen;

/* Read once; threads that race to read it first store the same answer. */
int fcdnn_tracing(void)
{
    static int on = -1;
    int v = __atomic_load_n(&on, __ATOMIC_RELAXED);
    if (v < 0) {
        const char *e = getenv("FAKECUDNN_TRACE");
        v = e && strcmp(e, "1") == 0;
        __atomic_store_n(&on, v, __ATOMIC_RELAXED);
    }
    return v;
}

/* Records key; nonzero when it was new.  Past TRACE_SEEN_MAX keys nothing
 * more is printed: the trace is for finding what a caller asks, not a log. */
static int trace_first(const char *key)
{
    for (size_t i = 0; i < trace_nseen; i++)
        if (strcmp(trace_seen[i], key) == 0) return 0;
    if (trace_nseen == TRACE_SEEN_MAX) return 0;
    char *copy = strdup(key);
    if (!copy) return 0;
    trace_seen[trace_nseen++] = copy;
    return 1;
}

void fcdnn_trace(const char *what, const char *detail)
{
    if (!fcdnn_tracing()) return;
    char key[256];
    snprintf(key, sizeof key, "%s %s", what, detail ? detail : "");
    pthread_mutex_lock(&trace_lock);
    int first = trace_first(key);
    pthread_mutex_unlock(&trace_lock);
    if (first) fprintf(stderr, "fakecudnn: %s\n", key);
}

/* ---- versions and properties ---- */

size_t cudnnGetVersion(void) { return FCDNN_VERSION; }
size_t cudnnGetMaxDeviceVersion(void) { return FCDNN_MAX_DEVICE_VERSION; }
size_t cudnnGetCudartVersion(void) { return FCDNN_CUDART_VERSION; }

cudnnStatus_t cudnnGetProperty(libraryPropertyType type, int *value)
{
    if (!value) return CUDNN_STATUS_BAD_PARAM;
    switch (type) {
    case MAJOR_VERSION: *value = CUDNN_MAJOR; return CUDNN_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUDNN_MINOR; return CUDNN_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUDNN_PATCHLEVEL; return CUDNN_STATUS_SUCCESS;
    default: return CUDNN_STATUS_BAD_PARAM;
    }
}

cudnnStatus_t cudnnGraphVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnOpsVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnCnnVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnAdvVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }

/* ---- error strings: NVIDIA's names for every status of cudnn_graph.h ---- */

const char *cudnnGetErrorString(cudnnStatus_t status)
{
    switch (status) {
#define S(x) case x: return #x;
    S(CUDNN_STATUS_SUCCESS)
    S(CUDNN_STATUS_NOT_INITIALIZED)
    S(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)
    S(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH)
    S(CUDNN_STATUS_DEPRECATED)
    S(CUDNN_STATUS_LICENSE_ERROR)
    S(CUDNN_STATUS_RUNTIME_IN_PROGRESS)
    S(CUDNN_STATUS_RUNTIME_FP_OVERFLOW)
    S(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
    S(CUDNN_STATUS_BAD_PARAM)
    S(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
    S(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
    S(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
    S(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    S(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
    S(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
    S(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
    S(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES)
    S(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
    S(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH)
    S(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
    S(CUDNN_STATUS_NOT_SUPPORTED)
    S(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
    S(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
    S(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
    S(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
    S(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER)
    S(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART)
    S(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
    S(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING)
    S(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE)
    S(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT)
    S(CUDNN_STATUS_NOT_SUPPORTED_PADDING)
    S(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM)
    S(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API)
    S(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE)
    S(CUDNN_STATUS_INTERNAL_ERROR)
    S(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED)
    S(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE)
    S(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
    S(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    S(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM)
    S(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED)
    S(CUDNN_STATUS_EXECUTION_FAILED)
    S(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER)
    S(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS)
    S(CUDNN_STATUS_EXECUTION_FAILED_CUDART)
    S(CUDNN_STATUS_EXECUTION_FAILED_CURAND)
#undef S
    default: return "CUDNN_UNKNOWN_STATUS";
    }
}

/* Nothing fails inside the stand-in, so there is never a message. */
void cudnnGetLastErrorString(char *message, size_t max_size)
{
    if (message && max_size) message[0] = '\0';
}

/* ---- handles and streams ---- */

int fcdnn_handle_ok(cudnnHandle_t handle)
{
    return handle && handle->magic == FCDNN_HANDLE_MAGIC;
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle)
{
    fcdnn_trace("cudnnCreate", NULL);
    if (!handle) return CUDNN_STATUS_BAD_PARAM;
    struct cudnnContext *h = calloc(1, sizeof *h);
    if (!h) return CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
    h->magic = FCDNN_HANDLE_MAGIC;
    *handle = h;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle)
{
    if (!fcdnn_handle_ok(handle)) return CUDNN_STATUS_BAD_PARAM;
    handle->magic = 0;
    free(handle);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)
{
    if (!fcdnn_handle_ok(handle)) return CUDNN_STATUS_BAD_PARAM;
    handle->stream = streamId;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId)
{
    if (!fcdnn_handle_ok(handle) || !streamId) return CUDNN_STATUS_BAD_PARAM;
    *streamId = handle->stream;
    return CUDNN_STATUS_SUCCESS;
}
