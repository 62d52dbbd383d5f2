/* gpuleak's C functions that Python calls (torch_callbacks.c): an atexit
 * callback that keeps the view the exit snapshot carries, the optimizer
 * step hook (control/torch_steps.h), and PyTorch's out-of-memory observer,
 * which writes an out-of-memory snapshot with its own answer and figures
 * (TORCH_OOM) on the failing thread: docs/pytorch.md. */
#ifndef GL_CONTROL_TORCH_CALLBACKS_H
#define GL_CONTROL_TORCH_CALLBACKS_H

#include "python/pyapi.h"

/* On Python's main thread, in the probe's pending call, once torch is
 * found: registers the three, each once per process (a fork child inherits
 * them with the rest of Python's state).  The program's exception, if one
 * lands meanwhile, is left in *escaped when there was none. */
void gl_torch_register_callbacks(struct gl_py_exc *escaped);

#endif
