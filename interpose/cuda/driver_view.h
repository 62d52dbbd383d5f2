/* The driver's view for a snapshot: how much memory each device has free
 * (device-wide, as cudaMemGetInfo says) and what the noted memory pools hold.
 *
 * A snapshot taken while the program runs asks the driver then.  The final
 * snapshot is written by the library destructor, when the CUDA libraries may
 * already be torn down, so it must not call them: its view is sampled
 * earlier, when exit() begins, by an atexit handler registered at the first
 * tracked allocation -- after the CUDA runtime registered its own teardown,
 * so it runs before it.  The sampling itself runs on the writer thread with
 * a time limit (EXIT_SAMPLE_MS): the exiting thread may be a CUDA callback,
 * where CUDA calls are not allowed, and a driver that hangs at exit must not
 * hang the program; then the exit snapshot simply has no driver's view.
 * The writer asks the driver only after a first call made at the first
 * tracked allocation (driver_view.c: glibc aborts a process whose thread
 * cannot get the driver's thread-local data). */
#ifndef GL_DRIVER_VIEW_H
#define GL_DRIVER_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/pools.h"
#include "state/track.h"

/* The driver's view of one device's memory. */
struct gl_mem_view {
    int32_t device;
    uint64_t mem_free, mem_total;
};

struct gl_driver_view {
    struct gl_pool_info pools[GL_POOLS_MAX];
    size_t npools;
    struct gl_mem_view mems[GL_MAX_DEVICES];
    size_t nmems;
};

/* Asks the driver now: every noted pool, and every device whose primary
 * context is known and active. */
void gl_driver_view_query(struct gl_driver_view *out);

/* Called with every tracked allocation; registers the exit sampling once per
 * process (one atomic load after the first time).  The first time, it waits
 * for the writer thread (at most 1 s): the caller may hold graph_lock or
 * ipc_lock, which the writer never takes, and no other gpuleak lock. */
void gl_driver_view_arm_exit(void);

/* The view sampled when exit() began, or NULL (not sampled, or not in time). */
const struct gl_driver_view *gl_driver_view_at_exit(void);

void gl_driver_view_postfork_child(void);

#endif
