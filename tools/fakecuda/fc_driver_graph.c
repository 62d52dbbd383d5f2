/* Graphs and their nodes (see fc_graph.h).  Nodes run in creation order,
 * which is a topological order: a node's dependencies exist before it.
 * The rules the real driver documents for memory nodes are enforced: the
 * allocation's parameters (pinned, on a device, no IPC handle types), a free
 * node only for an address an allocation node returned, at most one free of
 * an allocation in its own graph, and not in both its own graph and another
 * one.  Graphs with memory nodes cannot be cloned (cuGraphClone is not faked
 * at all). */
#include "fc_graph.h"

#include <stdlib.h>
#include <string.h>

static struct fc_graph *all_graphs; /* never freed: stale handles are refused */
static struct fc_gnode *all_nodes;

struct fc_graph *fc_graph_new(void)
{
    struct fc_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->alive = 1;
    g->tail = &g->nodes;
    g->next_all = all_graphs;
    all_graphs = g;
    return g;
}

int fc_graph_alive(struct fc_graph *g)
{
    for (struct fc_graph *x = all_graphs; x; x = x->next_all)
        if (x == g)
            return g->alive;
    return 0;
}

static struct fc_gnode *node_get(CUgraphNode h)
{
    for (struct fc_gnode *x = all_nodes; x; x = x->next_all)
        if (x == (struct fc_gnode *)h)
            return x->graph->alive ? x : NULL;
    return NULL;
}

static struct fc_gnode *node_new(struct fc_graph *g, CUgraphNodeType type)
{
    struct fc_gnode *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->graph = g;
    n->type = type;
    *g->tail = n;
    g->tail = &n->next;
    g->n++;
    n->next_all = all_nodes;
    all_nodes = n;
    return n;
}

/* Dependencies must be distinct nodes of the same graph. */
static int deps_ok(struct fc_graph *g, const CUgraphNode *deps, size_t n)
{
    if (n && !deps)
        return 0;
    for (size_t i = 0; i < n; i++) {
        struct fc_gnode *d = node_get(deps[i]);
        if (!d || d->graph != g)
            return 0;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i])
                return 0;
    }
    return 1;
}

void fc_graph_trim(struct fc_dev *d)
{
    fc_uncharge(d, d->graph_reserved - d->graph_used);
    d->graph_reserved = d->graph_used;
}

static void release_if_unused(struct fc_seg *s)
{
    struct fc_dev *d;
    if (s->graph_refs == 0 && !s->graph_live && fc_heap_find(s->start, 1, &d) == s)
        fc_heap_free(d, s);
}

void fc_graph_seg_unref(struct fc_seg *s)
{
    s->graph_refs--;
    release_if_unused(s);
}

void fc_graph_free_alloc(struct fc_seg *s)
{
    struct fc_dev *d;
    if (!s->graph_live || fc_heap_find(s->start, 1, &d) != s)
        return;
    s->graph_live = 0;
    d->graph_used -= s->size; /* still reserved by the pool until a trim */
    release_if_unused(s);
}

/* The context's live graph allocations die with it, and the pool gives its
 * unused memory back.  The addresses stay while nodes name them. */
void fc_graph_release_ctx(struct fc_ctx *c)
{
    struct fc_dev *d = &fc_devs[c->dev];
again:
    for (struct fc_seg *s = d->segs; s; s = s->next) {
        if (s->used && s->kind == FC_K_GRAPH && s->graph_live && s->ctx == c) {
            fc_graph_free_alloc(s); /* may merge segments: start over */
            goto again;
        }
    }
    fc_graph_trim(d);
}

