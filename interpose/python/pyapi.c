#include "python/pyapi.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/libc_dl.h"
#include "base/modules.h"

/* ---- the few C API functions used, found in the process --------------- */

/* Only stable, documented entry points, present in every CPython 3 (no
 * struct layout is read here): PyGILState_STATE is an enum, passed as int;
 * Py_file_input is 257 in every version.  PyExc_Exception is a variable
 * (a PyObject *), found by its address and read when used. */
#define PY_FILE_INPUT 257
struct py_api {
    int (*is_initialized)(void);
    int (*add_pending)(int (*)(void *), void *);
    int (*gil_ensure)(void);
    void (*gil_release)(int);
    void *(*this_tstate)(void);
    void *(*compile)(const char *, const char *, int);
    void *(*eval_code)(void *, void *, void *);
    void *(*builtins)(void);
    void *(*dict_new)(void);
    int (*dict_set)(void *, const char *, void *);
    void *(*dict_get)(void *, const char *);
    int (*bytes_get)(void *, char **, ssize_t *);
    void (*decref)(void *);
    void (*err_clear)(void);
    int (*err_matches)(void *);
    void (*err_fetch)(void **, void **, void **);
    void (*err_restore)(void *, void *, void *);
    int (*set_async_exc)(unsigned long, void *);
    unsigned long (*thread_ident)(void);
    void **exc_exception;
};
static struct py_api py;
/* 0: not found yet; 1: a thread is looking; 2: found, py is set and never
 * written again.  One thread looks at a time (the others answer "not yet"),
 * so py is written by one thread, before the release that publishes it. */
static _Atomic int py_state;

static bool py_find(struct py_api *a)
{
#define FIND(field, name)                                                       \
    if ((*(void **)&a->field = gl_libc_dlsym(RTLD_DEFAULT, name)) == NULL)      \
        return false;
    FIND(is_initialized, "Py_IsInitialized")
    FIND(add_pending, "Py_AddPendingCall")
    FIND(gil_ensure, "PyGILState_Ensure")
    FIND(gil_release, "PyGILState_Release")
    FIND(this_tstate, "PyGILState_GetThisThreadState")
    FIND(compile, "Py_CompileString")
    FIND(eval_code, "PyEval_EvalCode")
    FIND(builtins, "PyEval_GetBuiltins")
    FIND(dict_new, "PyDict_New")
    FIND(dict_set, "PyDict_SetItemString")
    FIND(dict_get, "PyDict_GetItemString")
    FIND(bytes_get, "PyBytes_AsStringAndSize")
    FIND(decref, "Py_DecRef")
    FIND(err_clear, "PyErr_Clear")
    FIND(err_matches, "PyErr_ExceptionMatches")
    FIND(err_fetch, "PyErr_Fetch")
    FIND(err_restore, "PyErr_Restore")
    FIND(set_async_exc, "PyThreadState_SetAsyncExc")
    FIND(thread_ident, "PyThread_get_thread_ident")
    FIND(exc_exception, "PyExc_Exception")
#undef FIND
    return true;
}

bool gl_pyapi_ready(void)
{
    if (atomic_load_explicit(&py_state, memory_order_acquire) != 2) {
        int idle = 0;
        if (!atomic_compare_exchange_strong(&py_state, &idle, 1))
            return false; /* another thread is looking now */
        struct py_api found;
        if (!py_find(&found)) {
            atomic_store(&py_state, 0); /* Python may come later (embedding) */
            return false;
        }
        py = found;
        atomic_store_explicit(&py_state, 2, memory_order_release);
    }
    /* A flag of the runtime: readable from any thread, GIL or not. */
    return py.is_initialized() != 0;
}

/* PyTorch's CUDA allocator lives in libc10_cuda.so, which `import torch`
 * loads (torch._C needs it) in every CUDA build.  Seen in the loader's list
 * without the GIL, it keeps a Python process that never imported torch from
 * ever being sent a pending call. */
static int find_c10_cuda(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *name = info->dlpi_name, *slash = name ? strrchr(name, '/') : NULL;
    const char *base = slash ? slash + 1 : name;
    if (base != NULL && strncmp(base, "libc10_cuda", 11) == 0) {
        *(bool *)data = true;
        return 1;
    }
    return 0;
}

bool gl_pyapi_c10_cuda_loaded(void)
{
    static atomic_bool seen; /* torch is never unloaded once imported */
    if (atomic_load_explicit(&seen, memory_order_relaxed))
        return true;
    bool found = false;
    gl_loader_walk(find_c10_cuda, &found);
    if (found)
        atomic_store(&seen, true);
    return found;
}

/* The snippet raised: an Exception is the query's own failure, cleared
 * (the snippets catch those themselves; this is for their imports).  Any
 * other BaseException -- KeyboardInterrupt or SystemExit from the
 * program's signal handler, which Python runs inside the snippet when the
 * signal lands while it runs on the main thread, or an asynchronous
 * exception aimed at the thread -- is the program's: kept for the caller to
 * hand back. */
static void keep_programs_exception(struct gl_py_exc *escaped)
{
    if (py.err_matches(*py.exc_exception))
        py.err_clear();
    else
        py.err_fetch(&escaped->type, &escaped->value, &escaped->tb);
}

