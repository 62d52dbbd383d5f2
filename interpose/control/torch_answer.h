/* PyTorch's answer: the collect snippet that asks torch.cuda.memory for its
 * view, the last answer kept for snapshots that cannot ask (exit, fatal
 * signal, exec, out-of-memory), and the attach's share of an answer
 * (torch_answer.c).  Asking Python's main thread is torch_view.c's. */
#ifndef GL_CONTROL_TORCH_ANSWER_H
#define GL_CONTROL_TORCH_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

#include "control/torch_decode.h"
#include "python/pyapi.h"

/* Runs the collect snippet here, with the GIL: the answer's bytes
 * (torch_decode.h), 'X' when _snapshot() raised, NULL when there is no
 * caching allocator to ask.  The program's exception as gl_pyapi_run. */
char *gl_torch_ask_here(size_t *len, struct gl_py_exc *escaped);

/* The answer says _snapshot() raised, or the question was interrupted. */
bool gl_torch_answer_failed(const char *buf, size_t len);

/* What the asker reads as "_snapshot() raised": frees partial, returns a
 * malloc'd 'X' (NULL, *len 0, when memory ran out). */
char *gl_torch_interrupted_answer(char *partial, size_t *len);

/* Keeps a copy of an answer as the last view, with the time it was taken. */
void gl_torch_keep_view(const char *buf, size_t len);

/* The last view into *out (zeroed), with its age (at least 1 us) and status
 * answered; false, *out empty, when there is none.  The view stays kept. */
bool gl_torch_decode_kept(struct gl_torch_view *out);

/* Any answer (not 'X') serves the attach's question while it waits: its
 * segments are the ones PyTorch made before the attach, and the view is
 * kept for the first snapshot.  buf NULL: no caching allocator. */
void gl_torch_serve_attach(const char *buf, size_t len);

/* Blocks in segments made before the attach get their flag. */
void gl_torch_mark_before_attach(struct gl_torch_view *v);

/* fork: the parent's kept view is dropped. */
void gl_torch_answer_postfork_child(void);

#endif
