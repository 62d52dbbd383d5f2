/* Writing a snapshot: copy the state in the exclusive section (brief), then encode and
 * write it outside any lock that allocating threads need. */
#ifndef GL_SNAPSHOT_H
#define GL_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "control/torch_decode.h" /* struct gl_torch_view */
#include "cuda/driver_view.h"      /* struct gl_mem_view */

/* Captures process facts that must be read early (command line, working
 * directory for relative output names).  Called at activation. */
void gl_procinfo_init(void);

/* Writes one snapshot.  path NULL: the next name from GPULEAK_OUTPUT.
 * Returns 0, or -1 with a one-line warning already printed.  flags:
 * GL_SNAP_F_* from snapshot_format.h.  Serialized: one snapshot at a time.
 * torch: PyTorch's view, collected by the caller with no lock held
 * (control/take.h); NULL or status 0: no TORCH record.  Nothing here asks
 * PyTorch. */
int gl_snapshot_write(uint32_t reason, uint32_t flags, const char *path, const struct gl_torch_view *torch);

/* The same, with the driver's view of one device's memory, known to the
 * caller (an out-of-memory snapshot taken on the failing thread). */
int gl_snapshot_write_with(uint32_t reason, uint32_t flags, const char *path,
                           const struct gl_mem_view *mem, const struct gl_torch_view *torch);

/* The same, telling which file it wrote: its name (absolute when it came
 * from GPULEAK_OUTPUT), to report it or to remove it later only if it is
 * still that file. */
struct gl_snapshot_file {
    char path[4096];
    uint64_t dev, ino;
    /* Created by this write: false for a device, a FIFO or a stream written
     * in place (outfile.h), which nothing may ever remove. */
    bool ours;
};
int gl_snapshot_write_file(uint32_t reason, uint32_t flags, const char *path,
                           struct gl_snapshot_file *written, const struct gl_torch_view *torch);

/* fork: the child numbers its snapshots from 0 again. */
void gl_snapshot_postfork_child(void);

#endif
