/* PyTorch's allocator settings as torch.cuda.memory._snapshot() reports
 * them ("allocator_settings"), worked out from the configuration string
 * the process had (PYTORCH_CUDA_ALLOC_CONF, else PYTORCH_ALLOC_CONF: the
 * one PyTorch 2.14 reads when both are set), for --torch-snapshot. */
#ifndef GPULEAK_RENDER_TORCH_ALLOC_CONF_H
#define GPULEAK_RENDER_TORCH_ALLOC_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include "model/snap_read.h"

#define ALLOC_CONF_BUCKETS 16 /* roundup_power2_divisions: "1" .. "32768" */

/* Each field as PyTorch 2.14.1 writes it with its defaults, unless the
 * configuration sets it. */
struct alloc_conf {
    const char *conf;           /* the string in force ("" when none) */
    int64_t max_split_size;     /* bytes; -1: no limit */
    double gc_threshold;        /* garbage_collection_threshold */
    bool expandable_segments;
    int64_t pinned_num_register_threads;
    bool release_lock_on_cudamalloc;
    bool pinned_use_cuda_host_register;
    bool graph_capture_record_stream_reuse;
    int64_t roundup[ALLOC_CONF_BUCKETS]; /* bucket i is 2^i */
};

/* The settings of snapshot s's process (its ENV record; PyTorch's defaults
 * when the snapshot has none). */
void alloc_conf_of(const struct snapshot *s, struct alloc_conf *c);

#endif
