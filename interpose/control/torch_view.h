/* PyTorch's caching allocator as it sees itself, for a snapshot: its
 * segments and blocks, with the Python stack of each live block, asked
 * through PyTorch's own Python API (torch.cuda.memory._snapshot()) on a
 * thread that runs Python, never from a signal handler, never while a lock
 * of ours is held, never from inside a CUDA hook.  Why this is safe, and the
 * PyTorch versions it relies on: docs/pytorch.md.
 *
 * A process without Python, or whose Python never imported
 * torch.cuda.memory, gets no TORCH record.  GPULEAK_TORCH=0 turns it off. */
#ifndef GL_TORCH_VIEW_H
#define GL_TORCH_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/view_stacks.h"

struct gl_torch_block {
    uint64_t segment, address, size, requested_size;
    uint32_t stack_id; /* a stack of Python frames in the view's own table; 0: none */
    int32_t device;
    uint16_t state; /* enum gl_torch_block_state */
    uint16_t flags; /* GL_TORCH_BLOCK_F_*: its segment was made before the attach */
};

/* PyTorch's out-of-memory observer's figures (TORCH_OOM): the device, the
 * bytes it asked CUDA for, what it may use there, the driver's free memory
 * then.  present false: not an observer's snapshot. */
struct gl_torch_oom {
    bool present;
    int32_t device;
    uint64_t request, allowed, free;
};

struct gl_torch_view {
    uint32_t status; /* enum gl_torch_status; 0: nothing to write (no torch, or not asked) */
    uint32_t segments;
    uint64_t reserved_bytes, allocated_bytes;
    uint64_t age_us; /* 0: asked for this snapshot; else how old the last view is */
    /* max_memory_allocated() and max_memory_reserved() summed over the
     * devices; 0: not known */
    uint64_t max_allocated_bytes, max_reserved_bytes;
    /* PyTorch's allocator_settings as TORCH_SETTINGS' tail: nsettings
     * times (u32 length + "key=value"), malloc'd; NULL: none */
    uint32_t nsettings;
    size_t settings_len;
    char *settings;
    struct gl_torch_oom oom;
    size_t nblocks;
    struct gl_torch_block *blocks;
    /* The blocks' stacks and their Python frames, this view's only: written
     * into its snapshot alone, numbered after the process's own there
     * (control/snapshot.c), and freed with the view, so a later snapshot
     * does not carry them (issue 34, defect 8). */
    struct gl_view_stacks stacks;
};

/* An allocation succeeded (called by the hooks, inside the hook, maybe with
 * the framework's allocator mutex held): at a thread's 1st, 2nd, 4th, 8th...
 * allocation (64 looks in the process at most), in a Python process that
 * loaded libc10_cuda.so, until PyTorch is found, queues ONE
 * Python pending call (Py_AddPendingCall, the only thing done here) that
 * turns PyTorch's history recording on with Python stacks if
 * torch.cuda.memory is imported and the program has not turned it on
 * itself.  Once done, or in a process without Python, one atomic load. */
void gl_torch_note_alloc(void);

/* PyTorch's first CUDA use (cudaGetDeviceCount: torch.cuda.is_available()
 * and torch.cuda's initialization call it before any allocation), when the
 * recorder is to be on from the start (GPULEAK_TORCH_LINES=start, or the
 * program asked for lines before): queues the early probe, which turns it
 * on inside torch.cuda's initialization, so that the first tensor has its
 * line too.  Until PyTorch is found, then one atomic load. */
void gl_torch_note_cuda_use(void);

/* GPULEAK_TORCH_LINES=request: a request for history or a snapshot came,
 * so PyTorch's recorder is turned on (now, through a pending call, when
 * PyTorch was already found; else when the probe finds it).  Any thread,
 * no lock held. */
void gl_torch_want_lines(void);
/* The same, asked by the program (gpuleak_memory._record_memory_history()):
 * obeyed even with GPULEAK_TORCH_LINES=never. */
void gl_torch_user_wants_lines(void);

/* Whether the step hook may sample lines (control/torch_steps.h): with
 * GPULEAK_TORCH_LINES=request (the default) while gpuleak does not keep
 * PyTorch's recorder on for good (a request, or lines wanted, turned it on);
 * never with start (on from the first tensor) nor never (light mode).  Any
 * thread. */
bool gl_torch_lines_sampling_allowed(void);

/* Asks PyTorch for its view, for a snapshot taken for `reason` (signal,
 * periodic, request and detach snapshots ask -- the detach's as the attach
 * does, its answer waited for 20 s at most and turning no recorder on;
 * exit and fatal-signal ones,
 * and the follow-up of a signal snapshot whose main thread was busy in C,
 * get the last view PyTorch gave, with its age: the one the atexit
 * callback took, at a normal exit).  Called with no lock of ours
 * held; waits at most GL_TORCH_WAIT_MS for Python's main thread to start
 * answering (GL_TORCH_ANSWER_WAIT_MS in all once it has), and only
 * in a process where torch.cuda.memory was seen (a Python program without
 * torch never waits: its main thread is not asked, except by a snapshot
 * requested from a Python thread, which asks on that thread).  *out is
 * filled (status 0 when there is nothing to write); free it with
 * gl_torch_view_free, which frees its stacks too. */
#define GL_TORCH_WAIT_MS 2000
#define GL_TORCH_ANSWER_WAIT_MS 60000
void gl_torch_collect(uint32_t reason, struct gl_torch_view *out);
void gl_torch_view_free(struct gl_torch_view *v);

/* PyTorch's out-of-memory observer (registered once torch is found, with
 * the exit view): PyTorch calls it on the failing thread, with the GIL and
 * without its allocator's lock, just before it raises
 * torch.OutOfMemoryError.  It asks PyTorch for its view there and writes an
 * out-of-memory snapshot carrying it and the observer's figures (TORCH_OOM),
 * unless GPULEAK_OOM_SNAPSHOT=0; at most one in GPULEAK_OOM_INTERVAL, as
 * the CUDA-level ones (gl_trigger_torch_oom). */

/* `gpuleak attach`, on gpuleak's own thread once the hooks are in place:
 * asks PyTorch for its view as a snapshot does (a pending call, answered
 * when Python's main thread runs bytecode), waiting GL_TORCH_WAIT_MS at
 * most for the main thread to start answering and 20 s for its answer.
 * Its segments then, less those gpuleak saw made, are PyTorch's
 * part of the memory made before the attach (cuda/before_attach.h); the
 * view is kept, and the first snapshot that gets no answer of its own
 * carries it with its age.  Answered later, the first answer PyTorch gives
 * serves it.  Nothing in a process without torch's libc10_cuda. */
void gl_torch_attach_ask(void);

/* `gpuleak detach`: when gpuleak turned PyTorch's history recorder on
 * (a request while attached), it is turned off again, on Python's main
 * thread at its next bytecode, so that the job runs as fast as before the
 * attach.  A recorder the program turned on itself is left on. */
void gl_torch_detach(void);

/* fork: the child has no request in flight (its asker, the writer thread,
 * is gone) and asks again with a fresh semaphore; it drops the parent's
 * last view, which is not its memory. */
void gl_torch_postfork_child(void);

#endif
