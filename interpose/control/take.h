/* A snapshot taken: PyTorch's view collected (control/torch_view.h) with no
 * lock of ours held, then passed into the snapshot writer
 * (control/snapshot.h), which asks nothing of PyTorch itself.  What every
 * caller that writes a snapshot calls: the writer thread, the exit and fork
 * paths, the public API. */
#ifndef GL_CONTROL_TAKE_H
#define GL_CONTROL_TAKE_H

#include <stdint.h>

#include "control/snapshot.h"

/* As gl_snapshot_write (path NULL: the next name from GPULEAK_OUTPUT; 0, or
 * -1 with a one-line warning printed), with the driver's view of one
 * device when the caller knows it (mem, NULL: none), telling which file it
 * wrote when written is not NULL. */
int gl_take_snapshot(uint32_t reason, uint32_t flags, const char *path, const struct gl_mem_view *mem,
                     struct gl_snapshot_file *written);

#endif
