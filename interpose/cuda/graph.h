/* CUDA graph memory nodes.
 *
 * A graph allocation has two moments.  Its node is created (explicitly, or
 * by a stream-ordered allocation during stream capture): that fixes its
 * address and size and is where the program asked for it, but nothing is
 * allocated.  A launch of an executable graph reaches the node: that
 * allocates it, until a free node (in any graph), cudaFree/cuMemFree,
 * cudaFreeAsync/cuMemFreeAsync or an auto-free relaunch frees it.  So:
 *   - node creation only remembers, per address, the creation stack, size
 *     and device (the nodes table);
 *   - instantiation lists the executable graph's memory nodes with the real
 *     graph queries (so graphs made by capture, or by paths we do not hook,
 *     are covered) and copies what the nodes table knows about each;
 *   - each launch records those allocations as live (kind graph, blamed on
 *     the creation stack) and the frees, in node order.
 * Frees outside graphs work by address, like any other allocation's. */
#ifndef GL_GRAPH_H
#define GL_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An allocation node was created (captures the calling stack). */
void gl_graph_node_added(uint64_t va, uint64_t size, int32_t device, uint64_t ctx, uint16_t api);

/* exec was instantiated from graph; autofree: AUTO_FREE_ON_LAUNCH. */
void gl_graph_instantiated(uint64_t exec, uint64_t graph, bool autofree);

/* exec was launched on stream: its allocations and frees happen. */
void gl_graph_launched(uint64_t exec, uint64_t stream);

void gl_graph_exec_destroyed(uint64_t exec);

/* Around the real cuGraphDestroy: the addresses of its allocation nodes
 * are noted before, and forgotten after it succeeded. */
struct gl_graph_vas {
    uint64_t *va;
    size_t n;
};
void gl_graph_destroy_begin(uint64_t graph, struct gl_graph_vas *v);
void gl_graph_destroy_end(struct gl_graph_vas *v, bool ok);

/* True when stream is being captured into a graph (per_thread: a _ptsz
 * call, where stream 0 is the per-thread default stream).  Asked only by
 * stream-ordered allocations and frees, which capture turns into nodes.
 * Asks the driver only once a capture may have begun (below). */
bool gl_graph_capturing(uint64_t stream, bool per_thread);

/* A stream capture may have begun: called by every begin-capture hook
 * before the real call, and by an attach (captures may have begun before
 * it).  From then on gl_graph_capturing asks the driver; until then no
 * stream can be capturing and it answers false without a call. */
void gl_graph_capture_begun(void);

void gl_graph_postfork_child(void);

#endif
