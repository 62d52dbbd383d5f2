#include "cuda/graph.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <cuda.h>

#include "base/internal.h"
#include "base/lock.h"
#include "base/ut.h"
#include "capture/stacks.h"
#include "cuda/calls.h"
#include "resolve/resolve.h"
#include "snapshot_format.h"
#include "state/stack_table.h"
#include "state/track.h"

/* The driver's own graph queries: runtime graph handles are driver handles,
 * so these serve graphs made through either API. */
GL_DEFINE_REAL(CUresult, cuStreamIsCapturing, (CUstream, CUstreamCaptureStatus *))
GL_DEFINE_REAL(CUresult, cuStreamIsCapturing_ptsz, (CUstream, CUstreamCaptureStatus *))
GL_DEFINE_REAL(CUresult, cuGraphGetNodes, (CUgraph, CUgraphNode *, size_t *))
GL_DEFINE_REAL(CUresult, cuGraphNodeGetType, (CUgraphNode, CUgraphNodeType *))
GL_DEFINE_REAL(CUresult, cuGraphMemAllocNodeGetParams, (CUgraphNode, CUDA_MEM_ALLOC_NODE_PARAMS *))
GL_DEFINE_REAL(CUresult, cuGraphMemFreeNodeGetParams, (CUgraphNode, CUdeviceptr *))

/* An allocation node, from its creation until its graph is destroyed. */
struct node {
    uint64_t va; /* key */
    uint64_t size, ctx;
    struct gl_stack *stack;
    int32_t device;
    uint16_t api;
    UT_hash_handle hh;
};

/* A memory node of an executable graph, with what a launch records. */
struct op {
    uint64_t va, size, ctx;
    struct gl_stack *stack;
    int32_t device;
    uint16_t api;
    bool alloc;
};

/* Only executable graphs that have memory nodes are kept. */
struct exec {
    uint64_t exec; /* key */
    bool autofree;
    size_t n;
    struct op *ops; /* in the order cuGraphGetNodes gives */
    UT_hash_handle hh;
};

static struct gl_lock graph_lock = GL_LOCK_INIT(GRAPH);
static struct node *nodes;
static struct exec *execs;
/* Launches of executable graphs without memory nodes (the usual kind) cost
 * one load, no lock. */
static _Atomic size_t nexecs;
/* Set before any stream capture can begin (the begin-capture hooks, and an
 * attach, which cannot know what began before it), never cleared: until
 * then no stream can be capturing, and stream-ordered calls skip the
 * driver's query.  Relaxed: an allocation that is ordered after a begin by
 * any synchronisation is ordered after this store too, and sees it; one
 * that is not races with the capture in the driver as well. */
static atomic_bool capture_possible;

static struct node *node_find(uint64_t va)
{
    struct node *n;
    HASH_FIND(hh, nodes, &va, sizeof va, n);
    return n;
}

static struct exec *exec_find(uint64_t exec)
{
    struct exec *x;
    HASH_FIND(hh, execs, &exec, sizeof exec, x);
    return x;
}

void gl_graph_node_added(uint64_t va, uint64_t size, int32_t device, uint64_t ctx, uint16_t api)
{
    int saved = errno;
    struct gl_capture cap;
    gl_stack_capture(&cap);
    struct node *n = malloc(sizeof *n);
    if (n != NULL) {
        *n = (struct node){.va = va, .size = size, .ctx = ctx, .stack = gl_stack_intern(&cap),
                           .device = device, .api = api};
        gl_lock(&graph_lock);
        struct node *old = node_find(va); /* an address of a destroyed graph, reused */
        if (old != NULL) {
            HASH_DEL(nodes, old);
            free(old);
        }
        gl_ut_oom = false;
        HASH_ADD(hh, nodes, va, sizeof n->va, n);
        if (gl_ut_oom)
            free(n);
        gl_unlock(&graph_lock);
    }
    errno = saved;
}

/* The memory nodes of graph, addresses and sizes only; NULL when it has
 * none or the driver cannot list them. */
