/* The driver's view at snapshot time: memory pools (reserved versus used)
 * and each device's free/total memory, for the reporter's fragmentation
 * section.
 *
 * The hooks note which pools the program allocates from (cheaply: a bit per
 * device for default pools, a short list of explicit ones); a snapshot
 * taken while the program runs (signal, request, out-of-memory) asks the
 * driver about them; for the final snapshot at exit, driver_view.c asks
 * when exit() begins, before the CUDA libraries tear down. */
#ifndef GL_POOLS_H
#define GL_POOLS_H

#include <stddef.h>
#include <stdint.h>

void gl_pools_note_default(int32_t device);
void gl_pools_note(uint64_t pool, int32_t device);
/* A graph allocation was made on device: its graph memory pool is asked
 * about too (an entry with pool GL_POOL_GRAPH_MEM). */
void gl_pools_note_graph(int32_t device);

struct gl_pool_info {
    uint64_t pool;
    int32_t device;
    uint64_t reserved, used, reserved_high, used_high;
};

/* Queries the driver about every pool noted; returns how many were filled. */
size_t gl_pools_query(struct gl_pool_info *out, size_t max);

/* The driver's free and total memory for the calling thread's current
 * context; 0 on success. */
int gl_current_mem_info(uint64_t *free_bytes, uint64_t *total);

/* The same for `device`, through its primary context; 0 on success. */
int gl_device_mem_info(int32_t device, uint64_t *free_bytes, uint64_t *total);

#define GL_POOLS_MAX 64

/* Fork child: the pool list's lock, re-initialized. */
void gl_pools_postfork_child(void);

#endif
