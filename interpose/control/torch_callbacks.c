#include "control/torch_callbacks.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/libc_dl.h"
#include "control/snapshot.h"
#include "control/torch_answer.h"
#include "control/torch_steps.h"
#include "control/tracking.h"
#include "python/pyapi.h"
#include "snapshot_format.h"

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
    gl_pyapi_note_main_thread();
    size_t len;
    struct gl_py_exc escaped;
    char *r = gl_torch_ask_here(&len, &escaped);
    if (escaped.type == NULL)
        gl_torch_serve_attach(r, len);
    if (r != NULL && escaped.type == NULL && !(len == 1 && r[0] == 'X'))
        gl_torch_keep_view(r, len);
    free(r);
    if (escaped.type != NULL) { /* the program's (a KeyboardInterrupt at exit): Python's to report */
        gl_pyapi_restore(&escaped);
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
static void register_exit_view(struct gl_py_exc *escaped)
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
        gl_pyapi_err_clear();
        return;
    }
    size_t len;
    struct gl_py_exc mine;
    free(gl_pyapi_run("import atexit as _a\n_a.register(_f)\n", fn, &len, &mine));
    gl_pyapi_decref(fn);
    gl_pyapi_keep_first(escaped, &mine);
}

/* On the main thread, in the probe's pending call, once torch is found:
 * gpuleak's global optimizer step hook (control/torch_steps.h), once per
 * process (a fork child inherits it).  A detach leaves it registered: it
 * then costs one C call a step, which answers that gpuleak is not
 * tracking.  The program's exception, as register_exit_view. */
static void register_step_hook(struct gl_py_exc *escaped)
{
    static atomic_bool registered;
    if (atomic_exchange(&registered, true))
        return;
    void *fn = gl_torch_steps_hook_fn();
    if (fn == NULL)
        return;
    size_t len;
    struct gl_py_exc mine;
    free(gl_pyapi_run(gl_torch_steps_register_code, fn, &len, &mine));
    gl_pyapi_decref(fn);
    gl_pyapi_keep_first(escaped, &mine);
}

/* ---- PyTorch's out-of-memory observer ------------------------------------ */


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
            gl_pyapi_err_clear();
            return false;
        }
    }
    *o = (struct gl_torch_oom){.present = true, .device = (int32_t)v[0], .request = (uint64_t)v[1],
                               .allowed = (uint64_t)v[2], .free = (uint64_t)v[3]};
    return true;
}

/* Whether this one gets a snapshot: at most one per GPULEAK_OOM_INTERVAL,
 * counted apart from the CUDA-level ones (control/trigger.c, which come a
 * moment before, at the cudaMalloc that failed), none with
 * GPULEAK_OOM_SNAPSHOT=0; so that one not taken costs no question. */
static bool oom_claim(void)
{
    static _Atomic uint64_t last_ns;
    if (!gl_config.oom_snapshot)
        return false;
    uint64_t now = gl_mono_ns();
    uint64_t last = atomic_load(&last_ns);
    if (last != 0 && now - last < gl_config.oom_interval_ms * 1000000u)
        return false;
    return atomic_compare_exchange_strong(&last_ns, &last, now); /* else another thread took it */
}

/* The out-of-memory snapshot, written here on the failing thread with the
 * observer's own answer (NULL: it failed) and figures (TORCH_OOM). */
static void write_oom_snapshot(const char *answer, size_t len, const struct gl_torch_oom *o)
{
    struct gl_torch_view v;
    memset(&v, 0, sizeof v);
    v.oom = *o;
    if (answer != NULL && gl_torch_decode(answer, len, &v)) {
        v.status = GL_TORCH_ANSWERED;
        gl_torch_mark_before_attach(&v);
    } else {
        gl_torch_view_free(&v);
        v.status = GL_TORCH_FAILED;
    }
    gl_snapshot_write(GL_REASON_OOM, 0, NULL, &v);
    gl_torch_view_free(&v);
}

static void *oom_observer_call(void *self, void *args)
{
    (void)self;
    struct gl_torch_oom o;
    if (!gl_tracking_active() || !oom_args(args, &o) || !oom_claim()) {
        py_incref(py_none);
        return py_none;
    }
    size_t len;
    struct gl_py_exc escaped;
    char *r = gl_torch_ask_here(&len, &escaped);
    if (escaped.type != NULL) { /* the program's (a KeyboardInterrupt): it goes on in its place */
        free(r);
        gl_pyapi_restore(&escaped);
        return NULL;
    }
    gl_torch_serve_attach(r, len);
    write_oom_snapshot(r != NULL && !gl_torch_answer_failed(r, len) ? r : NULL, len, &o);
    if (r != NULL && !(len == 1 && r[0] == 'X'))
        gl_torch_keep_view(r, len); /* the view later snapshots that cannot ask carry */
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
static void register_oom_observer(struct gl_py_exc *escaped)
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
        gl_pyapi_err_clear();
        return;
    }
    size_t len;
    struct gl_py_exc mine;
    free(gl_pyapi_run("import sys as _s\n"
                     "_c = _s.modules.get('torch.cuda')\n"
                     "_a = getattr(_s.modules.get('torch._C'), '_cuda_attach_out_of_memory_observer', None)\n"
                     "if _a is not None and _c is not None and _c.is_initialized():\n"
                     "    _a(_f)\n",
                     fn, &len, &mine));
    gl_pyapi_decref(fn);
    gl_pyapi_keep_first(escaped, &mine);
}


void gl_torch_register_callbacks(struct gl_py_exc *escaped)
{
    register_exit_view(escaped);
    register_step_hook(escaped);
    register_oom_observer(escaped);
}