/* Runs `code` in a fresh namespace (the program's are never touched; `fn`,
 * when not NULL, is its `_f`) and returns a malloc'd copy of the bytes it left in `_r`: NULL with *len 0
 * when `_r` is None or not bytes.  With the GIL held.  An Exception never
 * escapes; the program's own BaseException is left in *escaped (its
 * references are the caller's).  Compiled and evaluated, not run with
 * PyRun_String*: those set CPython's "unhandled KeyboardInterrupt" flag
 * when a KeyboardInterrupt leaves them, and python3 then kills itself
 * with SIGINT at exit even if the program caught it. */
char *gl_pyapi_run(const char *code, void *fn, size_t *len, struct gl_py_exc *escaped)
{
    *len = 0;
    memset(escaped, 0, sizeof *escaped);
    char *copy = NULL;
    void *globals = py.dict_new(), *builtins = py.builtins(), *compiled = NULL;
    if (globals == NULL || builtins == NULL || py.dict_set(globals, "__builtins__", builtins) != 0 ||
        (fn != NULL && py.dict_set(globals, "_f", fn) != 0) || (compiled = py.compile(code, "<gpuleak>", PY_FILE_INPUT)) == NULL) {
        py.err_clear();
        py.decref(globals); /* Py_DecRef(NULL) does nothing */
        return NULL;
    }
    void *result = py.eval_code(compiled, globals, globals);
    py.decref(compiled);
    if (result == NULL)
        keep_programs_exception(escaped);
    else
        py.decref(result);
    void *r = py.dict_get(globals, "_r"); /* borrowed */
    char *data;
    ssize_t n;
    if (r != NULL && py.bytes_get(r, &data, &n) == 0 && n > 0 && (copy = malloc((size_t)n)) != NULL) {
        memcpy(copy, data, (size_t)n);
        *len = (size_t)n;
    }
    py.err_clear(); /* bytes_get on None sets TypeError */
    py.decref(globals);
    return copy;
}

/* Python's main thread, as the pending calls (which only it runs) saw it;
 * 0 until one ran, and in a fork child, where the forking thread is
 * Python's main thread and the process's first (tid == pid). */
static _Atomic unsigned long python_main_thread;

void gl_pyapi_note_main_thread(void)
{
    atomic_store(&python_main_thread, py.thread_ident());
}

static bool on_python_main_thread(void)
{
    unsigned long main = atomic_load(&python_main_thread);
    return main != 0 ? main == py.thread_ident() : gl_gettid() == (uint32_t)getpid();
}

/* In a pending call, on Python's main thread: the program's exception is
 * raised there as CPython raises its own signal handlers' exceptions, by
 * the pending call returning -1 with it set: at the bytecode boundary
 * where the call ran, for the program to catch or die of. */
int gl_pyapi_raise_in_program(struct gl_py_exc *e)
{
    if (e->type == NULL)
        return 0;
    py.err_restore(e->type, e->value, e->tb); /* steals the references */
    return -1;
}

/* The program's exception from a query run on the requesting thread
 * (gpuleak_snapshot() through ctypes, which returns no exception), waiting
 * with the GIL to be raised on Python's main thread by reraise_call. */
static struct gl_py_exc held;

static int reraise_call(void *arg)
{
    (void)arg;
    gl_pyapi_note_main_thread();
    struct gl_py_exc e = held;
    memset(&held, 0, sizeof held);
    return gl_pyapi_raise_in_program(&e);
}

void gl_pyapi_drop(struct gl_py_exc *e)
{
    py.decref(e->type);
    py.decref(e->value);
    py.decref(e->tb);
}

/* With the GIL, on the thread that asked.  On Python's main thread (where
 * signal handlers run, so where KeyboardInterrupt and SystemExit come
 * from): the exception itself, value and traceback, is raised by a
 * pending call at the thread's next bytecode boundary after the ctypes
 * call returns -- where Python would have run the handler had gpuleak not
 * been there.  A second one before the first is raised is dropped, as
 * Python would not get past the first.  On another thread (an asynchronous
 * exception aimed at it; signal handlers never run there) and if the
 * pending call cannot be queued: PyThreadState_SetAsyncExc with its type,
 * raised in the same thread at its next boundary, which is how an
 * asynchronous exception is raised anyway. */
void gl_pyapi_hand_back(struct gl_py_exc *e)
{
    if (on_python_main_thread()) {
        if (held.type != NULL) {
            gl_pyapi_drop(e);
            return;
        }
        held = *e;
        if (py.add_pending(reraise_call, NULL) == 0)
            return;
        memset(&held, 0, sizeof held);
    }
    py.set_async_exc(py.thread_ident(), e->type);
    gl_pyapi_drop(e);
}


int gl_pyapi_add_pending(int (*fn)(void *), void *arg) { return py.add_pending(fn, arg); }
bool gl_pyapi_thread_has_state(void) { return py.this_tstate() != NULL; }
int gl_pyapi_gil_ensure(void) { return py.gil_ensure(); }
void gl_pyapi_gil_release(int state) { py.gil_release(state); }
void gl_pyapi_decref(void *o) { py.decref(o); }
void gl_pyapi_err_clear(void) { py.err_clear(); }

void gl_pyapi_restore(struct gl_py_exc *e) { py.err_restore(e->type, e->value, e->tb); }

void gl_pyapi_keep_first(struct gl_py_exc *first, struct gl_py_exc *later)
{
    if (first->type == NULL)
        *first = *later;
    else if (later->type != NULL)
        gl_pyapi_drop(later);
}

void gl_pyapi_postfork_child(void)
{
    atomic_store(&python_main_thread, 0);
}
