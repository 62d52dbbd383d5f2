#include "control/torch_view.h"

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/exit_guard.h"
#include "base/internal.h"
#include "base/libc_dl.h"
#include "base/modules.h"
#include "base/self.h"
#include "control/lifecycle.h"
#include "control/torch_steps.h"
#include "control/trigger.h"
#include "cuda/before_attach.h"
#include "snapshot_format.h"

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

static bool py_ready(void)
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

static bool c10_cuda_loaded(void)
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

/* An exception of the program's that the query must not swallow, taken
 * out of the thread state (PyErr_Fetch) so that the C API can be called
 * meanwhile; type NULL: none. */
struct py_exc {
    void *type, *value, *tb;
};

/* The snippet raised: an Exception is the query's own failure, cleared
 * (the snippets catch those themselves; this is for their imports).  Any
 * other BaseException -- KeyboardInterrupt or SystemExit from the
 * program's signal handler, which Python runs inside the snippet when the
 * signal lands while it runs on the main thread, or an asynchronous
 * exception aimed at the thread -- is the program's: kept for the caller to
 * hand back. */
static void keep_programs_exception(struct py_exc *escaped)
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
static char *run_snippet(const char *code, void *fn, size_t *len, struct py_exc *escaped)
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

static void note_main_thread(void)
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
static int raise_in_program(struct py_exc *e)
{
    if (e->type == NULL)
        return 0;
    py.err_restore(e->type, e->value, e->tb); /* steals the references */
    return -1;
}

/* The program's exception from a query run on the requesting thread
 * (gpuleak_snapshot() through ctypes, which returns no exception), waiting
 * with the GIL to be raised on Python's main thread by reraise_call. */
static struct py_exc held;

static int reraise_call(void *arg)
{
    (void)arg;
    note_main_thread();
    struct py_exc e = held;
    memset(&held, 0, sizeof held);
    return raise_in_program(&e);
}

static void drop(struct py_exc *e)
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
static void hand_back(struct py_exc *e)
{
    if (on_python_main_thread()) {
        if (held.type != NULL) {
            drop(e);
            return;
        }
        held = *e;
        if (py.add_pending(reraise_call, NULL) == 0)
            return;
        memset(&held, 0, sizeof held);
    }
    py.set_async_exc(py.thread_ident(), e->type);
    drop(e);
}

/* What the asker reads as "_snapshot() raised" ('X', as the snippet says
 * it): the query was interrupted before it had an answer. */
static char *interrupted_answer(char *partial, size_t *len)
{
    free(partial);
    char *x = malloc(1);
    *len = x != NULL;
    if (x != NULL)
        *x = 'X';
    return x;
}

/* ---- the last view PyTorch gave ------------------------------------------ */

/* An answer (the collect snippet's bytes) and when it was taken: what exit
 * and fatal-signal snapshots carry, since they cannot ask.  Replaced by
 * every answer; a reader takes it out (exchange), decodes it, and puts it
 * back unless a newer one came meanwhile, so no lock is shared with the
 * main thread and nothing is freed while read. */
struct kept_view {
    uint64_t taken_ns;
    size_t len;
    char bytes[];
};
static struct kept_view *_Atomic kept;

static void keep_view(const char *buf, size_t len)
{
    struct kept_view *k = malloc(sizeof *k + len);
    if (k == NULL)
        return;
    k->taken_ns = gl_mono_ns();
    k->len = len;
    memcpy(k->bytes, buf, len);
    free(atomic_exchange(&kept, k));
}

static bool decode(const char *buf, size_t len, struct gl_torch_view *v);

/* The last view into *out, with its age (at least 1 us: 0 means "asked for
 * this snapshot").  False, *out empty, when there is none. */
static bool decode_kept(struct gl_torch_view *out)
{
    struct kept_view *k = atomic_exchange(&kept, NULL);
    if (k == NULL)
        return false;
    bool ok = decode(k->bytes, k->len, out);
    if (ok) {
        uint64_t age = (gl_mono_ns() - k->taken_ns) / 1000u;
        out->status = GL_TORCH_ANSWERED;
        out->age_us = age != 0 ? age : 1;
    } else {
        gl_torch_view_free(out);
    }
    struct kept_view *none = NULL;
    if (!atomic_compare_exchange_strong(&kept, &none, k))
        free(k);
    return ok;
}

/* At exit: see below. */
static void register_exit_view(struct py_exc *escaped);
/* At each optimizer step: control/torch_steps.c. */
static void register_step_hook(struct py_exc *escaped);
static void register_oom_observer(struct py_exc *escaped);

/* ---- asked at the attach (docs/attach.md) ------------------------------- */

/* `gpuleak attach` asked PyTorch for its view and no answer has served it
 * yet: the next answer, whoever asked it, is the attach's too. */
static atomic_bool attach_answer_wanted;
/* The attach's answer, kept as the last view, has been carried by no
 * snapshot yet: the first one that gets no answer of its own carries it. */
static atomic_bool attach_view_unclaimed;

/* The segments of a decoded view, with their sizes: the blocks of one
 * segment are consecutive in the collect snippet's answer, and cover it. */
static size_t segments_of(const struct gl_torch_view *v, struct gl_pre_segment *segs)
{
    size_t n = 0;
    for (size_t i = 0; i < v->nblocks; i++) {
        const struct gl_torch_block *b = &v->blocks[i];
        if (n == 0 || segs[n - 1].address != b->segment)
            segs[n++] = (struct gl_pre_segment){b->segment, 0, b->device};
        segs[n - 1].size += b->size;
    }
    return n;
}

/* PyTorch's view answered the attach: its segments then, less those
 * gpuleak saw made, were made before the attach (cuda/before_attach.c
 * counts them and names their frees), and the view is kept for the first
 * snapshot.  The answer is read, not taken. */
static void note_attach_answer(const char *buf, size_t len)
{
    struct gl_torch_view v;
    memset(&v, 0, sizeof v);
    struct gl_pre_segment *segs = NULL;
    if (decode(buf, len, &v) && (segs = malloc((v.nblocks ? v.nblocks : 1) * sizeof *segs)) != NULL) {
        gl_before_attach_torch_listed(segs, segments_of(&v, segs));
        keep_view(buf, len);
        atomic_store(&attach_view_unclaimed, true);
    }
    free(segs);
    gl_torch_view_free(&v);
}

/* Any answer of PyTorch's (not 'X': interrupted, or _snapshot() raised) serves the attach's question
 * while it waits: one is enough. */
static void serve_attach(const char *buf, size_t len)
{
    if ((len == 1 && buf[0] == 'X') || !atomic_load(&attach_answer_wanted))
        return;
    if (!atomic_exchange(&attach_answer_wanted, false))
        return;
    if (buf != NULL)
        note_attach_answer(buf, len);
    else /* None: torch.cuda not initialized, or not the caching allocator: no segment */
        gl_before_attach_torch_listed(NULL, 0);
}

