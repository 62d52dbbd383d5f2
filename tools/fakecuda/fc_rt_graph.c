/* Runtime: graphs and their memory nodes, each call over the one driver
 * call the real runtime makes (cudaGraph_t and cudaGraphNode_t are the
 * driver's handles). */
#include "fc_rt.h"

#include <stdint.h>
#include <string.h>

static void props_to_cu(CUmemPoolProps *o, const struct cudaMemPoolProps *i)
{
    memset(o, 0, sizeof *o);
    o->allocType = (CUmemAllocationType)i->allocType;
    o->handleTypes = (CUmemAllocationHandleType)i->handleTypes;
    o->location.type = (CUmemLocationType)i->location.type;
    o->location.id = i->location.id;
    o->win32SecurityAttributes = i->win32SecurityAttributes;
    o->maxSize = i->maxSize;
    o->usage = i->usage;
}

static void props_from_cu(struct cudaMemPoolProps *o, const CUmemPoolProps *i)
{
    memset(o, 0, sizeof *o);
    o->allocType = (enum cudaMemAllocationType)i->allocType;
    o->handleTypes = (enum cudaMemAllocationHandleType)i->handleTypes;
    o->location.type = (enum cudaMemLocationType)i->location.type;
    o->location.id = i->location.id;
    o->win32SecurityAttributes = i->win32SecurityAttributes;
    o->maxSize = i->maxSize;
    o->usage = i->usage;
}

/* cudaMemAccessDesc and CUmemAccessDesc share their layout. */
static void alloc_to_cu(CUDA_MEM_ALLOC_NODE_PARAMS *o, const struct cudaMemPoolProps *props,
                        const struct cudaMemAccessDesc *access, size_t naccess, size_t bytesize)
{
    memset(o, 0, sizeof *o);
    props_to_cu(&o->poolProps, props);
    o->accessDescs = (const CUmemAccessDesc *)access;
    o->accessDescCount = naccess;
    o->bytesize = bytesize;
}

FC_RT_FORWARD(cudaGraphCreate, (cudaGraph_t *pGraph, unsigned int flags), cuGraphCreate((CUgraph *)pGraph, flags))

FC_RT_FORWARD(cudaGraphDestroy, (cudaGraph_t graph), cuGraphDestroy((CUgraph)graph))

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     struct cudaMemAllocNodeParams *nodeParams)
{
    ENTER();
    if (!nodeParams)
        return fc_rt_set(cudaErrorInvalidValue);
    CUDA_MEM_ALLOC_NODE_PARAMS p;
    alloc_to_cu(&p, &nodeParams->poolProps, nodeParams->accessDescs, nodeParams->accessDescCount,
                nodeParams->bytesize);
    CUresult r = fc_drv.cuGraphAddMemAllocNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                               (const CUgraphNode *)pDependencies, numDependencies, &p);
    if (r == CUDA_SUCCESS)
        nodeParams->dptr = (void *)(uintptr_t)p.dptr;
    return fc_rt_cu(r);
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dptr)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuGraphAddMemFreeNode((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                                 (const CUgraphNode *)pDependencies, numDependencies,
                                                 (CUdeviceptr)(uintptr_t)dptr));
}

/* The generic form, for the node types fakecuda has (memory and empty);
 * cudaGraphEdgeData and CUgraphEdgeData share their layout. */
cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                             const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                             struct cudaGraphNodeParams *nodeParams)
{
    ENTER();
    if (!nodeParams)
        return fc_rt_set(cudaErrorInvalidValue);
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = (CUgraphNodeType)nodeParams->type;
    memcpy(p.reserved0, nodeParams->reserved0, sizeof p.reserved0);
    p.reserved2 = nodeParams->reserved2;
    if (nodeParams->type == cudaGraphNodeTypeMemAlloc) {
        const struct cudaMemAllocNodeParamsV2 *a = &nodeParams->alloc;
        CUDA_MEM_ALLOC_NODE_PARAMS cu;
        alloc_to_cu(&cu, &a->poolProps, a->accessDescs, a->accessDescCount, a->bytesize);
        memcpy(&p.alloc, &cu, sizeof p.alloc); /* _v1 and _v2 have one layout */
    } else if (nodeParams->type == cudaGraphNodeTypeMemFree) {
        p.free.dptr = (CUdeviceptr)(uintptr_t)nodeParams->free.dptr;
    } else if (nodeParams->type != cudaGraphNodeTypeEmpty) {
        return fc_rt_set(cudaErrorNotSupported);
    }
    CUresult r = fc_drv.cuGraphAddNode_v2((CUgraphNode *)pGraphNode, (CUgraph)graph,
                                          (const CUgraphNode *)pDependencies,
                                          (const CUgraphEdgeData *)dependencyData, numDependencies, &p);
    if (r == CUDA_SUCCESS && nodeParams->type == cudaGraphNodeTypeMemAlloc)
        nodeParams->alloc.dptr = (void *)(uintptr_t)p.alloc.dptr;
    return fc_rt_cu(r);
}

FC_RT_FORWARD(cudaGraphGetNodes, (cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes),
              cuGraphGetNodes((CUgraph)graph, (CUgraphNode *)nodes, numNodes))

/* cudaGraphNodeType and CUgraphNodeType share their values. */
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    ENTER();
    if (!pType)
        return fc_rt_set(cudaErrorInvalidValue);
    CUgraphNodeType t;
    CUresult r = fc_drv.cuGraphNodeGetType((CUgraphNode)node, &t);
    if (r == CUDA_SUCCESS)
        *pType = (enum cudaGraphNodeType)t;
    return fc_rt_cu(r);
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params_out)
{
    ENTER();
    if (!params_out)
        return fc_rt_set(cudaErrorInvalidValue);
    CUDA_MEM_ALLOC_NODE_PARAMS p;
    CUresult r = fc_drv.cuGraphMemAllocNodeGetParams((CUgraphNode)node, &p);
    if (r == CUDA_SUCCESS) {
        memset(params_out, 0, sizeof *params_out);
        props_from_cu(&params_out->poolProps, &p.poolProps);
        params_out->accessDescs = (const struct cudaMemAccessDesc *)p.accessDescs;
        params_out->accessDescCount = p.accessDescCount;
        params_out->bytesize = p.bytesize;
        params_out->dptr = (void *)(uintptr_t)p.dptr;
    }
    return fc_rt_cu(r);
}

/* dptr_out points at a void * (the API types it loosely). */
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    ENTER();
    if (!dptr_out)
        return fc_rt_set(cudaErrorInvalidValue);
    CUdeviceptr d;
    CUresult r = fc_drv.cuGraphMemFreeNodeGetParams((CUgraphNode)node, &d);
    if (r == CUDA_SUCCESS)
        *(void **)dptr_out = (void *)(uintptr_t)d;
    return fc_rt_cu(r);
}