CUresult fc_graph_add_alloc(struct fc_graph *g, struct fc_ctx *c, const CUDA_MEM_ALLOC_NODE_PARAMS *p,
                            struct fc_gnode **out)
{
    if (!p || p->bytesize == 0 || p->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
        p->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE || !fc_dev_get(p->poolProps.location.id) ||
        p->poolProps.handleTypes != CU_MEM_HANDLE_TYPE_NONE || p->accessDescCount > (size_t)fc_ndev ||
        (p->accessDescCount && !p->accessDescs))
        return CUDA_ERROR_INVALID_VALUE;
    size_t rsize = fc_round(p->bytesize);
    if (rsize == 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct fc_dev *d = &fc_devs[p->poolProps.location.id];
    CUmemAccessDesc *access = NULL;
    if (p->accessDescCount) {
        access = malloc(p->accessDescCount * sizeof *access);
        if (!access)
            return CUDA_ERROR_OUT_OF_MEMORY;
        memcpy(access, p->accessDescs, p->accessDescCount * sizeof *access);
    }
    struct fc_seg *s = fc_heap_reserve(d, rsize);
    struct fc_gnode *n = s ? node_new(g, CU_GRAPH_NODE_TYPE_MEM_ALLOC) : NULL;
    if (!n) {
        if (s)
            fc_heap_free(d, s);
        free(access);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    s->req = p->bytesize;
    s->ctx = c;
    s->graph_refs = 1;
    s->graph_owner = g;
    n->alloc = *p;
    n->alloc.accessDescs = access;
    n->alloc.dptr = (CUdeviceptr)s->start;
    n->access = access;
    n->seg = s;
    n->dev = d->ord;
    g->mem_nodes++;
    *out = n;
    return CUDA_SUCCESS;
}

CUresult fc_graph_add_free(struct fc_graph *g, CUdeviceptr dptr, struct fc_gnode **out)
{
    struct fc_dev *d;
    struct fc_seg *s = fc_heap_find((uintptr_t)dptr, 1, &d);
    if (!s || s->kind != FC_K_GRAPH)
        return CUDA_ERROR_INVALID_VALUE; /* not an address an allocation node returned */
    if (s->graph_owner == g ? s->graph_freed != 0 : s->graph_freed == 1)
        return CUDA_ERROR_INVALID_VALUE; /* freed twice, or in its graph and another */
    for (struct fc_gnode *x = g->nodes; x; x = x->next)
        if (x->type == CU_GRAPH_NODE_TYPE_MEM_FREE && x->seg == s)
            return CUDA_ERROR_INVALID_VALUE;
    struct fc_gnode *n = node_new(g, CU_GRAPH_NODE_TYPE_MEM_FREE);
    if (!n)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->graph_freed = s->graph_owner == g ? 1 : 2;
    s->graph_refs++;
    n->seg = s;
    n->dev = d->ord;
    g->mem_nodes++;
    *out = n;
    return CUDA_SUCCESS;
}

/* ---- the API ------------------------------------------------------------ */

CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phGraph || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_graph *g = fc_graph_new();
    fc_unlock();
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *phGraph = (CUgraph)g;
    return CUDA_SUCCESS;
}

/* As documented, live graph allocations outlive their graph: only the
 * nodes' references to the addresses go. */
CUresult cuGraphDestroy(CUgraph hGraph)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_graph *g = (struct fc_graph *)hGraph;
    fc_lock();
    int ok = g && fc_graph_alive(g);
    if (ok) {
        g->alive = 0;
        for (struct fc_gnode *n = g->nodes; n; n = n->next)
            if (n->seg)
                fc_graph_seg_unref(n->seg);
    }
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Common front of every node-adding call: a live graph and valid
 * dependencies, under the lock (released by the caller). */
static CUresult add_begin(CUgraphNode *out, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_graph *g = (struct fc_graph *)hGraph;
    if (!g || !fc_graph_alive(g) || !deps_ok(g, deps, ndeps)) {
        fc_unlock();
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult add_alloc(CUgraphNode *out, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
                          CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    if ((r = add_begin(out, hGraph, deps, ndeps)))
        return r;
    struct fc_gnode *n;
    r = fc_graph_add_alloc((struct fc_graph *)hGraph, c, p, &n);
    if (r == CUDA_SUCCESS) {
        p->dptr = n->alloc.dptr;
        *out = (CUgraphNode)n;
    }
    fc_unlock();
    return r;
}

static CUresult add_free(CUgraphNode *out, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
                         CUdeviceptr dptr)
{
    CUresult r = add_begin(out, hGraph, deps, ndeps);
    if (r)
        return r;
    struct fc_gnode *n;
    r = fc_graph_add_free((struct fc_graph *)hGraph, dptr, &n);
    if (r == CUDA_SUCCESS)
        *out = (CUgraphNode)n;
    fc_unlock();
    return r;
}

CUresult cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
    return add_alloc(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

CUresult cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                               size_t numDependencies, CUdeviceptr dptr)
{
    return add_free(phGraphNode, hGraph, dependencies, numDependencies, dptr);
}

CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                             size_t numDependencies)
{
    CUresult r = add_begin(phGraphNode, hGraph, dependencies, numDependencies);
    if (r)
        return r;
    struct fc_gnode *n = node_new((struct fc_graph *)hGraph, CU_GRAPH_NODE_TYPE_EMPTY);
    if (n)
        *phGraphNode = (CUgraphNode)n;
    fc_unlock();
    return n ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* The generic form (CUDA 12.2; _v2 with edge data from 12.3).  The node
 * types fakecuda cannot run are refused with CUDA_ERROR_NOT_SUPPORTED. */
static CUresult add_node(CUgraphNode *out, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
                         CUgraphNodeParams *p)
{
    if (!p || p->reserved0[0] || p->reserved0[1] || p->reserved0[2] || p->reserved2)
        return CUDA_ERROR_INVALID_VALUE;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: {
        CUDA_MEM_ALLOC_NODE_PARAMS a;
        memcpy(&a, &p->alloc, sizeof a); /* _v1 and _v2 have one layout */
        CUresult r = add_alloc(out, hGraph, deps, ndeps, &a);
        if (r == CUDA_SUCCESS)
            p->alloc.dptr = a.dptr;
        return r;
    }
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        return add_free(out, hGraph, deps, ndeps, p->free.dptr);
    case CU_GRAPH_NODE_TYPE_EMPTY:
        return cuGraphAddEmptyNode(out, hGraph, deps, ndeps);
    default:
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                        size_t numDependencies, CUgraphNodeParams *nodeParams)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

/* Edge data only annotates dependencies (ports, programmatic edges), which
 * a graph that runs nodes in creation order does not need. */
CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                           const CUgraphEdgeData *dependencyData, size_t numDependencies,
                           CUgraphNodeParams *nodeParams)
{
    (void)dependencyData;
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!numNodes)
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_graph *g = (struct fc_graph *)hGraph;
    fc_lock();
    int ok = g && fc_graph_alive(g);
    if (ok && !nodes) {
        *numNodes = g->n;
    } else if (ok) {
        size_t i = 0;
        for (struct fc_gnode *n = g->nodes; n && i < *numNodes; n = n->next)
            nodes[i++] = (CUgraphNode)n;
        for (size_t j = i; j < *numNodes; j++)
            nodes[j] = NULL;
        *numNodes = i;
    }
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!type)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_gnode *n = node_get(hNode);
    if (n)
        *type = n->type;
    fc_unlock();
    return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS *params_out)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!params_out)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_gnode *n = node_get(hNode);
    int ok = n && n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    if (ok)
        *params_out = n->alloc; /* accessDescs: the node's copy, as documented */
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr *dptr_out)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr_out)
        return CUDA_ERROR_INVALID_VALUE;
    fc_lock();
    struct fc_gnode *n = node_get(hNode);
    int ok = n && n->type == CU_GRAPH_NODE_TYPE_MEM_FREE;
    if (ok)
        *dptr_out = (CUdeviceptr)n->seg->start;
    fc_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
