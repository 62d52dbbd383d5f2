/* The snapshot's records, written in stages: one row per record type, in
 * file order, each with the function that writes it (snapshot_stages.c).
 * The writer's table is the reader's: every record type of the format's
 * list (GL_RECORD_LIST, common/snapshot_fields.h) has a row here and every
 * row is a type of that list, checked when snapshot_stages.c is compiled and
 * by tests/unit/snapshot_stages.c.  A record only an older writer wrote
 * (none today) would have no row: it would be listed beside the check, with
 * its reason. */
#ifndef GL_SNAPSHOT_STAGES_H
#define GL_SNAPSHOT_STAGES_H

#include <stddef.h>
#include <stdint.h>

#include "control/snapshot_writer.h"

/* X(RECORD, stage): GL_REC_<RECORD> is written by write_<stage>, in this
 * order.  The process's Python frames come before PyTorch's view's frames
 * and stacks, which are numbered after the process's; the labels follow the
 * history that names them; PyTorch's blocks, settings and out-of-memory
 * follow its TORCH record.  PROCESS is first and END last (the format). */
#define GL_SNAPSHOT_STAGES(X)                                                  \
    X(PROCESS, process)                                                        \
    X(ENV, env)                                                                \
    X(SAMPLING, sampling)                                                      \
    X(MODULE, modules)                                                         \
    X(PYFRAME, pyframes)                                                       \
    X(STACK, stacks)                                                           \
    X(ALLOCS, allocs)                                                          \
    X(DEVICES, devices)                                                        \
    X(POOLS, pools)                                                            \
    X(PEAK, peaks)                                                             \
    X(EVENTS, events)                                                          \
    X(LABEL, labels)                                                           \
    X(VMM, vmm)                                                                \
    X(BAD_FREES, bad_frees)                                                    \
    X(CALLS, calls)                                                            \
    X(TEARDOWN, teardowns)                                                     \
    X(TORCH, torch)                                                            \
    X(TORCH_BLOCKS, torch_blocks)                                              \
    X(TORCH_SETTINGS, torch_settings)                                          \
    X(TORCH_OOM, torch_oom)                                                    \
    X(TORCH_STEP, torch_steps)                                                 \
    X(END, end)

struct gl_bad_free;
struct gl_driver_view;
struct gl_mem_view;
struct gl_module_list;
struct gl_state_copy;
struct gl_teardown;
struct gl_torch_view;

/* What one snapshot is written from, gathered by snapshot.c. */
struct gl_snap_inputs {
    uint32_t reason, flags; /* GL_REASON_*, GL_SNAP_F_* */
    uint64_t index;         /* the snapshot's number, the %n of its name */
    uint64_t snap_unix, snap_mono; /* when: taken after the state copy */
    const char *cmdline;    /* NUL-separated argv */
    size_t cmdline_len;
    const char *exe_path;
    const struct gl_module_list *mods;
    const struct gl_state_copy *copy;
    const struct gl_mem_view *mem;         /* the caller's view of one device, or NULL */
    const struct gl_driver_view *view;     /* the driver's, or NULL: not asked */
    const struct gl_torch_view *torch;     /* PyTorch's, or NULL */
    const struct gl_bad_free *bad;         /* NULL: none */
    size_t nbad;
    const struct gl_teardown *torn;        /* NULL: none */
    size_t ntorn;
};

/* Writes the file header and every stage's records, END last; errors are
 * in w->err.  w is zeroed up to its buffer, its fd set. */
void gl_snapshot_write_stages(struct gl_snap_writer *w, const struct gl_snap_inputs *in);

#endif
