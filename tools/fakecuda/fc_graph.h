/* fakecuda graphs, shared by fc_driver_graph.c (graphs and nodes),
 * fc_driver_graph_exec.c (instantiation, launch, the graph memory pool) and
 * fc_driver_capture.c (stream capture).  Everything here runs under
 * fc_lock().
 *
 * Only what graph memory needs is faked: allocation, free and empty nodes.
 * A graph allocation is a heap segment of kind FC_K_GRAPH: its address is
 * taken when the allocation node is created and never moves; a launch that
 * reaches the node makes it live and charges its size to the device's graph
 * pool, a free (node, cuMemFree, cuMemFreeAsync, auto-free on relaunch) makes
 * it dead again.  The address goes back to the heap when nothing names it
 * any more (no node, no executable graph) and it is not live. */
#ifndef FC_GRAPH_H
#define FC_GRAPH_H

#include "fc_internal.h"

struct fc_gnode {
    struct fc_graph *graph;
    CUgraphNodeType type;             /* MEM_ALLOC, MEM_FREE or EMPTY */
    CUDA_MEM_ALLOC_NODE_PARAMS alloc; /* MEM_ALLOC: as given, dptr filled in */
    CUmemAccessDesc *access;          /* MEM_ALLOC: the node's copy of accessDescs */
    struct fc_seg *seg;               /* MEM_ALLOC: its address; MEM_FREE: what it frees */
    int dev;                          /* the device of seg */
    struct fc_gnode *next;            /* the graph's nodes, in creation order */
    struct fc_gnode *next_all;
};

struct fc_graph {
    int alive;
    int execs;     /* live executable graphs made from it */
    int mem_nodes; /* allocation and free nodes: at most one executable graph */
    size_t n;
    struct fc_gnode *nodes, **tail;
    struct fc_graph *next_all;
};

struct fc_graph *fc_graph_new(void);
int fc_graph_alive(struct fc_graph *g);
/* Adds an allocation node: validates p, takes the address (p->dptr is not
 * written; the node's alloc.dptr has it). */
CUresult fc_graph_add_alloc(struct fc_graph *g, struct fc_ctx *c, const CUDA_MEM_ALLOC_NODE_PARAMS *p,
                            struct fc_gnode **out);
CUresult fc_graph_add_free(struct fc_graph *g, CUdeviceptr dptr, struct fc_gnode **out);
/* One reference to a graph allocation's address less (a node or an
 * executable graph went away). */
void fc_graph_seg_unref(struct fc_seg *s);
/* Gives back the device's graph pool memory that no live allocation uses. */
void fc_graph_trim(struct fc_dev *d);

#endif