static struct op *list_memory_nodes(uint64_t graph, bool frees_too, size_t *count)
{
    cuGraphGetNodes_fn get_nodes = REAL_cuGraphGetNodes();
    cuGraphNodeGetType_fn get_type = REAL_cuGraphNodeGetType();
    cuGraphMemAllocNodeGetParams_fn get_alloc = REAL_cuGraphMemAllocNodeGetParams();
    cuGraphMemFreeNodeGetParams_fn get_free = REAL_cuGraphMemFreeNodeGetParams();
    size_t n = 0, k = 0;
    *count = 0;
    if (get_nodes == NULL || get_type == NULL || get_alloc == NULL || get_free == NULL ||
        get_nodes((CUgraph)(uintptr_t)graph, NULL, &n) != CUDA_SUCCESS || n == 0)
        return NULL;
    CUgraphNode *hs = malloc(n * sizeof *hs);
    struct op *ops = calloc(n, sizeof *ops);
    if (hs != NULL && ops != NULL && get_nodes((CUgraph)(uintptr_t)graph, hs, &n) == CUDA_SUCCESS) {
        for (size_t i = 0; i < n; i++) {
            CUgraphNodeType t;
            CUDA_MEM_ALLOC_NODE_PARAMS p;
            CUdeviceptr d;
            if (hs[i] == NULL || get_type(hs[i], &t) != CUDA_SUCCESS)
                continue;
            if (t == CU_GRAPH_NODE_TYPE_MEM_ALLOC && get_alloc(hs[i], &p) == CUDA_SUCCESS && p.dptr != 0)
                ops[k++] = (struct op){.va = p.dptr, .size = p.bytesize, .alloc = true,
                                       .device = p.poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE
                                                     ? p.poolProps.location.id
                                                     : GL_HOST_DEVICE};
            else if (frees_too && t == CU_GRAPH_NODE_TYPE_MEM_FREE && get_free(hs[i], &d) == CUDA_SUCCESS)
                ops[k++] = (struct op){.va = d, .alloc = false};
        }
    }
    free(hs);
    if (k == 0) {
        free(ops);
        return NULL;
    }
    *count = k;
    return ops;
}

void gl_graph_instantiated(uint64_t exec, uint64_t graph, bool autofree)
{
    int saved = errno;
    size_t n;
    struct op *ops = list_memory_nodes(graph, true, &n);
    struct exec *x = ops != NULL ? malloc(sizeof *x) : NULL;
    if (x == NULL) {
        free(ops);
        errno = saved;
        return;
    }
    /* A node we did not see created (made before tracking, or by a path not
     * hooked) is blamed on this instantiation. */
    struct gl_capture cap;
    gl_stack_capture(&cap);
    struct gl_stack *here = gl_stack_intern(&cap);
    struct gl_where w = gl_where_driver(0);
    *x = (struct exec){.exec = exec, .autofree = autofree, .n = n, .ops = ops};
    gl_lock(&graph_lock);
    for (size_t i = 0; i < n; i++) {
        struct op *o = &ops[i];
        struct node *nd = node_find(o->va);
        if (o->alloc) {
            o->stack = nd ? nd->stack : here;
            o->ctx = nd ? nd->ctx : w.ctx;
            o->api = nd ? nd->api : GL_API_UNKNOWN;
        } else {
            o->device = nd ? nd->device : w.device; /* for a free of an unknown address */
        }
    }
    struct exec *old = exec_find(exec); /* a destroyed one's handle, reused */
    if (old != NULL) {
        HASH_DEL(execs, old);
        free(old->ops);
        free(old);
        atomic_fetch_sub(&nexecs, 1);
    }
    gl_ut_oom = false;
    HASH_ADD(hh, execs, exec, sizeof x->exec, x);
    if (gl_ut_oom) {
        free(x->ops);
        free(x);
    } else {
        atomic_fetch_add(&nexecs, 1);
    }
    gl_unlock(&graph_lock);
    errno = saved;
}

