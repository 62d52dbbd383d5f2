/* Driver hooks for CUDA graphs (graph.h says what is recorded when).  The
 * runtime's graph calls reach these through cuGetProcAddress; only
 * cudaGraphAddMemAllocNode has a runtime hook too (hooks_graph_runtime.c),
 * so that its name is the one recorded.  Instantiation and launch need no
 * runtime hook: what they record is blamed on the nodes' creation. */
#define __CUDA_API_VERSION_INTERNAL /* the un-renamed (legacy, _v2 and _ptsz) prototypes */
#include <cuda.h>

#include "hooks/hook_shape.h"

#define NO_DRIVER GL_FAM_DRIVER_NO_LIB

static void alloc_node_added(const CUDA_MEM_ALLOC_NODE_PARAMS *p, uint16_t api)
{
    struct gl_where w = gl_where_driver(0);
    int32_t device = p->poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE ? p->poolProps.location.id
                                                                               : GL_HOST_DEVICE;
    gl_graph_node_added(p->dptr, p->bytesize, device, w.ctx, api);
}

GL_HOOK(CUresult, cuGraphAddMemAllocNode,
        (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies,
         CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams))
{
    GL_CALL_THEN_BODY(cuGraphAddMemAllocNode, NO_DRIVER,
                      real(phGraphNode, hGraph, dependencies, numDependencies, nodeParams),
                      if (track && rc == CUDA_SUCCESS && nodeParams != NULL)
                          alloc_node_added(nodeParams, GL_API_CU_GRAPH_ADD_MEM_ALLOC_NODE));
}

/* The generic node API: only allocation nodes matter here (free nodes are
 * found at instantiation).  CUDA_MEM_ALLOC_NODE_PARAMS _v1 and _v2 share
 * their layout. */
