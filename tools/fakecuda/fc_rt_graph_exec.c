/* Runtime: instantiating and launching graphs, stream capture and the
 * graph memory pool, over the driver (the _ptsz entry points use the
 * per-thread-default-stream driver variants). */
#include "fc_rt.h"

/* CUDA 12 gave cudaGraphInstantiate the flags of cudaGraphInstantiateWithFlags. */
FC_RT_FORWARD(cudaGraphInstantiate, (cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags),
              cuGraphInstantiateWithFlags((CUgraphExec *)pGraphExec, (CUgraph)graph, flags))

FC_RT_FORWARD(cudaGraphInstantiateWithFlags, (cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags),
              cuGraphInstantiateWithFlags((CUgraphExec *)pGraphExec, (CUgraph)graph, flags))

static cudaError_t with_params(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, cudaGraphInstantiateParams *p,
                               int pt)
{
    ENTER();
    if (!p)
        return fc_rt_set(cudaErrorInvalidValue);
    CUDA_GRAPH_INSTANTIATE_PARAMS cp = {
        .flags = p->flags, .hUploadStream = (CUstream)p->uploadStream,
    };
    CUresult r = pt ? fc_drv.cuGraphInstantiateWithParams_ptsz((CUgraphExec *)pGraphExec, (CUgraph)graph, &cp)
                    : fc_drv.cuGraphInstantiateWithParams((CUgraphExec *)pGraphExec, (CUgraph)graph, &cp);
    p->errNode_out = (cudaGraphNode_t)cp.hErrNode_out;
    p->result_out = (cudaGraphInstantiateResult)cp.result_out;
    return fc_rt_cu(r);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams *instantiateParams)
{
    return with_params(pGraphExec, graph, instantiateParams, 0);
}

cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                cudaGraphInstantiateParams *instantiateParams)
{
    return with_params(pGraphExec, graph, instantiateParams, 1);
}

FC_RT_FORWARD(cudaGraphLaunch, (cudaGraphExec_t graphExec, cudaStream_t stream),
              cuGraphLaunch((CUgraphExec)graphExec, (CUstream)stream))

FC_RT_FORWARD(cudaGraphLaunch_ptsz, (cudaGraphExec_t graphExec, cudaStream_t stream),
              cuGraphLaunch_ptsz((CUgraphExec)graphExec, (CUstream)stream))

FC_RT_FORWARD(cudaGraphExecDestroy, (cudaGraphExec_t graphExec), cuGraphExecDestroy((CUgraphExec)graphExec))

/* ---- stream capture (the enums share their values) ------------------------ */

FC_RT_FORWARD(cudaStreamBeginCapture, (cudaStream_t stream, enum cudaStreamCaptureMode mode),
              cuStreamBeginCapture_v2((CUstream)stream, (CUstreamCaptureMode)mode))

FC_RT_FORWARD(cudaStreamBeginCapture_ptsz, (cudaStream_t stream, enum cudaStreamCaptureMode mode),
              cuStreamBeginCapture_v2_ptsz((CUstream)stream, (CUstreamCaptureMode)mode))

FC_RT_FORWARD(cudaStreamEndCapture, (cudaStream_t stream, cudaGraph_t *pGraph),
              cuStreamEndCapture((CUstream)stream, (CUgraph *)pGraph))

FC_RT_FORWARD(cudaStreamEndCapture_ptsz, (cudaStream_t stream, cudaGraph_t *pGraph),
              cuStreamEndCapture_ptsz((CUstream)stream, (CUgraph *)pGraph))

FC_RT_FORWARD(cudaStreamIsCapturing, (cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus),
              cuStreamIsCapturing((CUstream)stream, (CUstreamCaptureStatus *)pCaptureStatus))

FC_RT_FORWARD(cudaStreamIsCapturing_ptsz, (cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus),
              cuStreamIsCapturing_ptsz((CUstream)stream, (CUstreamCaptureStatus *)pCaptureStatus))

/* The capture's status only (what PyTorch asks before every allocation):
 * fakecuda's driver keeps no capture ids or dependency sets, so a capturing
 * stream reports id 1, no graph and no dependencies. */
static cudaError_t capture_info(cudaStream_t stream, enum cudaStreamCaptureStatus *status, unsigned long long *id,
                                cudaGraph_t *graph, const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                                size_t *ndeps, int per_thread)
{
    ENTER();
    if (!status)
        return fc_rt_set(cudaErrorInvalidValue);
    CUresult r = per_thread ? fc_drv.cuStreamIsCapturing_ptsz((CUstream)stream, (CUstreamCaptureStatus *)status)
                            : fc_drv.cuStreamIsCapturing((CUstream)stream, (CUstreamCaptureStatus *)status);
    if (r)
        return fc_rt_cu(r);
    if (id)
        *id = *status == cudaStreamCaptureStatusNone ? 0 : 1;
    if (graph)
        *graph = NULL;
    if (deps)
        *deps = NULL;
    if (edges)
        *edges = NULL;
    if (ndeps)
        *ndeps = 0;
    return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out, const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    return capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                        numDependencies_out, 0);
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, cudaGraph_t *graph_out,
                                          const cudaGraphNode_t **dependencies_out,
                                          const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    return capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                        numDependencies_out, 1);
}

/* ---- the graph memory pool ------------------------------------------------ */

FC_RT_FORWARD(cudaDeviceGetGraphMemAttribute, (int device, enum cudaGraphMemAttributeType attr, void *value),
              cuDeviceGetGraphMemAttribute(device, (CUgraphMem_attribute)attr, value))

FC_RT_FORWARD(cudaDeviceSetGraphMemAttribute, (int device, enum cudaGraphMemAttributeType attr, void *value),
              cuDeviceSetGraphMemAttribute(device, (CUgraphMem_attribute)attr, value))

FC_RT_FORWARD(cudaDeviceGraphMemTrim, (int device), cuDeviceGraphMemTrim(device))