/* Blocks in segments made before the attach get their flag: a snapshot
 * names those segments so, and the ledger counts their tensors. */
static void mark_before_attach(struct gl_torch_view *v)
{
    if (!gl_before_attach_counting())
        return;
    for (size_t i = 0; i < v->nblocks; i++)
        if (gl_before_attach_torch_segment(v->blocks[i].segment))
            v->blocks[i].flags |= GL_TORCH_BLOCK_F_BEFORE_ATTACH;
}

/* ---- turning PyTorch's history recording on ----------------------------- */

/* `_r`: b"n" torch.cuda.memory not imported, or PyTorch's CUDA state not
 * initialized yet (another library made the allocation: recording turned on
 * before torch.cuda initializes would not reach the allocators it creates,
 * so the probe tries again at a later allocation); b"u" the program records
 * history itself (torch._C._cuda_isHistoryEnabled(), PyTorch 2.1 on;
 * before it, a block with frames or a trace entry tells); b"e" we
 * turned it on; b"d" PyTorch is ready and recording is left for later
 * (the look-only probe, GPULEAK_TORCH_LINES=request); b"x" it raised.
 * enabled="state" keeps only the live blocks' stacks (no trace ring to
 * grow), context="alloc" their allocation stacks, stacks="python" Python
 * frames only (no C++ unwinding, PyTorch's cheapest mode). */
#define PROBE_HEAD                                                                                   \
    "import sys as _s\n"                                                                             \
    "_m = _s.modules.get('torch.cuda.memory')\n"                                                     \
    "_c = _s.modules.get('torch.cuda')\n"                                                            \
    "_r = b'n'\n"                                                                                    \
    "if _m is not None and _c is not None and _c.is_initialized():\n"                                \
    "    try:\n"                                                                                     \
    "        _h = getattr(_s.modules.get('torch._C'), '_cuda_isHistoryEnabled', None)\n"              \
    "        if _h is not None:\n"                                                                   \
    "            _u = _h()\n"                                                                        \
    "        else:\n"                                                                                \
    "            _v = _m._snapshot()\n"                                                              \
    "            _u = any(_v.get('device_traces') or ()) or any(\n"                                  \
    "                _b.get('frames') for _g in _v.get('segments', ()) for _b in _g.get('blocks', ()))\n"
#define PROBE_TAIL                                                                                   \
    "    except Exception:\n"                                                                        \
    "        _r = b'x'\n"
static const char probe_enable_code[] = PROBE_HEAD
    "        if _u:\n"
    "            _r = b'u'\n"
    "        else:\n"
    "            _m._record_memory_history(enabled='state', context='alloc', stacks='python')\n"
    "            _r = b'e'\n" PROBE_TAIL;
static const char probe_look_code[] = PROBE_HEAD
    "        _r = b'u' if _u else b'd'\n" PROBE_TAIL;
/* The early probe, at PyTorch's first CUDA use (gl_torch_note_cuda_use),
 * before its first allocation, so that its first tensor has its line too.
 * After torch._C._cuda_init (_tls.is_initializing: the allocators exist)
 * it turns the recorder on at once, as probe_enable_code.  Before, it
 * queues the same where torch.cuda._lazy_call would, in the calls PyTorch
 * runs in its initialization right after _cuda_init, before any
 * allocation: b"q".  Run inside _cuda_init (CUDA's first use is there, and
 * a pending call runs at whatever Python code it calls), this thread holds
 * PyTorch's initialization lock, which _lazy_call takes: the queue is
 * appended to directly then.  With the lock held by another thread, or
 * when it raised: b"n", tried again later (the allocation's probe as
 * before, at worst).  A queued call that
 * raised would reach the program as a DeferredCudaCallError: it swallows. */
static const char probe_early_code[] =
    "import sys as _s\n"
    "_m = _s.modules.get('torch.cuda.memory')\n"
    "_c = _s.modules.get('torch.cuda')\n"
    "_r = b'n'\n"
    "def _on(_m=_m, _s=_s):\n"
    "    _h = getattr(_s.modules.get('torch._C'), '_cuda_isHistoryEnabled', None)\n"
    "    if _h is not None and _h():\n"
    "        return b'u'\n"
    "    _m._record_memory_history(enabled='state', context='alloc', stacks='python')\n"
    "    return b'e'\n"
    "def _queued(_on=_on):\n"
    "    try:\n"
    "        _on()\n"
    "    except Exception:\n"
    "        pass\n"
    "def _in_init(_c):\n"
    "    _f = _s._getframe(1)\n"
    "    while _f is not None and _f.f_code is not _c._lazy_init.__code__:\n"
    "        _f = _f.f_back\n"
    "    return _f is not None\n"
    "try:\n"
    "    if _m is None or _c is None or not hasattr(_s.modules.get('torch._C'), '_cuda_isHistoryEnabled'):\n"
    "        pass\n"
    "    elif _c.is_initialized() or hasattr(_c._tls, 'is_initializing'):\n"
    "        _r = _on()\n"
    "    elif _in_init(_c):\n"
    "        _c._queued_calls.append((_queued, []))\n"
    "        _r = b'q'\n"
    "    elif not _c._initialization_lock.locked():\n"
    "        _c._lazy_call(_queued)\n"
    "        _r = b'q'\n"
    "except Exception:\n"
    "    _r = b'n'\n";

static _Atomic int probe_done;      /* PyTorch found (or given up): allocations pay one load */
static _Atomic uint32_t probes;     /* looks taken, all threads */
static GL_TLS uint32_t thread_allocs; /* per thread: counting shares no cache line */
static atomic_bool probe_queued;    /* one pending probe at a time */
static atomic_bool torch_seen;      /* torch.cuda.memory was imported */
/* GPULEAK_TORCH_LINES=request: set by the first request, so that PyTorch's
 * recorder is turned on then (lines_call), or by the probe when it finds
 * PyTorch after a request; false again once on (or the program's own). */
static atomic_bool lines_wanted;
static atomic_bool lines_deferred;  /* the probe found PyTorch and left its recorder off */
static _Atomic uint64_t last_alloc_ns; /* since then: the last allocation (note_growth) */
static atomic_bool recorder_queued; /* the early probe left it to torch.cuda's initialization */
/* gpuleak itself turned PyTorch's recorder on (the probe or a request
 * answered 'e'), so a detach turns it off again (gl_torch_detach). */
static atomic_bool recorder_ours;
static _Atomic uint32_t early_probes; /* its own budget: the allocations' looks are not spent */
/* gpuleak_memory._record_memory_history() was called: the program asked for
 * lines itself, which even GPULEAK_TORCH_LINES=never (light mode) obeys. */
static atomic_bool user_asked_lines;

/* Whether gpuleak may turn PyTorch's recorder on when asked: not with
 * never, unless the program asked for history itself. */
static bool lines_allowed(void)
{
    return gl_config.torch_lines != GL_TORCH_LINES_NEVER ||
           atomic_load_explicit(&user_asked_lines, memory_order_relaxed);
}
#define PROBE_MAX 64 /* looks at most, then never again */

