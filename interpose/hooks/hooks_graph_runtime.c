/* The runtime's explicit allocation node: hooked so that the node is
 * recorded under the name the program called, with its stack (the driver
 * call the runtime makes underneath passes through; graph.h). */
#include <cuda_runtime_api.h>

#include "hooks/hook_shape.h"

GL_HOOK(cudaError_t, cudaGraphAddMemAllocNode,
        (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
         size_t numDependencies, struct cudaMemAllocNodeParams *nodeParams))
{
    GL_REAL_OR_RETURN(real, cudaGraphAddMemAllocNode, GL_FAM_RUNTIME_NO_LIB);
    bool track = gl_enter();
    cudaError_t rc = real(pGraphNode, graph, pDependencies, numDependencies, nodeParams);
    if (track && rc == cudaSuccess && nodeParams != NULL) {
        struct gl_where w = gl_where_runtime();
        int32_t device = nodeParams->poolProps.location.type == cudaMemLocationTypeDevice
                             ? nodeParams->poolProps.location.id
                             : GL_HOST_DEVICE;
        gl_graph_node_added((uintptr_t)nodeParams->dptr, nodeParams->bytesize, device, w.ctx,
                            GL_API_CUDA_GRAPH_ADD_MEM_ALLOC_NODE);
    }
    gl_leave();
    return rc;
}

/* A capture begun through the runtime: the runtime's own driver call is
 * seen too (hooks_graph.c), unless the runtime reached the driver some way
 * we do not wrap; so the flag is set here as well, before the real call
 * (GL_CAPTURE_BEGIN_SHAPE). */

GL_HOOK(cudaError_t, cudaStreamBeginCapture, (cudaStream_t stream, enum cudaStreamCaptureMode mode))
{
    GL_CAPTURE_BEGIN_SHAPE(RUNTIME, cudaStreamBeginCapture, real(stream, mode));
}

GL_HOOK(cudaError_t, cudaStreamBeginCapture_ptsz, (cudaStream_t stream, enum cudaStreamCaptureMode mode))
{
    GL_CAPTURE_BEGIN_SHAPE(RUNTIME, cudaStreamBeginCapture_ptsz, real(stream, mode));
}

GL_HOOK(cudaError_t, cudaStreamBeginCaptureToGraph,
        (cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
         const cudaGraphEdgeData *dependencyData, size_t numDependencies, enum cudaStreamCaptureMode mode))
{
    GL_CAPTURE_BEGIN_SHAPE(RUNTIME, cudaStreamBeginCaptureToGraph, real(stream, graph, dependencies, dependencyData, numDependencies, mode));
}

GL_HOOK(cudaError_t, cudaStreamBeginCaptureToGraph_ptsz,
        (cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
         const cudaGraphEdgeData *dependencyData, size_t numDependencies, enum cudaStreamCaptureMode mode))
{
    GL_CAPTURE_BEGIN_SHAPE(RUNTIME, cudaStreamBeginCaptureToGraph_ptsz, real(stream, graph, dependencies, dependencyData, numDependencies, mode));
}
