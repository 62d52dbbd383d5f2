/* Handles, versions, properties, error strings, streams and tracing of
 * fakecuda's cuDNN stand-in. */
#include "fcdnn_core.h"
#include "fc_lib.h"
#include "fc_status.h"

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
    return fc_lib_property(type, CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL, value)
               ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGraphVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnOpsVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnCnnVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnAdvVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }

/* ---- error strings: NVIDIA's names for every status of cudnn_graph.h ---- */

static const struct fc_status statuses[] = {
    FC_STATUS(CUDNN_STATUS_SUCCESS, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_INITIALIZED, NULL),
    FC_STATUS(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, NULL),
    FC_STATUS(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH, NULL),
    FC_STATUS(CUDNN_STATUS_DEPRECATED, NULL),
    FC_STATUS(CUDNN_STATUS_LICENSE_ERROR, NULL),
    FC_STATUS(CUDNN_STATUS_RUNTIME_IN_PROGRESS, NULL),
    FC_STATUS(CUDNN_STATUS_RUNTIME_FP_OVERFLOW, NULL),
    FC_STATUS(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH, NULL),
    FC_STATUS(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_PADDING, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API, NULL),
    FC_STATUS(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE, NULL),
    FC_STATUS(CUDNN_STATUS_INTERNAL_ERROR, NULL),
    FC_STATUS(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED, NULL),
    FC_STATUS(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE, NULL),
    FC_STATUS(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, NULL),
    FC_STATUS(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED, NULL),
    FC_STATUS(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM, NULL),
    FC_STATUS(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED, NULL),
    FC_STATUS(CUDNN_STATUS_EXECUTION_FAILED, NULL),
    FC_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER, NULL),
    FC_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS, NULL),
    FC_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDART, NULL),
    FC_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CURAND, NULL),
};

const char *cudnnGetErrorString(cudnnStatus_t status)
{
    return fc_status_name(statuses, FC_STATUS_ROWS(statuses), status, "CUDNN_UNKNOWN_STATUS");
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