static void generic_node_added(const CUgraphNodeParams *p, uint16_t api)
{
    if (p != NULL && p->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
        alloc_node_added((const CUDA_MEM_ALLOC_NODE_PARAMS *)(const void *)&p->alloc, api);
}

GL_HOOK(CUresult, cuGraphAddNode,
        (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies,
         CUgraphNodeParams *nodeParams))
{
    GL_CALL_THEN_BODY(cuGraphAddNode, NO_DRIVER,
                      real(phGraphNode, hGraph, dependencies, numDependencies, nodeParams),
                      if (track && rc == CUDA_SUCCESS)
                          generic_node_added(nodeParams, GL_API_CU_GRAPH_ADD_NODE));
}

GL_HOOK(CUresult, cuGraphAddNode_v2,
        (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
         const CUgraphEdgeData *dependencyData, size_t numDependencies, CUgraphNodeParams *nodeParams))
{
    GL_CALL_THEN_BODY(cuGraphAddNode_v2, NO_DRIVER,
                      real(phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams),
                      if (track && rc == CUDA_SUCCESS)
                          generic_node_added(nodeParams, GL_API_CU_GRAPH_ADD_NODE_V2));
}

static void instantiated(bool track, CUresult rc, CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
    if (track && rc == CUDA_SUCCESS && exec != NULL)
        gl_graph_instantiated((uintptr_t)*exec, (uintptr_t)graph,
                              (flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) != 0);
}

GL_HOOK(CUresult, cuGraphInstantiateWithFlags,
        (CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags))
{
    GL_CALL_THEN_BODY(cuGraphInstantiateWithFlags, NO_DRIVER, real(phGraphExec, hGraph, flags),
                      instantiated(track, rc, phGraphExec, hGraph, flags));
}

/* The pre-12.0 five-argument ABIs (what dlsym finds by the bare name, and
 * cuGetProcAddress hands out below 12000): no flags, so no auto-free; the
 * error node and log are the driver's to fill. */
GL_HOOK(CUresult, cuGraphInstantiate,
        (CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize))
{
    GL_CALL_THEN_BODY(cuGraphInstantiate, NO_DRIVER, real(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize),
                      instantiated(track, rc, phGraphExec, hGraph, 0));
}

GL_HOOK(CUresult, cuGraphInstantiate_v2,
        (CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize))
{
    GL_CALL_THEN_BODY(cuGraphInstantiate_v2, NO_DRIVER, real(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize),
                      instantiated(track, rc, phGraphExec, hGraph, 0));
}

static CUresult with_params(CUresult (*real)(CUgraphExec *, CUgraph, CUDA_GRAPH_INSTANTIATE_PARAMS *),
                            CUgraphExec *exec, CUgraph graph, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    bool track = gl_enter();
    unsigned long long flags = p != NULL ? (unsigned long long)p->flags : 0;
    CUresult rc = real(exec, graph, p);
    instantiated(track, rc, exec, graph, flags);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuGraphInstantiateWithParams,
        (CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams))
{
    GL_REAL_OR_RETURN(real, cuGraphInstantiateWithParams, NO_DRIVER);
    return with_params(real, phGraphExec, hGraph, instantiateParams);
}

GL_HOOK(CUresult, cuGraphInstantiateWithParams_ptsz,
        (CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams))
{
    GL_REAL_OR_RETURN(real, cuGraphInstantiateWithParams_ptsz, NO_DRIVER);
    return with_params(real, phGraphExec, hGraph, instantiateParams);
}

static CUresult launch(CUresult (*real)(CUgraphExec, CUstream), CUgraphExec exec, CUstream stream)
{
    bool track = gl_enter();
    CUresult rc = real(exec, stream);
    if (track && rc == CUDA_SUCCESS)
        gl_graph_launched((uintptr_t)exec, (uintptr_t)stream);
    gl_leave();
    return rc;
}

GL_HOOK(CUresult, cuGraphLaunch, (CUgraphExec hGraphExec, CUstream hStream))
{
    GL_REAL_OR_RETURN(real, cuGraphLaunch, NO_DRIVER);
    return launch(real, hGraphExec, hStream);
}

GL_HOOK(CUresult, cuGraphLaunch_ptsz, (CUgraphExec hGraphExec, CUstream hStream))
{
    GL_REAL_OR_RETURN(real, cuGraphLaunch_ptsz, NO_DRIVER);
    return launch(real, hGraphExec, hStream);
}

/* Destroying an executable graph or a graph frees no graph allocation (as
 * documented): only our tables shrink. */
GL_HOOK(CUresult, cuGraphExecDestroy, (CUgraphExec hGraphExec))
{
    GL_CALL_THEN_BODY(cuGraphExecDestroy, NO_DRIVER, real(hGraphExec),
                      if (track && rc == CUDA_SUCCESS)
                          gl_graph_exec_destroyed((uintptr_t)hGraphExec));
}

GL_HOOK(CUresult, cuGraphDestroy, (CUgraph hGraph))
{
    GL_REAL_OR_RETURN(real, cuGraphDestroy, NO_DRIVER);
    bool track = gl_enter();
    struct gl_graph_vas v = {NULL, 0};
    if (track)
        gl_graph_destroy_begin((uintptr_t)hGraph, &v);
    CUresult rc = real(hGraph);
    if (track)
        gl_graph_destroy_end(&v, rc == CUDA_SUCCESS);
    gl_leave();
    return rc;
}

/* ---- stream capture begins --------------------------------------------- */

/* Every way a capture begins, each ABI and stream variant: the flag is set
 * before the real call (GL_CAPTURE_BEGIN_SHAPE says why). */
GL_HOOK(CUresult, cuStreamBeginCapture, (CUstream hStream))
{
    GL_CAPTURE_BEGIN_SHAPE(DRIVER, cuStreamBeginCapture, real(hStream));
}

GL_HOOK(CUresult, cuStreamBeginCapture_ptsz, (CUstream hStream))
{
    GL_CAPTURE_BEGIN_SHAPE(DRIVER, cuStreamBeginCapture_ptsz, real(hStream));
}

GL_HOOK(CUresult, cuStreamBeginCapture_v2, (CUstream hStream, CUstreamCaptureMode mode))
{
    GL_CAPTURE_BEGIN_SHAPE(DRIVER, cuStreamBeginCapture_v2, real(hStream, mode));
}

GL_HOOK(CUresult, cuStreamBeginCapture_v2_ptsz, (CUstream hStream, CUstreamCaptureMode mode))
{
    GL_CAPTURE_BEGIN_SHAPE(DRIVER, cuStreamBeginCapture_v2_ptsz, real(hStream, mode));
}

GL_HOOK(CUresult, cuStreamBeginCaptureToGraph,
        (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData,
         size_t numDependencies, CUstreamCaptureMode mode))
{
    GL_CAPTURE_BEGIN_SHAPE(DRIVER, cuStreamBeginCaptureToGraph, real(hStream, hGraph, dependencies, dependencyData, numDependencies, mode));
}

GL_HOOK(CUresult, cuStreamBeginCaptureToGraph_ptsz,
        (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData,
         size_t numDependencies, CUstreamCaptureMode mode))
{
    GL_CAPTURE_BEGIN_SHAPE(DRIVER, cuStreamBeginCaptureToGraph_ptsz, real(hStream, hGraph, dependencies, dependencyData, numDependencies, mode));
}
