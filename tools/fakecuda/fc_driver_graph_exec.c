/* Executable graphs and the graph memory pool (see fc_graph.h).
 *
 * A launch runs the memory nodes synchronously, in creation order, after a
 * dry run that checks what the real driver would refuse or fail on, so a
 * failed launch changes nothing: unfreed allocations of an earlier launch
 * without CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH
 * (CUDA_ERROR_INVALID_VALUE, as cuGraphLaunch documents), a free of an
 * allocation that is not live, and a graph pool that cannot grow enough
 * (CUDA_ERROR_OUT_OF_MEMORY).
 *
 * The pool per device: live allocations are its used memory; what it ever
 * needed at once stays reserved, charged to the device (cuMemGetInfo counts
 * it), until cuDeviceGraphMemTrim gives the unused part back -- as the real
 * pool keeps memory for the next launch. */
#include "fc_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct op {
    struct fc_seg *seg;
    int dev;
    int is_alloc;
};

struct fc_gexec {
    int alive;
    unsigned long long flags;
    struct fc_graph *graph;
    size_t n;
    struct op *ops; /* the memory nodes, in launch order */
    struct fc_gexec *next_all;
};

static struct fc_gexec *all_execs; /* never freed: stale handles are refused */

static struct fc_gexec *exec_get(CUgraphExec h)
{
    for (struct fc_gexec *x = all_execs; x; x = x->next_all)
        if (x == (struct fc_gexec *)h)
            return x->alive ? x : NULL;
    return NULL;
}

#define KNOWN_FLAGS                                                                        \
    (CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD | \
     CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY)

static CUresult instantiate(CUgraphExec *out, CUgraph hGraph, unsigned long long flags)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!out || (flags & ~(unsigned long long)KNOWN_FLAGS) ||
        ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) &&
         (flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)))
        return CUDA_ERROR_INVALID_VALUE;
    struct fc_graph *g = (struct fc_graph *)hGraph;
    CUresult r = CUDA_SUCCESS;
    fc_lock();
    struct fc_gexec *x = NULL;
    if (!g || !fc_graph_alive(g) || (g->mem_nodes && g->execs)) {
        r = CUDA_ERROR_INVALID_VALUE; /* one executable graph at a time with memory nodes */
    } else if (!(x = calloc(1, sizeof *x)) || !(x->ops = calloc(g->mem_nodes + 1, sizeof *x->ops))) {
        free(x);
        r = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
        for (struct fc_gnode *n = g->nodes; n; n = n->next) {
            if (!n->seg)
                continue;
            x->ops[x->n++] = (struct op){n->seg, n->dev, n->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC};
            n->seg->graph_refs++;
        }
        x->alive = 1;
        x->flags = flags;
        x->graph = g;
        g->execs++;
        x->next_all = all_execs;
        all_execs = x;
        *out = (CUgraphExec)x;
    }
    fc_unlock();
    return r;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
    return instantiate(phGraphExec, hGraph, flags);
}

/* The pre-12.0 ABIs (cudaTypedefs.h's PFN_cuGraphInstantiate_v10000 and
 * _v11000, both still exported by the real libcuda): no flags; on failure
 * no node is named here and the error's description goes to logBuffer
 * (truncated to bufferSize), where the real driver writes its diagnostic. */
static CUresult with_log(CUgraphExec *out, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
                         size_t bufferSize)
{
    CUresult r = instantiate(out, hGraph, 0);
    if (r != CUDA_SUCCESS) {
        const char *why = NULL;
        if (phErrorNode)
            *phErrorNode = NULL;
        if (logBuffer && bufferSize && cuGetErrorString(r, &why) == CUDA_SUCCESS)
            snprintf(logBuffer, bufferSize, "%s", why);
    }
    return r;
}

CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
                            size_t bufferSize)
{
    return with_log(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
                               size_t bufferSize)
{
    return with_log(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

static CUresult with_params(CUgraphExec *out, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = instantiate(out, hGraph, (unsigned long long)p->flags);
    p->hErrNode_out = NULL;
    p->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
    return r;
}

CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return with_params(phGraphExec, hGraph, instantiateParams);
}

CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                           CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return with_params(phGraphExec, hGraph, instantiateParams);
}

CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    fc_lock();
    struct fc_gexec *x = exec_get(hGraphExec);
    if (x) {
        x->alive = 0;
        x->graph->execs--;
        for (size_t i = 0; i < x->n; i++)
            fc_graph_seg_unref(x->ops[i].seg);
    }
    fc_unlock();
    return x ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The dry run: every free finds its allocation live, and each device's pool
 * grows to what the launch needs at its peak.  Returns what the launch would
 * return; on success the pools have grown (charged) and nothing else moved. */
static CUresult dry_run(struct fc_gexec *x)
{
    size_t cur[FC_MAX_DEVICES], peak[FC_MAX_DEVICES];
    for (int d = 0; d < fc_ndev; d++)
        cur[d] = peak[d] = fc_devs[d].graph_used;
    for (size_t i = 0; i < x->n; i++)
        x->ops[i].seg->graph_sim = x->ops[i].seg->graph_live;
    for (size_t i = 0; i < x->n; i++) { /* auto-free of the previous launch */
        struct op *o = &x->ops[i];
        if (o->is_alloc && o->seg->graph_sim) {
            o->seg->graph_sim = 0;
            cur[o->dev] -= o->seg->size;
        }
    }
    for (size_t i = 0; i < x->n; i++) {
        struct op *o = &x->ops[i];
        if (o->is_alloc) {
            o->seg->graph_sim = 1;
            cur[o->dev] += o->seg->size;
            if (cur[o->dev] > peak[o->dev])
                peak[o->dev] = cur[o->dev];
        } else if (o->seg->graph_sim) {
            o->seg->graph_sim = 0;
            cur[o->dev] -= o->seg->size;
        } else {
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    size_t grown[FC_MAX_DEVICES] = {0};
    for (int d = 0; d < fc_ndev; d++) {
        struct fc_dev *dv = &fc_devs[d];
        if (peak[d] <= dv->graph_reserved)
            continue;
        grown[d] = peak[d] - dv->graph_reserved;
        if (fc_charge(dv, grown[d]) != 0) {
            for (int e = 0; e < d; e++)
                fc_uncharge(&fc_devs[e], grown[e]);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    for (int d = 0; d < fc_ndev; d++) {
        struct fc_dev *dv = &fc_devs[d];
        dv->graph_reserved += grown[d];
        if (dv->graph_reserved > dv->graph_reserved_high)
            dv->graph_reserved_high = dv->graph_reserved;
    }
    return CUDA_SUCCESS;
}

static void run(struct fc_gexec *x)
{
    for (size_t i = 0; i < x->n; i++)
        if (x->ops[i].is_alloc && x->ops[i].seg->graph_live)
            fc_graph_free_alloc(x->ops[i].seg);
    for (size_t i = 0; i < x->n; i++) {
        struct op *o = &x->ops[i];
        if (!o->is_alloc) {
            fc_graph_free_alloc(o->seg);
            continue;
        }
        struct fc_dev *d = &fc_devs[o->dev];
        o->seg->graph_live = 1;
        o->seg->id = fc_next_id(); /* a new allocation at the same address */
        d->graph_used += o->seg->size;
        if (d->graph_used > d->graph_used_high)
            d->graph_used_high = d->graph_used;
    }
}

static CUresult launch(CUgraphExec h, CUstream st, int per_thread)
{
    int dev;
    CUresult r = fc_stream_dev(st, &dev);
    if (r)
        return r;
    fc_lock();
    struct fc_gexec *x = exec_get(h);
    int unfreed = 0;
    for (size_t i = 0; x && i < x->n; i++)
        unfreed |= x->ops[i].is_alloc && x->ops[i].seg->graph_live;
    if (!x || (unfreed && !(x->flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)))
        r = CUDA_ERROR_INVALID_VALUE;
    else if (fc_capturing(st, per_thread))
        r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; /* child graphs are not faked */
    else if ((r = dry_run(x)) == CUDA_SUCCESS)
        run(x);
    fc_unlock();
    return r;
}

CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) { return launch(hGraphExec, hStream, 0); }
CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) { return launch(hGraphExec, hStream, 1); }

/* ---- the graph memory pool ----------------------------------------------- */

CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_dev *d = fc_dev_get(device);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    fc_lock();
    switch (attr) {
    case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT: *(cuuint64_t *)value = d->graph_used; break;
    case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH: *(cuuint64_t *)value = d->graph_used_high; break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT: *(cuuint64_t *)value = d->graph_reserved; break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH: *(cuuint64_t *)value = d->graph_reserved_high; break;
    default: r = CUDA_ERROR_INVALID_VALUE;
    }
    fc_unlock();
    return r;
}

/* Only the high watermarks can be set, and only to 0 (which restarts them
 * from the current value). */
CUresult cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_dev *d = fc_dev_get(device);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value || *(cuuint64_t *)value != 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_SUCCESS;
    fc_lock();
    if (attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)
        d->graph_used_high = d->graph_used;
    else if (attr == CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)
        d->graph_reserved_high = d->graph_reserved;
    else
        r = CUDA_ERROR_INVALID_VALUE;
    fc_unlock();
    return r;
}

CUresult cuDeviceGraphMemTrim(CUdevice device)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct fc_dev *d = fc_dev_get(device);
    if (!d)
        return CUDA_ERROR_INVALID_DEVICE;
    fc_lock();
    fc_graph_trim(d);
    fc_unlock();
    return CUDA_SUCCESS;
}
