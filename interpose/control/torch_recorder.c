#include "control/torch_recorder.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/internal.h"
#include "control/torch_callbacks.h"
#include "control/torch_state.h"
#include "control/torch_steps.h"
#include "control/tracking.h"
#include "python/pyapi.h"

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

#define PROBE_MAX 64 /* looks at most, then never again */
static GL_TLS uint32_t thread_allocs; /* per thread: counting shares no cache line */

/* The probe, with code (one of the probe snippets above). */
static int probe_with(const char *code)
{
    gl_pyapi_note_main_thread();
    size_t len;
    struct gl_py_exc escaped;
    char *r = gl_pyapi_run(code, NULL, &len, &escaped);
    if (r != NULL && len == 1 && r[0] == 'q' && escaped.type == NULL)
        atomic_store(&gl_torch.recorder_queued, true);
    bool found = r != NULL && len == 1 && r[0] != 'n' && r[0] != 'q' && escaped.type == NULL;
    if (found && r[0] == 'u' && gl_torch_steps_sampler_owns())
        r[0] = 'd'; /* the step hook's sampled recorder, not the program's */
    if (found) {
        if (r[0] == 'd') /* the quiet time counts from here */
            atomic_store(&gl_torch.last_alloc_ns, gl_mono_ns());
        atomic_store(&gl_torch.lines_deferred, r[0] == 'd');
        if (r[0] == 'e')
            atomic_store(&gl_torch.recorder_ours, true);
        atomic_store(&gl_torch.torch_seen, true);
        atomic_store(&gl_torch.probe_done, 1);
        gl_torch_register_callbacks(&escaped);
    }
    free(r);
    atomic_store(&gl_torch.probe_queued, false); /* interrupted: a later allocation looks again */
    return gl_pyapi_raise_in_program(&escaped);
}

static int probe_call(void *arg)
{
    (void)arg;
    return probe_with(gl_torch_record_from_start() ? probe_enable_code : probe_look_code);
}

static int early_probe_call(void *arg)
{
    (void)arg;
    return probe_with(probe_early_code);
}

void gl_torch_note_cuda_use(void)
{
    if (atomic_load_explicit(&gl_torch.probe_done, memory_order_relaxed) ||
        atomic_load_explicit(&gl_torch.recorder_queued, memory_order_relaxed) || !gl_config.torch || !gl_torch_record_from_start())
        return;
    if (!gl_pyapi_ready() || !gl_pyapi_c10_cuda_loaded() || atomic_exchange(&gl_torch.probe_queued, true))
        return;
    if (atomic_fetch_add_explicit(&gl_torch.early_probes, 1, memory_order_relaxed) >= PROBE_MAX ||
        gl_pyapi_add_pending(early_probe_call, NULL) != 0)
        atomic_store(&gl_torch.probe_queued, false);
}

/* GPULEAK_TORCH_LINES=request: device memory that grows again after
 * GPULEAK_TORCH_SETTLE (10 s) without a new allocation counts as a request.  A training
 * loop fills PyTorch's cache in its first steps and then allocates nothing
 * from CUDA, so it pays nothing; a job whose memory creeps up makes its
 * cache grow, and the tensors made after that have their lines. */
static void note_growth(void)
{
    uint64_t now = gl_mono_ns();
    uint64_t last = atomic_exchange_explicit(&gl_torch.last_alloc_ns, now, memory_order_relaxed);
    if (last != 0 && now - last >= gl_config.torch_settle_ms * 1000000ull)
        gl_torch_want_lines();
}