static void free_at(uint64_t va, int32_t device)
{
    struct gl_live *r = gl_call_free_begin(GL_SPACE_ADDR, va);
    gl_call_free_end(r, 1, device);
}

void gl_graph_launched(uint64_t exec, uint64_t stream)
{
    if (atomic_load_explicit(&nexecs, memory_order_relaxed) == 0)
        return;
    int saved = errno;
    gl_lock(&graph_lock);
    struct exec *x = exec_find(exec);
    for (size_t i = 0; x != NULL && x->autofree && i < x->n; i++) {
        /* what an earlier launch left allocated goes first, as if freed
         * with cuMemFreeAsync at the start of this one */
        struct gl_live *r = x->ops[i].alloc ? gl_call_free_begin(GL_SPACE_ADDR, x->ops[i].va) : NULL;
        if (r != NULL)
            gl_call_free_end(r, 1, x->ops[i].device);
    }
    for (size_t i = 0; x != NULL && i < x->n; i++) {
        const struct op *o = &x->ops[i];
        if (o->alloc)
            gl_call_alloc_stack((struct gl_where){.device = o->device, .ctx = o->ctx}, o->va, o->size,
                                stream, GL_KIND_GRAPH, o->api, GL_SPACE_ADDR, o->stack);
        else
            free_at(o->va, o->device);
    }
    gl_unlock(&graph_lock);
    errno = saved;
}

void gl_graph_exec_destroyed(uint64_t exec)
{
    if (atomic_load_explicit(&nexecs, memory_order_relaxed) == 0)
        return;
    gl_lock(&graph_lock);
    struct exec *x = exec_find(exec);
    if (x != NULL) {
        HASH_DEL(execs, x);
        free(x->ops);
        free(x);
        atomic_fetch_sub(&nexecs, 1);
    }
    gl_unlock(&graph_lock);
}

void gl_graph_destroy_begin(uint64_t graph, struct gl_graph_vas *v)
{
    int saved = errno;
    v->va = NULL;
    v->n = 0;
    gl_lock(&graph_lock);
    bool any = nodes != NULL;
    gl_unlock(&graph_lock);
    size_t n;
    struct op *ops = any ? list_memory_nodes(graph, false, &n) : NULL;
    if (ops != NULL && (v->va = malloc(n * sizeof *v->va)) != NULL) {
        for (size_t i = 0; i < n; i++)
            v->va[i] = ops[i].va;
        v->n = n;
    }
    free(ops);
    errno = saved;
}

void gl_graph_destroy_end(struct gl_graph_vas *v, bool ok)
{
    if (ok && v->n > 0) {
        gl_lock(&graph_lock);
        for (size_t i = 0; i < v->n; i++) {
            struct node *n = node_find(v->va[i]);
            if (n != NULL) {
                HASH_DEL(nodes, n);
                free(n);
            }
        }
        gl_unlock(&graph_lock);
    }
    free(v->va);
    v->va = NULL;
    v->n = 0;
}

void gl_graph_capture_begun(void) { atomic_store_explicit(&capture_possible, true, memory_order_relaxed); }

bool gl_graph_capturing(uint64_t stream, bool per_thread)
{
    if (!atomic_load_explicit(&capture_possible, memory_order_relaxed))
        return false;
    int saved = errno;
    cuStreamIsCapturing_fn is = per_thread ? REAL_cuStreamIsCapturing_ptsz() : REAL_cuStreamIsCapturing();
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    bool capturing = is != NULL && is((CUstream)(uintptr_t)stream, &st) == CUDA_SUCCESS &&
                     st != CU_STREAM_CAPTURE_STATUS_NONE;
    errno = saved;
    return capturing;
}

void gl_graph_postfork_child(void)
{
    /* The parent's graphs are not the child's.  Another thread may have
     * been changing the tables when the parent forked: drop them unread. */
    gl_lock_init(&graph_lock, GL_LOCK_GRAPH, 0);
    nodes = NULL;
    execs = NULL;
    atomic_store(&nexecs, 0);
}
