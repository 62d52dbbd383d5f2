/* PyTorch's optimizer steps, found with no code change (issue 45, item 1):
 * once torch is found (control/torch_view.c's probe, on Python's main
 * thread with the GIL), a global optimizer step post-hook of gpuleak's
 * (torch.optim.optimizer.register_optimizer_step_post_hook) hands each
 * step's light view to C: allocated and reserved, and the live tensor
 * bytes per Python line when PyTorch's recorder is on; after the first 64
 * steps, at a pace (control/torch_step_pace.h).  The first view and the
 * last GL_TORCH_STEPS_KEPT are kept in memory, never in a file of their
 * own; every snapshot carries them as TORCH_STEP records
 * (docs/pytorch.md, "Steps"). */
#ifndef GL_TORCH_STEPS_H
#define GL_TORCH_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One kept step: the TORCH_STEP record's fixed fields, and its tail (the
 * lines, already in the record's wire form). */
struct gl_torch_step {
    uint64_t step, time_ns, allocated, reserved;
    uint32_t flags, lines;
    /* the record's trailer: steps recorded so far (GL_TORCH_STEP_F_RECORDED,
     * this one included), and the K of the sampler then (0: not sampling) */
    uint64_t recorded_steps;
    uint32_t lines_every;
    size_t tail_len;
    unsigned char tail[];
};

/* The snippet that registers the hook, run with `_f` the function of
 * gl_torch_steps_hook_fn: `_r` is b"h" once registered, b"n" when this
 * torch has no global step hooks. */
extern const char gl_torch_steps_register_code[];

/* A new reference to the Python function the hook calls (`_f(None)`: is
 * gpuleak tracking now, the step's number, and whether to view it;
 * `_f(bytes)`: one step's view), or NULL when this
 * Python lacks the C API it needs.  With the GIL. */
void *gl_torch_steps_hook_fn(void);

/* The kept steps, oldest first, as copies (the hook may replace them
 * meanwhile): *n of them in a malloc'd array, each malloc'd; NULL and 0 when
 * none.  Free with gl_torch_steps_free.  Any thread, no lock. */
struct gl_torch_step **gl_torch_steps_copy(size_t *n);
void gl_torch_steps_free(struct gl_torch_step **steps, size_t n);

/* GPULEAK_STEP_INTERVAL (a duration, 100 ms to 30 days; off by default):
 * the same view per time window, for processes without an optimizer
 * (inference, servers).  At activation. */
void gl_torch_steps_configure(void);

/* Writer thread: milliseconds until a time window's view is due (0: now);
 * UINT64_MAX when GPULEAK_STEP_INTERVAL is off. */
uint64_t gl_torch_steps_window_wait_ms(void);

/* Writer thread: the window is due; queues one Python pending call that
 * takes the view on Python's main thread at its next bytecode boundary
 * (never on this thread), once the step hook was registered (PyTorch
 * found); and schedules the next window. */
void gl_torch_steps_window_run(void);

/* Whether the step hook's sampler has PyTorch's recorder on now (it turned
 * it on for a sampled step, GPULEAK_STEP_LINES_EVERY): a request that finds
 * the recorder on takes it over then (control/torch_view.c).  Any thread. */
bool gl_torch_steps_sampler_owns(void);

/* fork: the parent's steps are not the child's; it counts from 1 again. */
void gl_torch_steps_postfork_child(void);

#endif
