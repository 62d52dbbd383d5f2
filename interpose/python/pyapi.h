/* The few Python C API functions gpuleak calls, found in the process, and
 * the snippet runner built on them (pyapi.c).  Only stable, documented entry
 * points present in every CPython 3; no struct layout is read.  Nothing here
 * knows PyTorch: control/torch_*.c write the snippets and read their answers
 * (docs/pytorch.md). */
#ifndef GL_PYTHON_PYAPI_H
#define GL_PYTHON_PYAPI_H

#include <stdbool.h>
#include <stddef.h>

/* Python is in the process (its C API found) and initialized.  The first
 * call looks the API up; one thread looks at a time, the others answer
 * false meanwhile.  Any thread, GIL or not. */
bool gl_pyapi_ready(void);

/* PyTorch's CUDA allocator (libc10_cuda.so, which `import torch` loads) is
 * in the loader's list: a Python process that never imported torch is never
 * sent a pending call.  Any thread, no lock of ours held. */
bool gl_pyapi_c10_cuda_loaded(void);

/* The thin wrappers, valid once gl_pyapi_ready() said true. */
int gl_pyapi_add_pending(int (*fn)(void *), void *arg); /* any thread, no GIL */
bool gl_pyapi_thread_has_state(void);                  /* PyGILState_GetThisThreadState */
int gl_pyapi_gil_ensure(void);
void gl_pyapi_gil_release(int state);
void gl_pyapi_decref(void *o);
void gl_pyapi_err_clear(void);

/* An exception of the program's that a snippet must not swallow, taken out
 * of the thread state (PyErr_Fetch) so that the C API can be called
 * meanwhile; type NULL: none. */
struct gl_py_exc {
    void *type, *value, *tb;
};

/* Runs `code` in a fresh namespace (the program's are never touched; `fn`,
 * when not NULL, is its `_f`) and returns a malloc'd copy of the bytes it
 * left in `_r`: NULL with *len 0 when `_r` is None or not bytes.  With the
 * GIL held.  An Exception never escapes; the program's own BaseException
 * (KeyboardInterrupt, SystemExit, an asynchronous exception) is left in
 * *escaped, its references the caller's. */
char *gl_pyapi_run(const char *code, void *fn, size_t *len, struct gl_py_exc *escaped);

/* Python's main thread is the calling one (a pending call runs only there). */
void gl_pyapi_note_main_thread(void);

/* In a pending call, on Python's main thread: returns what the pending call
 * returns so that the program's exception (if any) is raised at the
 * bytecode boundary where the call ran, as CPython raises its own signal
 * handlers' exceptions. */
int gl_pyapi_raise_in_program(struct gl_py_exc *e);

/* In a C function Python called (a callback): puts the exception back, for
 * the function to return NULL with it set. */
void gl_pyapi_restore(struct gl_py_exc *e);

/* With the GIL, on a thread that ran a snippet outside a pending call (a
 * ctypes call): the exception goes back to the program, on Python's main
 * thread by a pending call at its next bytecode boundary, elsewhere as an
 * asynchronous exception of the thread. */
void gl_pyapi_hand_back(struct gl_py_exc *e);

/* Drops the references (an exception that loses to an earlier one). */
void gl_pyapi_drop(struct gl_py_exc *e);

/* *first keeps the earlier of two exceptions; the later one is dropped. */
void gl_pyapi_keep_first(struct gl_py_exc *first, struct gl_py_exc *later);

/* fork: the child's main thread is not known until a pending call runs. */
void gl_pyapi_postfork_child(void);

#endif
