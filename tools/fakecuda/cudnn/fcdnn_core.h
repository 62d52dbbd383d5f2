/* fakecuda's cuDNN 9 stand-in (tools/fakecuda/README.md, "cuDNN 9"): its
 * version, its handle, and tracing (fcdnn_core.c). */
#ifndef FCDNN_CORE_H
#define FCDNN_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <cudnn.h>

/* cuDNN 9.19.0 built against CUDA 13.1, as the toolkit's libcudnn.so.9
 * answers (cudnnGetVersion, cudnnGetCudartVersion, cudnnGetMaxDeviceVersion). */
#define FCDNN_VERSION 91900
#define FCDNN_CUDART_VERSION 13010
#define FCDNN_MAX_DEVICE_VERSION 1210

/* The stand-in's handle: the stream set on it and nothing else. */
struct cudnnContext {
    uint32_t magic;
    cudaStream_t stream;
};
#define FCDNN_HANDLE_MAGIC 0x6664686eu /* "fdhn" */

/* Nonzero when handle is one cudnnCreate made and cudnnDestroy has not freed. */
int fcdnn_handle_ok(cudnnHandle_t handle);

/* FAKECUDNN_TRACE=1: one stderr line the first time each (what, detail)
 * pair is seen, "fakecudnn: WHAT DETAIL"; off by default. */
void fcdnn_trace(const char *what, const char *detail);
int fcdnn_tracing(void);

#endif
