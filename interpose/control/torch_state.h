/* What gpuleak knows of PyTorch in this process, in one place: the flags the
 * probe, the recorder, the asking of views and the attach share
 * (control/torch_*.c).  Each is an atomic read and written from any thread
 * with no lock: the hooks read some of them on every allocation, and
 * Python's main thread writes them in pending calls.  A fork child starts
 * from gl_torch_state_postfork_child's values. */
#ifndef GL_CONTROL_TORCH_STATE_H
#define GL_CONTROL_TORCH_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct gl_torch_state {
    /* ---- finding PyTorch (torch_recorder.c) ---- */
    _Atomic int probe_done;        /* PyTorch found (or given up): allocations pay one load */
    _Atomic uint32_t probes;       /* looks taken by allocations, all threads (PROBE_MAX) */
    _Atomic uint32_t early_probes; /* the early probe's own budget: the allocations' looks are not spent */
    atomic_bool probe_queued;      /* one pending probe at a time */
    atomic_bool torch_seen;        /* torch.cuda.memory was imported: a snapshot asks, and waits */

    /* ---- PyTorch's history recorder (torch_recorder.c) ---- */
    /* GPULEAK_TORCH_LINES=request: set by the first request, so that the
     * recorder is turned on then, or by the probe when it finds PyTorch
     * after a request; false again once on (or the program's own). */
    atomic_bool lines_wanted;
    atomic_bool lines_deferred;      /* the probe found PyTorch and left its recorder off */
    _Atomic uint64_t last_alloc_ns;  /* the last allocation since then (growth counts as a request) */
    atomic_bool recorder_queued;     /* the early probe left it to torch.cuda's initialization */
    /* gpuleak itself turned the recorder on (the probe or a request
     * answered 'e'), so a detach turns it off again. */
    atomic_bool recorder_ours;
    /* gpuleak_memory._record_memory_history() was called: the program asked
     * for lines itself, which even GPULEAK_TORCH_LINES=never obeys. */
    atomic_bool user_asked_lines;

    /* ---- the attach's question (torch_answer.c, docs/attach.md) ---- */
    /* `gpuleak attach` asked and no answer has served it yet: the next
     * answer, whoever asked it, is the attach's too. */
    atomic_bool attach_answer_wanted;
    /* The attach's answer, kept as the last view, has been carried by no
     * snapshot yet: the first one that gets no answer of its own carries it. */
    atomic_bool attach_view_unclaimed;

    /* ---- asking Python's main thread (torch_view.c) ---- */
    /* The asker gave up on the main thread: the reason of its snapshot, so
     * that the pending call, when it runs, still answers once and its view
     * reaches a snapshot.  0: nothing given up on. */
    _Atomic uint32_t late_reason;
    /* A late answer is kept for the follow-up signal snapshot, which
     * carries it instead of asking again. */
    atomic_bool followup;
    /* The detach's snapshot is asking: its answer turns no recorder on. */
    atomic_bool detach_asking;
};

extern struct gl_torch_state gl_torch;

/* Whether gpuleak may turn PyTorch's recorder on when asked: not with
 * GPULEAK_TORCH_LINES=never, unless the program asked for history itself. */
bool gl_torch_lines_allowed(void);

/* Whether the recorder is to be on from PyTorch's first tensor:
 * GPULEAK_TORCH_LINES=start, or lines asked for before PyTorch was found. */
bool gl_torch_record_from_start(void);

/* Whether the step hook may sample lines (control/torch_steps.h): with
 * GPULEAK_TORCH_LINES=request (the default) while gpuleak does not keep
 * PyTorch's recorder on for good (a request, or lines wanted, turned it on);
 * never with start (on from the first tensor) nor never (light mode).  Any
 * thread. */
bool gl_torch_lines_sampling_allowed(void);

/* fork: no probe or question in flight in the child, no view of the
 * parent's to carry, no attach of the parent's to serve. */
void gl_torch_state_postfork_child(void);

#endif