bool gl_torch_lines_sampling_allowed(void)
{
    return gl_config.torch_lines == GL_TORCH_LINES_REQUEST && !atomic_load(&recorder_ours);
}

/* Whether the recorder is to be on from PyTorch's first tensor:
 * GPULEAK_TORCH_LINES=start, or lines asked for before PyTorch was found. */
static bool record_from_start(void)
{
    return gl_config.torch_lines == GL_TORCH_LINES_START || (lines_allowed() && atomic_load(&lines_wanted));
}

/* The probe, with code (one of the probe snippets above). */
static int probe_with(const char *code)
{
    note_main_thread();
    size_t len;
    struct py_exc escaped;
    char *r = run_snippet(code, NULL, &len, &escaped);
    if (r != NULL && len == 1 && r[0] == 'q' && escaped.type == NULL)
        atomic_store(&recorder_queued, true);
    bool found = r != NULL && len == 1 && r[0] != 'n' && r[0] != 'q' && escaped.type == NULL;
    if (found && r[0] == 'u' && gl_torch_steps_sampler_owns())
        r[0] = 'd'; /* the step hook's sampled recorder, not the program's */
    if (found) {
        if (r[0] == 'd') /* the quiet time counts from here */
            atomic_store(&last_alloc_ns, gl_mono_ns());
        atomic_store(&lines_deferred, r[0] == 'd');
        if (r[0] == 'e')
            atomic_store(&recorder_ours, true);
        atomic_store(&torch_seen, true);
        atomic_store(&probe_done, 1);
        register_exit_view(&escaped);
        register_step_hook(&escaped);
        register_oom_observer(&escaped);
    }
    free(r);
    atomic_store(&probe_queued, false); /* interrupted: a later allocation looks again */
    return raise_in_program(&escaped);
}

static int probe_call(void *arg)
{
    (void)arg;
    return probe_with(record_from_start() ? probe_enable_code : probe_look_code);
}

static int early_probe_call(void *arg)
{
    (void)arg;
    return probe_with(probe_early_code);
}

void gl_torch_note_cuda_use(void)
{
    if (atomic_load_explicit(&probe_done, memory_order_relaxed) ||
        atomic_load_explicit(&recorder_queued, memory_order_relaxed) || !gl_config.torch || !record_from_start())
        return;
    if (!py_ready() || !c10_cuda_loaded() || atomic_exchange(&probe_queued, true))
        return;
    if (atomic_fetch_add_explicit(&early_probes, 1, memory_order_relaxed) >= PROBE_MAX ||
        py.add_pending(early_probe_call, NULL) != 0)
        atomic_store(&probe_queued, false);
}

/* GPULEAK_TORCH_LINES=request: device memory that grows again after
 * GPULEAK_TORCH_SETTLE (10 s) without a new allocation counts as a request.  A training
 * loop fills PyTorch's cache in its first steps and then allocates nothing
 * from CUDA, so it pays nothing; a job whose memory creeps up makes its
 * cache grow, and the tensors made after that have their lines. */
static void note_growth(void)
{
    uint64_t now = gl_mono_ns();
    uint64_t last = atomic_exchange_explicit(&last_alloc_ns, now, memory_order_relaxed);
    if (last != 0 && now - last >= gl_config.torch_settle_ms * 1000000ull)
        gl_torch_want_lines();
}

void gl_torch_note_alloc(void)
{
    if (atomic_load_explicit(&probe_done, memory_order_relaxed)) {
        /* never (light mode): not even the clock read of note_growth */
        if (atomic_load_explicit(&lines_deferred, memory_order_relaxed) &&
            gl_config.torch_lines == GL_TORCH_LINES_REQUEST)
            note_growth();
        return;
    }
    /* A look at each thread's 1st, 2nd, 4th, 8th... allocation, PROBE_MAX
     * looks in the process at most. */
    uint32_t t = ++thread_allocs;
    if ((t & (t - 1)) != 0)
        return;
    if (atomic_fetch_add_explicit(&probes, 1, memory_order_relaxed) >= PROBE_MAX || !gl_config.torch) {
        atomic_store(&probe_done, 1);
        return;
    }
    /* Py_IsInitialized and Py_AddPendingCall are documented as callable
     * from any thread without the GIL (the loader walk is what a stack
     * capture does too, with no lock of ours held); the pending call runs on Python's main thread at a bytecode
     * boundary, where no allocator mutex is held. */
    if (!py_ready() || !c10_cuda_loaded() || atomic_exchange(&probe_queued, true))
        return;
    if (py.add_pending(probe_call, NULL) != 0)
        atomic_store(&probe_queued, false);
}

/* ---- asking for the blocks --------------------------------------------- */

/* `_r`: None when torch.cuda.memory is not imported or torch.cuda is not
 * initialized (no allocator to ask) or its allocator is not the caching one
 * (backend:cudaMallocAsync keeps no blocks: its _snapshot() raises, and each
 * tensor is a CUDA allocation gpuleak tracks itself), b"X" when _snapshot()
 * raised, else: "GLT1", u32 blocks, u32 segments, u64 reserved, u64
 * allocated; per block u64 segment, address, size, requested_size, i32
 * device, u16 state, u16 0, u32 frames, then frames x (u32 line, u32 file,
 * u32 name) as string indexes, innermost first; then u32 strings and each
 * as u32 length + UTF-8.  Frames are PyTorch's (filename, line, name),
 * innermost first, at most 64 per block; cached blocks' are not sent.
 * Python frames only: a program that records history itself with PyTorch's
 * default stacks="all" gets C++ frames too (torch::unwind::unwind(), the
 * allocator, the interpreter's own C functions), innermost, before the
 * Python ones.  Those are told by their file, which PyTorch's symbolizer
 * gives as "??", "" or a C/C++ source (never a Python file), or by a
 * demangled name's "(" (never in a code object's name).  Dropped before
 * the 64 are counted, so the Python frames are there as with
 * stacks="python" (issue 45, item 4). */
/* Appended to an answer ("GLT1"...): "GLX1", u64 max_memory_allocated()
 * and u64 max_memory_reserved() summed over the devices, u32 settings and
 * each as u32 length + "key=value" (UTF-8): PyTorch's own
 * allocator_settings from the same _snapshot(), values as str() gives
 * them.  Apart, so that a torch without them still gives its blocks; a
 * reader that finds no "GLX1" knows none of them. */
