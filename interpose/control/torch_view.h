/* PyTorch's caching allocator as it sees itself, for a snapshot: its
 * segments and blocks, with the Python stack of each live block, asked
 * through PyTorch's own Python API (torch.cuda.memory._snapshot()) on a
 * thread that runs Python, never from a signal handler, never while a lock
 * of ours is held, never from inside a CUDA hook.  Why this is safe, and the
 * PyTorch versions it relies on: docs/pytorch.md.
 *
 * A process without Python, or whose Python never imported
 * torch.cuda.memory, gets no TORCH record.  GPULEAK_TORCH=0 turns it off.
 *
 * This file asks; the others of PyTorch's part each do one job:
 * torch_recorder (the probe, the history recorder on and off),
 * torch_callbacks (the functions Python calls back), torch_answer (the
 * collect snippet, the kept view, the attach's share), torch_decode (the
 * answer's bytes to a view), torch_state (the flags they share), all on
 * python/pyapi (the C API). */
#ifndef GL_TORCH_VIEW_H
#define GL_TORCH_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control/torch_decode.h"   /* the view */
#include "control/torch_recorder.h" /* what the hooks tell */

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
 * gl_torch_view_free (torch_decode.h), which frees its stacks too.
 * The caller passes it to the snapshot writer (control/take.c); the
 * snapshot files themselves never ask. */
#define GL_TORCH_WAIT_MS 2000
#define GL_TORCH_ANSWER_WAIT_MS 60000
void gl_torch_collect(uint32_t reason, struct gl_torch_view *out);

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

/* fork: the child has no request in flight (its asker, the writer thread,
 * is gone) and asks again with a fresh semaphore; it drops the parent's
 * last view, which is not its memory. */
void gl_torch_postfork_child(void);

#endif
