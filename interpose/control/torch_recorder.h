/* PyTorch's history recorder, on and off (torch_recorder.c): the probe
 * that finds PyTorch from the allocations' hooks and, per
 * GPULEAK_TORCH_LINES, turns the recorder on with Python stacks
 * (start), leaves it for a request (request) or never (never); a request
 * turning it on; a detach turning gpuleak's recorder off.  Each change runs
 * on Python's main thread through a pending call: docs/pytorch.md. */
#ifndef GL_CONTROL_TORCH_RECORDER_H
#define GL_CONTROL_TORCH_RECORDER_H

#include "python/pyapi.h"

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

/* `gpuleak detach`: when gpuleak turned PyTorch's history recorder on
 * (a request while attached), it is turned off again, on Python's main
 * thread at its next bytecode, so that the job runs as fast as before the
 * attach.  A recorder the program turned on itself is left on. */
void gl_torch_detach(void);

/* On Python's main thread, with the GIL, after an answer: turns the
 * recorder on now when the probe left it off and lines are allowed (that
 * snapshot's tensors have no lines; the next one's new tensors do).  The
 * program's exception, if one lands, in *escaped. */
void gl_torch_start_lines_here(struct gl_py_exc *escaped);

#endif