#define COLLECT_EXTRA                                                                                  \
    "if isinstance(_r, bytes) and _r[:4] == b'GLT1':\n"                                               \
    "    try:\n"                                                                                      \
    "        _mx = _rx = 0\n"                                                                         \
    "        for _d in range(_c.device_count()):\n"                                                   \
    "            _mx += _c.max_memory_allocated(_d)\n"                                                \
    "            _rx += _c.max_memory_reserved(_d)\n"                                                 \
    "        _sd = _sn.get('allocator_settings') or {}\n"                                             \
    "        _as = [(str(_k) + '=' + str(_v)).encode('utf-8', 'replace') for _k, _v in _sd.items()][:64]\n" \
    "        _r += _t.pack('<4sQQI', b'GLX1', _mx, _rx, len(_as)) + b''.join(\n"                      \
    "            _t.pack('<I', len(_e)) + _e for _e in _as)\n"                                        \
    "    except Exception:\n"                                                                         \
    "        pass\n"

static const char collect_code[] =
    "import sys as _s, struct as _t\n"
    "_m = _s.modules.get('torch.cuda.memory')\n"
    "_c = _s.modules.get('torch.cuda')\n"
    "_r = None\n"
    "if _m is not None and _c is not None and _c.is_initialized() and getattr(\n"
    "        _m, 'get_allocator_backend', lambda: 'native')() == 'native':\n"
    "    try:\n"
    "        _cx = ('.c', '.cc', '.cpp', '.cxx', '.h', '.hh', '.hpp', '.hxx', '.cu', '.cuh', '.inl', '.s', '.S')\n"
    "        def _py(_x, _cx=_cx):\n"
    "            _n = str(_x.get('filename') or '')\n"
    "            return _n not in ('', '?\?') and not _n.endswith(_cx) and '(' not in str(_x.get('name', ''))\n"
    "        _sn = _m._snapshot(); _sg = _sn['segments']\n"
    "        _st = {'active_allocated': 1, 'active_pending_free': 2, 'inactive': 3}\n"
    "        _ids = {}\n"
    "        _o = bytearray()\n"
    "        _nb = _res = _alc = 0\n"
    "        for _g in _sg:\n"
    "            _res += _g['total_size']\n"
    "            for _b in _g['blocks']:\n"
    "                _k = _st.get(_b['state'], 0)\n"
    "                if _k == 1:\n"
    "                    _alc += _b['size']\n"
    "                _f = [_x for _x in (_b.get('frames') or ()) if _py(_x)][:64] if _k != 3 else []\n"
    "                _o += _t.pack('<QQQQiHHI', _g['address'], _b['address'], _b['size'],\n"
    "                              _b.get('requested_size', _b['size']), _g.get('device', 0), _k, 0, len(_f))\n"
    "                for _x in _f:\n"
    "                    _o += _t.pack('<III', max(int(_x.get('line') or 0), 0) & 0xffffffff,\n"
    "                                  _ids.setdefault(str(_x.get('filename', '')), len(_ids)),\n"
    "                                  _ids.setdefault(str(_x.get('name', '')), len(_ids)))\n"
    "                _nb += 1\n"
    "        _o += _t.pack('<I', len(_ids))\n"
    "        for _x in _ids:\n"
    "            _e = _x.encode('utf-8', 'replace')\n"
    "            _o += _t.pack('<I', len(_e)) + _e\n"
    "        _r = _t.pack('<4sIIQQ', b'GLT1', _nb, len(_sg), _res, _alc) + bytes(_o)\n"
    "    except Exception:\n"
    "        _r = b'X'\n"
    COLLECT_EXTRA;

/* ---- the view at exit: an atexit callback --------------------------------- */

/* The exit snapshot is written after Python is finalized, when PyTorch can
 * no longer be asked.  So once torch is found, gpuleak registers a C
 * function with Python's atexit: it runs on the main thread with the GIL,
 * before finalization (after the program's own later-registered callbacks,
 * while module globals still hold their tensors), and keeps the view the
 * exit snapshot carries.  Not run on os._exit or a fatal signal: those
 * snapshots carry the last view taken before, with its age.  Found as
 * stable C API entry points, like the rest; a Python without them simply
 * gets no callback. */
struct py_method_def { /* PyMethodDef: the same four members in every CPython 3 */
    const char *name;
    void *(*meth)(void *, void *);
    int flags;
    const char *doc;
};
#define PY_METH_NOARGS 0x0004

static void *exit_view_call(void *self, void *unused);
static struct py_method_def exit_view_def = {"gpuleak_exit_view", exit_view_call, PY_METH_NOARGS, NULL};
static void *py_none;
static void (*py_incref)(void *);

static void *exit_view_call(void *self, void *unused)
{
    (void)self;
    (void)unused;
    if (!gl_tracking_active()) { /* detached (gpuleak detach): nothing to ask, nothing to pay */
        py_incref(py_none);
        return py_none;
    }
    note_main_thread();
    size_t len;
    struct py_exc escaped;
    char *r = run_snippet(collect_code, NULL, &len, &escaped);
    if (escaped.type == NULL)
        serve_attach(r, len);
    if (r != NULL && escaped.type == NULL && !(len == 1 && r[0] == 'X'))
        keep_view(r, len);
    free(r);
    if (escaped.type != NULL) { /* the program's (a KeyboardInterrupt at exit): Python's to report */
        py.err_restore(escaped.type, escaped.value, escaped.tb);
        return NULL;
    }
    py_incref(py_none);
    return py_none;
}

/* On the main thread, in the probe's pending call, once torch is found:
 * atexit.register(exit_view_call), once per process (a fork child inherits
 * the registration with the rest of Python's state).  The program's
 * exception, if one lands meanwhile, is left in *escaped when there was
 * none. */
static void register_exit_view(struct py_exc *escaped)
{
    static atomic_bool registered;
    if (atomic_exchange(&registered, true))
        return;
    void *(*new_cfunc)(void *, void *, void *) = NULL;
    *(void **)&new_cfunc = gl_libc_dlsym(RTLD_DEFAULT, "PyCFunction_NewEx");
    *(void **)&py_incref = gl_libc_dlsym(RTLD_DEFAULT, "Py_IncRef");
    py_none = gl_libc_dlsym(RTLD_DEFAULT, "_Py_NoneStruct");
    if (new_cfunc == NULL || py_incref == NULL || py_none == NULL)
        return;
    void *fn = new_cfunc(&exit_view_def, NULL, NULL);
    if (fn == NULL) {
        py.err_clear();
        return;
    }
    size_t len;
    struct py_exc mine;
    free(run_snippet("import atexit as _a\n_a.register(_f)\n", fn, &len, &mine));
    py.decref(fn);
    if (escaped->type == NULL)
        *escaped = mine;
    else if (mine.type != NULL)
        drop(&mine);
}

/* On the main thread, in the probe's pending call, once torch is found:
 * gpuleak's global optimizer step hook (control/torch_steps.h), once per
 * process (a fork child inherits it).  A detach leaves it registered: it
 * then costs one C call a step, which answers that gpuleak is not
 * tracking.  The program's exception, as register_exit_view. */
static void register_step_hook(struct py_exc *escaped)
{
    static atomic_bool registered;
    if (atomic_exchange(&registered, true))
        return;
    void *fn = gl_torch_steps_hook_fn();
    if (fn == NULL)
        return;
    size_t len;
    struct py_exc mine;
    free(run_snippet(gl_torch_steps_register_code, fn, &len, &mine));
    py.decref(fn);
    if (escaped->type == NULL)
        *escaped = mine;
    else if (mine.type != NULL)
        drop(&mine);
}

