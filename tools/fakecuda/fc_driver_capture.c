/* Stream capture, for what graph memory needs: between cuStreamBeginCapture
 * and cuStreamEndCapture, cuMemAllocAsync / cuMemAllocFromPoolAsync on the
 * stream add an allocation node to the capture's graph and return its
 * address without allocating anything, and cuMemFreeAsync adds a free node
 * (fc_driver_pool.c calls in here).  The legacy default stream cannot be
 * captured; the per-thread default stream can.  Other work on a capturing
 * stream (copies, memsets) still runs at once: fakecuda has no other node
 * types.  Capture modes are accepted and not enforced. */
#include "fc_graph.h"

#include <string.h>

static CUresult begin(CUstream hs, CUstreamCaptureMode mode, int per_thread)
{
    int dev;
    CUresult r = fc_stream_dev(hs, &dev);
    if (r)
        return r;
    if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
        mode != CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_graph **slot = fc_stream_capture_slot(hs, per_thread);
    if (!slot)
        r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    else if (*slot)
        r = CUDA_ERROR_ILLEGAL_STATE; /* already capturing */
    else if (!(*slot = fc_graph_new()))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    fc_unlock();
    return r;
}

CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) { return begin(hStream, mode, 0); }
/* The 10.0 ABI, before capture modes: what it captured is the global mode's. */
CUresult cuStreamBeginCapture(CUstream hStream) { return begin(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, 0); }
CUresult cuStreamBeginCapture_ptsz(CUstream hStream) { return begin(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, 1); }
CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode) { return begin(hStream, mode, 1); }

static CUresult end(CUstream hs, CUgraph *phGraph, int per_thread)
{
    int dev;
    CUresult r = fc_stream_dev(hs, &dev);
    if (r)
        return r;
    if (!phGraph)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_graph **slot = fc_stream_capture_slot(hs, per_thread);
    if (!slot || !*slot) {
        r = CUDA_ERROR_ILLEGAL_STATE; /* not capturing */
    } else {
        *phGraph = (CUgraph)*slot;
        *slot = NULL;
    }
    fc_unlock();
    return r;
}

CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) { return end(hStream, phGraph, 0); }
CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph) { return end(hStream, phGraph, 1); }

static CUresult is_capturing(CUstream hs, CUstreamCaptureStatus *status, int per_thread)
{
    int dev;
    CUresult r = fc_stream_dev(hs, &dev);
    if (r)
        return r;
    if (!status)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    *status = fc_capturing(hs, per_thread) ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    fc_unlock();
    return CUDA_SUCCESS;
}

CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return is_capturing(hStream, captureStatus, 0);
}

CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return is_capturing(hStream, captureStatus, 1);
}

struct fc_graph *fc_capturing(CUstream hs, int per_thread)
{
    struct fc_graph **slot = fc_stream_capture_slot(hs, per_thread);
    return slot ? *slot : NULL;
}

CUresult fc_capture_alloc(struct fc_graph *g, struct fc_ctx *c, int dev, size_t bytesize, CUdeviceptr *dptr)
{
    CUDA_MEM_ALLOC_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.poolProps.location.id = dev;
    p.bytesize = bytesize;
    struct fc_gnode *n;
    CUresult r = fc_graph_add_alloc(g, c, &p, &n);
    if (r == CUDA_SUCCESS)
        *dptr = n->alloc.dptr;
    return r;
}

CUresult fc_capture_free(struct fc_graph *g, CUdeviceptr dptr)
{
    struct fc_gnode *n;
    return fc_graph_add_free(g, dptr, &n);
}
