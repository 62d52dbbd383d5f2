/* --torch-snapshot OUT.pickle: the snapshot as PyTorch's CUDA caching
 * allocator would have written it (torch.cuda.memory._snapshot()), for
 * pytorch.org/memory_viz and torch.cuda._memory_viz.  The mapping is in
 * docs/memory-viz.md. */
#ifndef GPULEAK_TORCH_SNAPSHOT_H
#define GPULEAK_TORCH_SNAPSHOT_H

struct report_ctx;

/* Writes the pickle to r->out.  0, or -1 when out of memory. */
int output_torch_snapshot(struct report_ctx *r);

#endif