/* ---- PyTorch's out-of-memory observer ------------------------------------ */

/* The answer the observer got and its figures, for the out-of-memory
 * snapshot it writes on its own thread (gl_torch_collect takes them). */
static GL_TLS const char *oom_answer;
static GL_TLS size_t oom_answer_len;
static GL_TLS struct gl_torch_oom oom_figures;

#define PY_METH_VARARGS 0x0001
static ssize_t (*py_tuple_size)(void *);
static void *(*py_tuple_item)(void *, ssize_t);
static long long (*py_long_ll)(void *);

/* The observer's four arguments (device, the bytes asked of CUDA, the
 * memory PyTorch may use, the driver's free memory), as PyTorch passes
 * them; false when they are not four integers. */
static bool oom_args(void *args, struct gl_torch_oom *o)
{
    if (py_tuple_size(args) != 4)
        return false;
    long long v[4];
    for (ssize_t i = 0; i < 4; i++) {
        void *x = py_tuple_item(args, i); /* borrowed */
        if (x == NULL || ((v[i] = py_long_ll(x)) == -1 && i != 0) || v[i] < -1) {
            py.err_clear();
            return false;
        }
    }
    *o = (struct gl_torch_oom){.present = true, .device = (int32_t)v[0], .request = (uint64_t)v[1],
                               .allowed = (uint64_t)v[2], .free = (uint64_t)v[3]};
    return true;
}

static void *oom_observer_call(void *self, void *args)
{
    (void)self;
    struct gl_torch_oom o;
    if (!gl_tracking_active() || !oom_args(args, &o) || !gl_trigger_torch_oom_claim()) {
        py_incref(py_none);
        return py_none;
    }
    size_t len;
    struct py_exc escaped;
    char *r = run_snippet(collect_code, NULL, &len, &escaped);
    if (escaped.type != NULL) { /* the program's (a KeyboardInterrupt): it goes on in its place */
        free(r);
        py.err_restore(escaped.type, escaped.value, escaped.tb);
        return NULL;
    }
    serve_attach(r, len);
    oom_answer = r != NULL && !(len == 1 && r[0] == 'X') ? r : NULL;
    oom_answer_len = len;
    oom_figures = o;
    gl_trigger_torch_oom();
    oom_answer = NULL;
    oom_figures.present = false;
    if (r != NULL && !(len == 1 && r[0] == 'X'))
        keep_view(r, len); /* the view later snapshots that cannot ask carry */
    free(r);
    py_incref(py_none);
    return py_none;
}

static struct py_method_def oom_observer_def = {"gpuleak_oom_observer", oom_observer_call, PY_METH_VARARGS, NULL};

/* Registers it, in the probe's pending call once torch is found (after
 * register_exit_view, which found the C API it needs), once per process.
 * torch._C._cuda_attach_out_of_memory_observer initializes CUDA, so only
 * where torch.cuda is initialized already.  The program's exception, as
 * register_exit_view. */
static void register_oom_observer(struct py_exc *escaped)
{
    static atomic_bool registered;
    if (!gl_config.oom_snapshot || py_none == NULL || atomic_exchange(&registered, true))
        return;
    void *(*new_cfunc)(void *, void *, void *) = NULL;
    *(void **)&new_cfunc = gl_libc_dlsym(RTLD_DEFAULT, "PyCFunction_NewEx");
    *(void **)&py_tuple_size = gl_libc_dlsym(RTLD_DEFAULT, "PyTuple_Size");
    *(void **)&py_tuple_item = gl_libc_dlsym(RTLD_DEFAULT, "PyTuple_GetItem");
    *(void **)&py_long_ll = gl_libc_dlsym(RTLD_DEFAULT, "PyLong_AsLongLong");
    if (new_cfunc == NULL || py_tuple_size == NULL || py_tuple_item == NULL || py_long_ll == NULL)
        return;
    void *fn = new_cfunc(&oom_observer_def, NULL, NULL);
    if (fn == NULL) {
        py.err_clear();
        return;
    }
    size_t len;
    struct py_exc mine;
    free(run_snippet("import sys as _s\n"
                     "_c = _s.modules.get('torch.cuda')\n"
                     "_a = getattr(_s.modules.get('torch._C'), '_cuda_attach_out_of_memory_observer', None)\n"
                     "if _a is not None and _c is not None and _c.is_initialized():\n"
                     "    _a(_f)\n",
                     fn, &len, &mine));
    py.decref(fn);
    if (escaped->type == NULL)
        *escaped = mine;
    else if (mine.type != NULL)
        drop(&mine);
}

/* The answer travels from Python's main thread to the asking thread through
 * these atomics and a semaphore: no lock, so the asker can give up at its
 * deadline whatever the answering side is doing, and a late answer finds
 * the request withdrawn and frees what it made. */
enum { PHASE_IDLE, PHASE_ASKED, PHASE_RUNNING, PHASE_DONE };
static _Atomic int phase;
static atomic_bool asking; /* one asker through the pending call at a time */
static char *_Atomic answer;
static _Atomic size_t answer_len;
static sem_t answered;
static pthread_once_t answered_once = PTHREAD_ONCE_INIT;
static void answered_init(void) { sem_init(&answered, 0, 0); }

/* Turns PyTorch's recorder on now, on Python's main thread, when the probe
 * left it off: after the first request's collection (that snapshot's
 * tensors have no lines; the next one's new tensors do). */
static void start_lines_here(struct py_exc *escaped)
{
    memset(escaped, 0, sizeof *escaped);
    if (!lines_allowed() || !atomic_exchange(&lines_deferred, false))
        return;
    size_t len;
    char *r = run_snippet(probe_enable_code, NULL, &len, escaped);
    bool on = r != NULL && len == 1 && (r[0] == 'e' || r[0] == 'u');
    /* the step hook's sampled recorder ('u' then) becomes gpuleak's for good:
     * the sampler hands it over at the next step instead of turning it off */
    if (on && (r[0] == 'e' || gl_torch_steps_sampler_owns()))
        atomic_store(&recorder_ours, true);
    if (!on && escaped->type != NULL)
        atomic_store(&lines_deferred, true); /* interrupted: the next request tries again */
    free(r);
}

static int lines_call(void *arg)
{
    (void)arg;
    note_main_thread();
    struct py_exc escaped;
    start_lines_here(&escaped);
    return raise_in_program(&escaped);
}

void gl_torch_user_wants_lines(void)
{
    atomic_store(&user_asked_lines, true);
    gl_torch_want_lines();
}

void gl_torch_want_lines(void)
{
    if (!lines_allowed())
        return;
    if (atomic_exchange(&lines_wanted, true) || !atomic_load(&lines_deferred) || !py_ready())
        return; /* already asked, or the probe (not run yet) will see lines_wanted */
    py.add_pending(lines_call, NULL);
}