void gl_torch_note_alloc(void)
{
    if (atomic_load_explicit(&gl_torch.probe_done, memory_order_relaxed)) {
        /* never (light mode): not even the clock read of note_growth */
        if (atomic_load_explicit(&gl_torch.lines_deferred, memory_order_relaxed) &&
            gl_config.torch_lines == GL_TORCH_LINES_REQUEST)
            note_growth();
        return;
    }
    /* A look at each thread's 1st, 2nd, 4th, 8th... allocation, PROBE_MAX
     * looks in the process at most. */
    uint32_t t = ++thread_allocs;
    if ((t & (t - 1)) != 0)
        return;
    if (atomic_fetch_add_explicit(&gl_torch.probes, 1, memory_order_relaxed) >= PROBE_MAX || !gl_config.torch) {
        atomic_store(&gl_torch.probe_done, 1);
        return;
    }
    /* Py_IsInitialized and Py_AddPendingCall are documented as callable
     * from any thread without the GIL (the loader walk is what a stack
     * capture does too, with no lock of ours held); the pending call runs on Python's main thread at a bytecode
     * boundary, where no allocator mutex is held. */
    if (!gl_pyapi_ready() || !gl_pyapi_c10_cuda_loaded() || atomic_exchange(&gl_torch.probe_queued, true))
        return;
    if (gl_pyapi_add_pending(probe_call, NULL) != 0)
        atomic_store(&gl_torch.probe_queued, false);
}
/* Turns PyTorch's recorder on now, on Python's main thread, when the probe
 * left it off: after the first request's collection (that snapshot's
 * tensors have no lines; the next one's new tensors do). */
void gl_torch_start_lines_here(struct gl_py_exc *escaped)
{
    memset(escaped, 0, sizeof *escaped);
    if (!gl_torch_lines_allowed() || !atomic_exchange(&gl_torch.lines_deferred, false))
        return;
    size_t len;
    char *r = gl_pyapi_run(probe_enable_code, NULL, &len, escaped);
    bool on = r != NULL && len == 1 && (r[0] == 'e' || r[0] == 'u');
    /* the step hook's sampled recorder ('u' then) becomes gpuleak's for good:
     * the sampler hands it over at the next step instead of turning it off */
    if (on && (r[0] == 'e' || gl_torch_steps_sampler_owns()))
        atomic_store(&gl_torch.recorder_ours, true);
    if (!on && escaped->type != NULL)
        atomic_store(&gl_torch.lines_deferred, true); /* interrupted: the next request tries again */
    free(r);
}

static int lines_call(void *arg)
{
    (void)arg;
    gl_pyapi_note_main_thread();
    struct gl_py_exc escaped;
    gl_torch_start_lines_here(&escaped);
    return gl_pyapi_raise_in_program(&escaped);
}

void gl_torch_user_wants_lines(void)
{
    atomic_store(&gl_torch.user_asked_lines, true);
    gl_torch_want_lines();
}

void gl_torch_want_lines(void)
{
    if (!gl_torch_lines_allowed())
        return;
    if (atomic_exchange(&gl_torch.lines_wanted, true) || !atomic_load(&gl_torch.lines_deferred) || !gl_pyapi_ready())
        return; /* already asked, or the probe (not run yet) will see lines_wanted */
    gl_pyapi_add_pending(lines_call, NULL);
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
    gl_pyapi_note_main_thread();
    struct gl_py_exc escaped;
    memset(&escaped, 0, sizeof escaped);
    if (gl_tracking_active()) {
        atomic_store(&gl_torch.recorder_ours, true);
        return 0;
    }
    size_t len;
    char *r = gl_pyapi_run(recorder_off_code, NULL, &len, &escaped);
    if (r != NULL && len == 1 && r[0] == 'f') {
        atomic_store(&gl_torch.lines_wanted, false); /* a later attach's request turns it on again */
        atomic_store(&gl_torch.lines_deferred, true);
    } else if (r != NULL && len == 1 && r[0] == 'k') {
        atomic_store(&gl_torch.lines_wanted, false); /* the program's: never turned off, nor on again */
    } else {
        atomic_store(&gl_torch.recorder_ours, true); /* interrupted: the next detach tries again */
    }
    free(r);
    return gl_pyapi_raise_in_program(&escaped);
}

void gl_torch_detach(void)
{
    if (atomic_load(&gl_torch.user_asked_lines) || !atomic_exchange(&gl_torch.recorder_ours, false) || !gl_pyapi_ready())
        return;
    if (gl_pyapi_add_pending(recorder_off_call, NULL) != 0)
        atomic_store(&gl_torch.recorder_ours, true);
}
