/* Python frames for allocations made from Python.
 *
 * When the process runs CPython (3.10 to 3.13), each captured stack gets the
 * calling thread's Python frames (file, line, function), merged into the
 * native stack where the interpreter's own frames are, so a stack reads
 * "user code -> framework -> CUDA".  Why and how this is safe without the GIL
 * is explained in docs/python-frames.md; in short, a thread only ever reads
 * its own frame chain, which nothing else can change while the thread is
 * inside our hook, and never calls into the interpreter except for the pure
 * PyCode_Addr2Line.  GPULEAK_PYTHON=0 turns it off.
 *
 * A Python frame is interned once (by content) and appears in a stack as a
 * tagged pseudo program counter: GL_PYFRAME_TAG | id. */
#ifndef GL_PYFRAMES_H
#define GL_PYFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snapshot_format.h"

/* Looks for a supported interpreter in the process (cheap when called again:
 * it re-checks at most once a second until one is found). */
void gl_py_detect(void);

/* The interpreter's code, [*start, *end) (libpython, or the python
 * executable when libpython is linked in); empty when not known.  A range,
 * not a predicate: merging tests every native frame of every Python stack,
 * and a call per frame cost more than the Python walk itself. */
void gl_py_interpreter_range(uintptr_t *start, uintptr_t *end);

/* The calling thread's innermost Python frame, or NULL (not Python, or not
 * a Python thread): asked first, so that a thread with no Python frames
 * pays nothing more. */
void *gl_py_top_frame(void);

/* The Python frames from top (gl_py_top_frame's) outwards, innermost first,
 * as tagged pseudo-pcs; returns how many were stored in out[0..max), and
 * writes nothing more. */
size_t gl_py_capture(void *top, uintptr_t *out, size_t max);

/* The longest file or function name a frame given as text keeps, in bytes
 * (a walk's are cut near there too): longer ones are cut, so equal frames
 * from either source are equal text. */
#define GL_PY_MAX_TEXT 1019

/* Interned frames, for the snapshot: calls fn for each. */
void gl_py_for_each(void (*fn)(uint32_t id, uint32_t line, const char *file, size_t file_len,
                               const char *func, size_t func_len, void *arg),
                    void *arg);

/* The same for the frames whose ids are in ids (sorted, descending,
 * distinct): the live file's, a few among many; ids not interned are
 * skipped. */
void gl_py_for_ids(const uint32_t *ids, size_t n,
                   void (*fn)(uint32_t id, uint32_t line, const char *file, size_t file_len,
                              const char *func, size_t func_len, void *arg),
                   void *arg);

/* fork: the child must not inherit the intern lock held by another thread. */
void gl_py_postfork_child(void);

#endif