/* ---- the detach gives the recorder back ----------------------------------- */

/* `_r`: b"f" turned off; b"k" kept: the recorder is the program's now (it
 * called _record_memory_history itself after gpuleak did, with C++ frames:
 * stacks="all", PyTorch's default, which gpuleak's stacks="python" never
 * makes; the innermost of them is torch::unwind::unwind(), a name with
 * parameters, never a code object's); b"n" torch gone; b"x" it raised.  A
 * program that set stacks="python" itself cannot be told apart (a trace
 * does not tell: PyTorch 2.14 keeps one with enabled="state" too), and has
 * its recorder turned off. */
static const char recorder_off_code[] =
    "import sys as _s\n"
    "_m = _s.modules.get('torch.cuda.memory')\n"
    "_r = b'n'\n"
    "try:\n"
    "    if _m is not None:\n"
    "        _v = _m._snapshot()\n"
    "        _e = [_b for _g in _v.get('segments', ()) for _b in _g.get('blocks', ())]\n"
    "        _e += [_t for _d in (_v.get('device_traces') or ()) for _t in _d]\n"
    "        if any('(' in str(_x.get('name', '')) for _b in _e for _x in (_b.get('frames') or ())):\n"
    "            _r = b'k'\n"
    "        else:\n"
    "            _m._record_memory_history(enabled=None)\n"
    "            _r = b'f'\n"
    "except Exception:\n"
    "    _r = b'x'\n";

/* On Python's main thread, after a detach: PyTorch's recorder off, as it
 * was before the attach.  An attach made since owns it again: left on. */
static int recorder_off_call(void *arg)
{
    (void)arg;
    note_main_thread();
    struct py_exc escaped;
    memset(&escaped, 0, sizeof escaped);
    if (gl_tracking_active()) {
        atomic_store(&recorder_ours, true);
        return 0;
    }
    size_t len;
    char *r = run_snippet(recorder_off_code, NULL, &len, &escaped);
    if (r != NULL && len == 1 && r[0] == 'f') {
        atomic_store(&lines_wanted, false); /* a later attach's request turns it on again */
        atomic_store(&lines_deferred, true);
    } else if (r != NULL && len == 1 && r[0] == 'k') {
        atomic_store(&lines_wanted, false); /* the program's: never turned off, nor on again */
    } else {
        atomic_store(&recorder_ours, true); /* interrupted: the next detach tries again */
    }
    free(r);
    return raise_in_program(&escaped);
}

void gl_torch_detach(void)
{
    if (atomic_load(&user_asked_lines) || !atomic_exchange(&recorder_ours, false) || !py_ready())
        return;
    if (py.add_pending(recorder_off_call, NULL) != 0)
        atomic_store(&recorder_ours, true);
}

/* The asker gave up on the main thread (busy in C past GL_TORCH_WAIT_MS,
 * or answering past GL_TORCH_ANSWER_WAIT_MS): the reason of its snapshot,
 * so that the pending call, when the main thread returns to bytecode, still
 * answers -- once -- and its view reaches a snapshot (keep_late_answer).
 * 0: nothing given up on. */
static _Atomic uint32_t late_reason;
/* A late answer is kept for a follow-up signal snapshot, which carries it
 * instead of asking again (a main thread that goes straight back into C
 * would otherwise make every follow-up give up too). */
static atomic_bool followup;

/* A late answer: kept as the last view, and a signal snapshot that went
 * without gets a follow-up that carries it.  Takes r. */
static void keep_late_answer(char *r, size_t len)
{
    uint32_t reason = atomic_exchange(&late_reason, 0);
    if (reason != 0 && r != NULL && !(len == 1 && r[0] == 'X')) {
        keep_view(r, len);
        if (reason == GL_REASON_SIGNAL) {
            atomic_store(&followup, true);
            gl_trigger_followup();
        }
    }
    free(r);
}

/* The detach's snapshot is asking: its answer turns no recorder on, since
 * the detach turns gpuleak's recorder off right after (gl_torch_detach). */
static atomic_bool detach_asking;

/* After an answer (the asker is not kept waiting): PyTorch's recorder on
 * if the probe left it off, then what escaped goes back to the program. */
static int finish_answer(struct py_exc *escaped, bool for_detach)
{
    if (escaped->type == NULL && !for_detach)
        start_lines_here(escaped);
    return raise_in_program(escaped); /* after the answer: nothing left stuck */
}

static int answer_call(void *arg)
{
    (void)arg;
    int expected = PHASE_ASKED;
    bool asked = atomic_compare_exchange_strong(&phase, &expected, PHASE_RUNNING);
    if (!asked && atomic_load(&late_reason) == 0)
        return 0; /* a request already answered, or no longer wanted */
    /* read before the answer is posted: the asker clears it once served */
    bool for_detach = atomic_load(&detach_asking);
    note_main_thread();
    size_t len;
    struct py_exc escaped;
    char *r = run_snippet(collect_code, NULL, &len, &escaped);
    if (escaped.type != NULL)
        r = interrupted_answer(r, &len);
    serve_attach(r, len); /* before the asker may take r */
    if (asked) {
        atomic_store(&answer, r);
        atomic_store(&answer_len, len);
        expected = PHASE_RUNNING;
        if (atomic_compare_exchange_strong(&phase, &expected, PHASE_DONE)) {
            /* A request given up on earlier is served by this answer: its
             * snapshot's successor carries this view. */
            atomic_store(&late_reason, 0);
            sem_post(&answered);
            return finish_answer(&escaped, for_detach);
        }
        atomic_store(&answer, NULL);
    }
    keep_late_answer(r, len);
    return finish_answer(&escaped, for_detach);
}

#define WAIT_SLICE_MS 50

/* answer_ms: how long a main thread that has started answering is waited
 * for (GL_TORCH_ANSWER_WAIT_MS for a snapshot). */
static char *ask_main_thread(uint32_t reason, unsigned answer_ms, size_t *len, bool *timed_out)
{
    *len = 0;
    *timed_out = false;
    if (atomic_exchange(&asking, true))
        return NULL; /* another thread is asking: this snapshot goes without */
    pthread_once(&answered_once, answered_init);
    while (sem_trywait(&answered) == 0) /* a post from an answer that came after its asker gave up */
        ;
    atomic_store(&answer, NULL);
    atomic_store(&phase, PHASE_ASKED);
    char *r = NULL;
    bool queued = py.add_pending(answer_call, NULL) == 0;
    if (queued) {
        /* In slices, so that a process that begins exiting meanwhile (its
         * main thread will run no more bytecode, and the exit path waits
         * for the writer to sample the driver) is not kept waiting.  A
         * main thread that has started answering is waited for longer: it
         * is doing the work, and giving up would throw the work away and
         * have the next snapshot pay it again. */
        for (unsigned waited = 0; !gl_exit_begun(); waited += WAIT_SLICE_MS) {
            if (waited >= (atomic_load(&phase) == PHASE_RUNNING ? answer_ms : GL_TORCH_WAIT_MS))
                break;
            struct timespec deadline;
            clock_gettime(CLOCK_REALTIME, &deadline);
            deadline.tv_nsec += WAIT_SLICE_MS * 1000000L;
            if (deadline.tv_nsec >= 1000000000L) {
                deadline.tv_sec++;
                deadline.tv_nsec -= 1000000000L;
            }
            int rc;
            while ((rc = sem_timedwait(&answered, &deadline)) != 0 && errno == EINTR)
                ;
            if (rc == 0)
                break;
        }
    }
    /* Giving up unless it answered: the pending call stays wanted, to
     * answer when the main thread returns to bytecode (unless the process
     * is exiting: the exit snapshot carries the last view then).  Said
     * before the request is withdrawn, so that an answer finishing just
     * then finds it (keep_late_answer); cleared again if it answered. */
    if (queued && !gl_exit_begun())
        atomic_store(&late_reason, reason);
    if (atomic_exchange(&phase, PHASE_IDLE) == PHASE_DONE) {
        atomic_store(&late_reason, 0);
        r = atomic_exchange(&answer, NULL);
        *len = atomic_load(&answer_len);
    } else {
        *timed_out = true;
    }
    atomic_store(&asking, false);
    return r;
}

/* ---- decoding the answer -------------------------------------------------- */

struct reader {
    const unsigned char *p, *end;
    bool bad;
};

static uint64_t rd(struct reader *r, size_t n)
{
    uint64_t v = 0;
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        r->p = r->end;
        return 0;
    }
    memcpy(&v, r->p, n); /* little-endian, as struct's '<' */
    r->p += n;
    return v;
}

#define MAX_FRAMES 64

/* The stack of one block: its frames interned as Python frames in the
 * view's own table, not the process's (view_stacks.h). */
static uint32_t block_stack(const uint32_t *frames, uint32_t nframes, const char **str, const uint32_t *slen,
                            uint32_t nstr, struct gl_view_stacks *t)
{
    uint32_t ids[MAX_FRAMES], depth = 0;
    for (uint32_t i = 0; i < nframes && i < MAX_FRAMES; i++) {
        uint32_t line = frames[3 * i], file = frames[3 * i + 1], name = frames[3 * i + 2];
        if (file >= nstr || name >= nstr)
            continue;
        uint32_t id = gl_view_frame_intern(t, str[file], slen[file], str[name], slen[name], line);
        if (id != 0)
            ids[depth++] = id;
    }
    return gl_view_stack_intern(t, ids, depth);
}

/* COLLECT_EXTRA's part, after the strings at `at`: the maxima and the
 * settings, kept as TORCH_SETTINGS' tail.  Absent or malformed: none. */
static void decode_extra(const struct reader *whole, const unsigned char *at, struct gl_torch_view *v)
{
    struct reader r = {at, whole->end, false};
    if (r.end - r.p < 4 + 8 + 8 + 4 || memcmp(r.p, "GLX1", 4) != 0)
        return;
    r.p += 4;
    uint64_t max_alloc = rd(&r, 8), max_res = rd(&r, 8);
    uint32_t n = (uint32_t)rd(&r, 4);
    const unsigned char *tail = r.p;
    for (uint32_t i = 0; i < n && !r.bad; i++) {
        uint32_t l = (uint32_t)rd(&r, 4);
        if (l > GL_SNAP_MAX_STRING || (size_t)(r.end - r.p) < l)
            return;
        r.p += l;
    }
    if (r.bad || n > GL_TORCH_SETTINGS_MAX)
        return;
    v->max_allocated_bytes = max_alloc;
    v->max_reserved_bytes = max_res;
    size_t len = (size_t)(r.p - tail);
    if (n == 0 || (v->settings = malloc(len)) == NULL)
        return;
    memcpy(v->settings, tail, len);
    v->settings_len = len;
    v->nsettings = n;
}

static bool decode(const char *buf, size_t len, struct gl_torch_view *v)
{
    struct reader r = {(const unsigned char *)buf, (const unsigned char *)buf + len, false};
    if (len < 28 || memcmp(buf, "GLT1", 4) != 0)
        return false;
    r.p += 4;
    uint32_t nblocks = (uint32_t)rd(&r, 4);
    v->segments = (uint32_t)rd(&r, 4);
    v->reserved_bytes = rd(&r, 8);
    v->allocated_bytes = rd(&r, 8);
    /* First pass: where the strings start. */
    const unsigned char *blocks_at = r.p;
    for (uint32_t i = 0; i < nblocks && !r.bad; i++) {
        if (r.end - r.p < 44)
            return false;
        r.p += 40;
        uint32_t nf = (uint32_t)rd(&r, 4);
        if (nf > MAX_FRAMES || (size_t)(r.end - r.p) < (size_t)nf * 12)
            return false;
        r.p += (size_t)nf * 12;
    }
    uint32_t nstr = (uint32_t)rd(&r, 4);
    if (r.bad || nstr > (size_t)(r.end - r.p) / 4)
        return false;
    const char **str = calloc(nstr + 1, sizeof *str);
    uint32_t *slen = calloc(nstr + 1, sizeof *slen);
    v->blocks = calloc(nblocks + 1, sizeof *v->blocks);
    bool ok = str != NULL && slen != NULL && v->blocks != NULL;
    for (uint32_t i = 0; ok && i < nstr; i++) {
        slen[i] = (uint32_t)rd(&r, 4);
        if (r.bad || slen[i] > (size_t)(r.end - r.p)) {
            ok = false;
            break;
        }
        str[i] = (const char *)r.p;
        r.p += slen[i];
    }
    const unsigned char *strings_end = r.p;
    r.p = blocks_at;
    for (uint32_t i = 0; ok && i < nblocks; i++) {
        struct gl_torch_block *b = &v->blocks[i];
        b->segment = rd(&r, 8);
        b->address = rd(&r, 8);
        b->size = rd(&r, 8);
        b->requested_size = rd(&r, 8);
        b->device = (int32_t)rd(&r, 4);
        b->state = (uint16_t)rd(&r, 2);
        rd(&r, 2);
        uint32_t nf = (uint32_t)rd(&r, 4);
        uint32_t frames[3 * MAX_FRAMES];
        for (uint32_t k = 0; k < 3 * nf; k++)
            frames[k] = (uint32_t)rd(&r, 4);
        if (b->device < -1 || b->device > GL_SNAP_MAX_DEVICE)
            b->device = -1;
        b->stack_id = block_stack(frames, nf, str, slen, nstr, &v->stacks);
        v->nblocks++;
    }
    free(str);
    free(slen);
    if (ok && !r.bad)
        decode_extra(&r, strings_end, v);
    return ok && !r.bad;
}

/* ---- for a snapshot ------------------------------------------------------- */

/* A main thread answering the attach (or the detach's snapshot) is waited
 * for this long, well inside the launcher's 60 s for the whole attach or
 * detach; an answer that comes later still serves it (answer_call). */
#define ATTACH_ANSWER_WAIT_MS 20000u

void gl_torch_collect(uint32_t reason, struct gl_torch_view *out)
{
    memset(out, 0, sizeof *out);
    if (!gl_config.torch)
        return;
    /* Exit: Python is finalized.  Fatal signal: the process may be in any
     * state.  Out-of-memory: written on the failing thread, which may hold
     * PyTorch's allocator mutex (that _snapshot() takes) or the GIL.  None
     * can ask: they carry the last view PyTorch gave (at exit, normally the
     * one gpuleak's atexit callback took), saying how old it is. */
    if (reason == GL_REASON_OOM && oom_figures.present) {
        /* PyTorch's observer, on this thread: its answer is fresh. */
        out->oom = oom_figures;
        if (oom_answer != NULL && decode(oom_answer, oom_answer_len, out)) {
            out->status = GL_TORCH_ANSWERED;
            mark_before_attach(out);
        } else {
            gl_torch_view_free(out);
            out->status = GL_TORCH_FAILED;
        }
        return;
    }
    /* (exec: the caller may hold the GIL, as os.execv does) */
    if (reason == GL_REASON_EXIT || reason == GL_REASON_FATAL_SIGNAL || reason == GL_REASON_OOM ||
        reason == GL_REASON_EXEC) {
        if (decode_kept(out))
            mark_before_attach(out);
        return;
    }
    if (reason == GL_REASON_SIGNAL && atomic_exchange(&followup, false) && decode_kept(out)) {
        mark_before_attach(out);
        return; /* the follow-up of a signal snapshot that had no answer */
    }
    bool detach = reason == GL_REASON_DETACH;
    if (reason != GL_REASON_SIGNAL && reason != GL_REASON_PERIODIC && reason != GL_REASON_REQUEST && !detach)
        return;
    if (!detach) /* the detach's question is no request for lines: they end with it */
        atomic_store(&lines_wanted, true); /* a request: PyTorch's lines from now on */
    if (!py_ready() || !c10_cuda_loaded())
        return;
    size_t len = 0;
    bool timed_out = false;
    char *buf;
    if ((reason == GL_REASON_REQUEST || detach) && py.this_tstate() != NULL) {
        /* gpuleak_snapshot() called from a Python thread (gpuleak_memory,
         * through ctypes, with the GIL released or held): this thread is
         * in the program's own code, not in an allocator, so it may take
         * the GIL back as any callback does; waiting for the main thread
         * instead could wait for this very thread. */
        int g = py.gil_ensure();
        struct py_exc escaped;
        buf = run_snippet(collect_code, NULL, &len, &escaped);
        if (escaped.type != NULL) {
            buf = interrupted_answer(buf, &len);
            hand_back(&escaped);
        } else {
            serve_attach(buf, len);
            if (!detach) {
                start_lines_here(&escaped); /* the answer stands whatever this does */
                if (escaped.type != NULL)
                    hand_back(&escaped);
            }
        }
        py.gil_release(g);
    } else if (atomic_load(&torch_seen)) {
        /* The detach's answer is waited for as the attach's is, well inside
         * the launcher's 60 s for the whole detach. */
        atomic_store(&detach_asking, detach);
        buf = ask_main_thread(reason, detach ? ATTACH_ANSWER_WAIT_MS : GL_TORCH_ANSWER_WAIT_MS, &len, &timed_out);
        atomic_store(&detach_asking, false);
    } else {
        return; /* no torch seen yet: nothing to wait 2 s for */
    }
    if (buf == NULL) {
        /* No answer: the first snapshot after an attach that PyTorch
         * answered carries that answer, with its age. */
        if (timed_out && atomic_exchange(&attach_view_unclaimed, false) && decode_kept(out)) {
            mark_before_attach(out);
            return;
        }
        /* No torch, or no answer: say so only where torch was seen, so a
         * program without it has no record at all. */
        if (timed_out && atomic_load(&torch_seen))
            out->status = GL_TORCH_NO_ANSWER;
        return;
    }
    atomic_store(&torch_seen, true);
    if (len == 1 && buf[0] == 'X') {
        out->status = GL_TORCH_FAILED;
    } else if (decode(buf, len, out)) {
        out->status = GL_TORCH_ANSWERED;
        mark_before_attach(out);
        atomic_store(&attach_view_unclaimed, false);
        keep_view(buf, len);
    } else {
        gl_torch_view_free(out);
        out->status = GL_TORCH_FAILED;
    }
    free(buf);
}

/* Not a snapshot's reason: the attach's question, answered late (its
 * answer serves the attach through attach_answer_wanted, not through
 * late_reason, which a later snapshot's question may replace). */
#define ATTACH_ASK UINT32_C(0x80000000)

void gl_torch_attach_ask(void)
{
    if (!gl_config.torch || !py_ready() || !c10_cuda_loaded())
        return;
    /* Called on a Python thread (an attach begun in-process), the main
     * thread may be this one, which cannot answer while it waits: the first
     * snapshot asks, as in a preloaded process. */
    if (py.this_tstate() != NULL)
        return;
    atomic_store(&attach_view_unclaimed, false);
    atomic_store(&attach_answer_wanted, true);
    gl_before_attach_torch_asked();
    size_t len = 0;
    bool timed_out = false;
    char *buf = ask_main_thread(ATTACH_ASK, ATTACH_ANSWER_WAIT_MS, &len, &timed_out);
    /* Answered: torch is there.  Not in time: the main thread runs no
     * bytecode now; snapshots ask it and say when it does not answer. */
    if ((buf != NULL && !(len == 1 && buf[0] == 'X')) || timed_out)
        atomic_store(&torch_seen, true);
    free(buf);
}

void gl_torch_view_free(struct gl_torch_view *v)
{
    free(v->settings);
    v->settings = NULL;
    v->settings_len = 0;
    v->nsettings = 0;
    free(v->blocks);
    v->blocks = NULL;
    v->nblocks = 0;
    gl_view_stacks_free(&v->stacks);
}

void gl_torch_postfork_child(void)
{
    atomic_store(&phase, PHASE_IDLE);
    atomic_store(&asking, false);
    atomic_store(&probe_queued, false);
    atomic_store(&python_main_thread, 0);
    char *late = atomic_exchange(&answer, NULL);
    free(late);
    /* The parent's view is not the child's memory. */
    free(atomic_exchange(&kept, NULL));
    atomic_store(&late_reason, 0);
    atomic_store(&followup, false);
    atomic_store(&attach_answer_wanted, false); /* the attach asked about the parent's memory */
    atomic_store(&attach_view_unclaimed, false);
    gl_torch_steps_postfork_child(); /* the parent's steps are not the child's */
    if (pthread_once(&answered_once, answered_init) == 0)
        sem_init(&answered, 0, 0);
}
