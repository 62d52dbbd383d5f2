#include "control/torch_steps.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/config.h"
#include "base/exit_guard.h"
#include "base/internal.h"
#include "base/log.h"
#include "base/libc_dl.h"
#include "control/tracking.h"
#include "control/torch_state.h"
#include "control/torch_step_pace.h"
#include "snapshot_format.h"

/* ---- the hook, in Python ------------------------------------------------- */

/* Registered once per process (a fork child inherits it); the window
 * function is handed to C (`_f(callable)`) for GPULEAK_STEP_INTERVAL.  Each
 * step (or window):
 * `_f(None)` first, so that a detached process (or one not tracking) pays
 * one C call: 0 not tracking, else the step's number, whether C asks for
 * its view, and 1 (views only) or K + 1 (lines sampled one step in K)
 * (step_answer below).  The hook counts the steps PyTorch's recorder was
 * on for at every step, and runs the sampler at every step; a number not
 * above the last one it saw (a fork child's, which C numbers from 1 again)
 * starts its counts again; it views a
 * step when C asks (control/torch_step_pace.h), when the step is sampled,
 * and every window: allocated and reserved
 * over the devices (what memory_allocated() and memory_reserved() return,
 * read from one memory_stats_as_nested_dict() a device: those two call
 * memory_stats(), which flattens and sorts every statistic, ~65 us each, 5%
 * of a 2.5 ms step; docs/performance.md), and with PyTorch's recorder on
 * (whoever turned it on),
 * `_snapshot()`'s live blocks by their first Python frame outside torch's
 * own package (the innermost Python frame when all are torch's; C++ frames,
 * which a program's own stacks="all" adds, are never a line: told as
 * collect_code in torch_view.c tells them), the 16 lines with most bytes.
 * Sizes are the blocks' (rounded), as memory_allocated() counts them.  Sent
 * as '<QQIIQQ' allocated, reserved, flags, lines, the step's number, the
 * recorded steps so far, then per line '<QQI' bytes,
 * count, line and two u32-length strings: the TORCH_STEP record's own
 * fields and tail.  An Exception inside is swallowed (never the program's
 * failure); the program's own BaseException (KeyboardInterrupt) goes on.
 *
 * PyTorch's recorder belongs to its native allocator: with cudaMallocAsync
 * `_cuda_isHistoryEnabled()` raises (a C++ throw and a Python exception),
 * so the hook asks it only of the native one (`_h` None otherwise); asked
 * anyway, it ended every step's view before its record was sent.
 *
 * The sampler (issue 45, item 3): after its view, optimizer step n turns
 * PyTorch's recorder on when step n + 1 is sampled (_gpuleak_sampled: up to
 * step 64, step 2, the powers of two below K and every K-th step; after
 * it, the K-th view since the last sampled one, `_st['v']`, so that
 * sampling follows the views' pace and the ring of 64 views holds about
 * 64 / K sampled steps whatever the pace) and
 * the recorder is off, stacks="python" (PyTorch's cheapest mode with Python
 * frames), and off again after the sampled step's view when step n + 2 is
 * not: so a sampled step's view has the lines of the tensors made in it,
 * and in every sampled step before it.  It only ever turns off what it
 * turned on (`_st['own']`, told to C with `_f(True)` / `_f(False)`); a
 * recorder found on (the program's, or gpuleak's GPULEAK_TORCH_LINES one)
 * is only read.  When C says no sampling (a request made the recorder
 * gpuleak's for good: torch_view.c took it over) the sampler's recorder is
 * handed over, left on; when gpuleak stops tracking (detach), it is turned
 * off.  A step whose recorder was on from the previous step's end to its
 * own is flagged 4 (recorded), a view taken under the sampler's recorder
 * 8 (sampled). */
#define STR_(x) #x
#define STR(x) STR_(x)
#define ALWAYS_VIEWED STR(GL_TORCH_STEP_ALWAYS_VIEWED)
const char gl_torch_steps_register_code[] =
    "import sys as _s\n"
    "_st = {'own': False, 'on': False, 'n': 0, 'r': 0, 'v': 0, 'last': 0}\n"
    "def _gpuleak_sampled(_n, _k, _st=_st):\n"
    "    if _n > " ALWAYS_VIEWED ":\n"
    "        return _st['v'] >= _k - 1\n"
    "    return _n >= 2 and (_n % _k == 0 or (_n & (_n - 1) == 0 and _n < _k))\n"
    "def _gpuleak_recorder(_on, _m, _f=_f, _st=_st):\n"
    "    if _on:\n"
    "        _m._record_memory_history(enabled='state', context='alloc', stacks='python')\n"
    "        _st['own'] = True\n"
    "        _f(True)\n"
    "    else:\n"
    "        _st['own'] = False\n"
    "        _f(False)\n"
    "        if _m is not None:\n"
    "            _m._record_memory_history(enabled=None)\n"
    "def _gpuleak_sample(_k, _n, _h, _m, _st=_st, _f=_f):\n"
    "    if _k <= 1:\n"
    "        if _st['own']:\n"
    "            _st['own'] = False\n"
    "            _f(False)\n"
    "        return\n"
    "    _want = _gpuleak_sampled(_n + 1, _k - 1)\n"
    "    if _st['own'] and not _want:\n"
    "        _gpuleak_recorder(False, _m)\n"
    "    elif _want and not _st['own'] and _h is not None and not _h():\n"
    "        _gpuleak_recorder(True, _m)\n"
    "def _gpuleak_view(_n, _window, _rec, _h, _m, _c, _f=_f, _s=_s, _st=_st):\n"
    "    import struct as _t\n"
    "    _al = _rs = 0\n"
    "    for _d in range(_c.device_count()):\n"
    "        _ds = _c.memory_stats_as_nested_dict(_d)\n"
    "        _al += _ds.get('allocated_bytes', {}).get('all', {}).get('current', 0)\n"
    "        _rs += _ds.get('reserved_bytes', {}).get('all', {}).get('current', 0)\n"
    "    _fl = 2 if _window else 0\n"
    "    _ln = {}\n"
    "    if _h is not None and _h():\n"
    "        _fl |= 1 | (8 if _st['own'] else 0) | (4 if _rec else 0)\n"
    "        _tp = _s.modules['torch'].__file__.rsplit('/', 1)[0] + '/'\n"
    "        _cx = ('.c', '.cc', '.cpp', '.cxx', '.h', '.hh', '.hpp', '.hxx', '.cu', '.cuh', '.inl', '.s', '.S')\n"
    "        for _g in _m._snapshot()['segments']:\n"
    "            for _b in _g['blocks']:\n"
    "                if _b['state'] != 'active_allocated':\n"
    "                    continue\n"
    "                _fr = [_y for _y in (_b.get('frames') or ()) if str(_y.get('filename') or '') not in ('', '?\?')\n"
    "                       and not str(_y['filename']).endswith(_cx) and '(' not in str(_y.get('name', ''))]\n"
    "                _x = next((_y for _y in _fr if not str(_y['filename']).startswith(_tp)),\n"
    "                          _fr[0] if _fr else None)\n"
    "                _y = (str(_x['filename']), int(_x.get('line') or 0), str(_x.get('name', ''))) \\\n"
    "                    if _x else ('', 0, '')\n"
    "                _e = _ln.setdefault(_y, [0, 0])\n"
    "                _e[0] += _b['size']\n"
    "                _e[1] += 1\n"
    "    _top = sorted(_ln.items(), key=lambda _i: (-_i[1][0], _i[0]))[:16]\n"
    "    _out = bytearray(_t.pack('<QQIIQQ', _al, _rs, _fl, len(_top), _n, _st['r']))\n"
    "    for (_fn, _li, _na), (_by, _ct) in _top:\n"
    "        _fb = _fn.encode('utf-8', 'replace')[:4096]\n"
    "        _nb = _na.encode('utf-8', 'replace')[:4096]\n"
    "        _out += _t.pack('<QQII', _by, _ct, max(_li, 0) & 0xffffffff, len(_fb)) + _fb\n"
    "        _out += _t.pack('<I', len(_nb)) + _nb\n"
    "    _f(bytes(_out))\n"
    "def _gpuleak_step_view(_window=False, _f=_f, _s=_s, _st=_st):\n"
    "    _r = _f(None)\n"
    "    _k = _r & 0xfffff\n"
    "    try:\n"
    "        _m = _s.modules.get('torch.cuda.memory')\n"
    "        if not _k:\n"
    "            if _st['own']:\n"
    "                _gpuleak_recorder(False, _m)\n"
    "            return\n"
    "        if _r >> 21 <= _st['last']:\n"
    "            _st['r'] = _st['n'] = _st['v'] = 0\n"
    "        _st['last'] = _r >> 21\n"
    "        _c = _s.modules.get('torch.cuda')\n"
    "        if _c is None or not _c.is_initialized():\n"
    "            return\n"
    "        _h = _st.get('h', 0)\n"
    "        if _h == 0:\n"
    "            _h = None\n"
    "            if _m is not None and getattr(_m, 'get_allocator_backend', lambda: 'native')() == 'native':\n"
    "                _h = getattr(_s.modules.get('torch._C'), '_cuda_isHistoryEnabled', None)\n"
    "            _st['h'] = _h\n"
    "        _rec = _st['on'] and not _window\n"
    "        if _rec:\n"
    "            _st['r'] += 1\n"
    "        if _window or _r & 0x100000 or _st['own']:\n"
    "            _gpuleak_view(_r >> 21, _window, _rec, _h, _m, _c)\n"
    "            if not _window:\n"
    "                _st['v'] = 0 if _st['own'] else _st['v'] + 1\n"
    "        if not _window:\n"
    "            _st['n'] += 1\n"
    "            _gpuleak_sample(_k, _st['n'], _h, _m)\n"
    "            _st['on'] = _h is not None and _h()\n"
    "    except Exception:\n"
    "        pass\n"
    "def _gpuleak_step_hook(_opt, _a, _k, _v=_gpuleak_step_view):\n"
    "    _v()\n"
    "def _gpuleak_step_window(_v=_gpuleak_step_view):\n"
    "    _v(True)\n"
    "_f(_gpuleak_step_window)\n"
    "_o = _s.modules.get('torch.optim.optimizer')\n"
    "_r = b'n'\n"
    "if _o is not None and hasattr(_o, 'register_optimizer_step_post_hook'):\n"
    "    _o.register_optimizer_step_post_hook(_gpuleak_step_hook)\n"
    "    _r = b'h'\n";

/* ---- the sampler: lines at sampled steps (GPULEAK_STEP_LINES_EVERY) ---------- */

/* A sampled period costs ~20-28% of a CPU-bound step (make bench, section
 * 7's last lines): ~1-1.4% a step at 20 when every step is viewed, less by
 * the views' pace after step 64 (one in K views is sampled); and at least
 * 3 sampled steps among the 64 views kept (docs/performance.md, section 7) */
#define DEFAULT_LINES_EVERY 20
#define MAX_LINES_EVERY 1000000L

static uint32_t lines_every = DEFAULT_LINES_EVERY; /* 0: no sampling */
/* The hook's sampler has PyTorch's recorder on (it turned it on, and has not
 * turned it off or handed it over): set and cleared by the hook only. */
static atomic_bool sampler_owns;

bool gl_torch_steps_sampler_owns(void)
{
    return atomic_load(&sampler_owns);
}

/* K, when the hook samples lines one step in K now; 0 when it does not:
 * GPULEAK_STEP_LINES_EVERY=0, or the recorder is not the sampler's to turn
 * on (torch_view.c: GPULEAK_TORCH_LINES=start or never, or gpuleak keeps
 * it on for good after a request). */
static uint32_t sampling_every(void)
{
    return lines_every != 0 && gl_torch_lines_sampling_allowed() ? lines_every : 0;
}

/* `_f(None)`, at each step or window: 0 when not tracking; else, in bits
 * 0-19, 1 (views only) or K + 1 (lines sampled one step in K), in bit 20
 * whether C asks for this step's view (control/torch_step_pace.h), and
 * from bit 21 the step's number, which its view's record carries back. */
#define ANSWER_VIEW (1L << 20)
#define ANSWER_STEP_SHIFT 21
_Static_assert(MAX_LINES_EVERY + 1 < ANSWER_VIEW, "K + 1 fits below the view bit");

static long step_answer(void)
{
    if (!gl_tracking_active())
        return 0;
    bool view;
    uint64_t n = gl_step_pace_begin(&view);
    return (long)(n << ANSWER_STEP_SHIFT) | (view ? ANSWER_VIEW : 0) | ((long)sampling_every() + 1);
}

static void configure_lines_every(void)
{
    static atomic_bool warned;
    const char *v = gl_getenv("GPULEAK_STEP_LINES_EVERY");
    long k = DEFAULT_LINES_EVERY;
    if (v != NULL && *v != '\0' && !gl_parse_long(v, 0, MAX_LINES_EVERY, &k)) {
        gl_warn_once(&warned, "ignoring GPULEAK_STEP_LINES_EVERY=%.40s: not a number of steps from 0 to %ld; using %d",
                     v, MAX_LINES_EVERY, DEFAULT_LINES_EVERY);
        k = DEFAULT_LINES_EVERY;
    }
    lines_every = (uint32_t)k;
}

/* ---- the steps kept ------------------------------------------------------ */

/* The first view in `first`, the n-th after it in ring[n % KEPT]: with
 * views paced (control/torch_step_pace.h), steps are not consecutive, so
 * the slot follows the views' count, not the step's number.  Written only
 * by the hook, which runs with the GIL (so one writer at a time); read by
 * any snapshot, which takes a slot out (exchange), copies it and puts it
 * back unless the hook replaced it meanwhile: no lock is shared with the
 * program's threads, and nothing is freed while read. */
static struct gl_torch_step *_Atomic first;
static struct gl_torch_step *_Atomic ring[GL_TORCH_STEPS_KEPT];
static _Atomic uint64_t views_kept;

static void keep_step(struct gl_torch_step *s)
{
    uint64_t n = atomic_fetch_add(&views_kept, 1);
    struct gl_torch_step *_Atomic *slot = n == 0 ? &first : &ring[n % GL_TORCH_STEPS_KEPT];
    free(atomic_exchange(slot, s));
}

static uint32_t le32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* The hook's bytes are the record's fields and tail: their tail must hold
 * exactly `lines` well-formed entries. */
static bool tail_well_formed(const unsigned char *p, size_t len, uint32_t lines)
{
    size_t pos = 0;
    for (uint32_t i = 0; i < lines; i++) {
        if (len - pos < GL_TORCH_STEP_LINE_FIXED_SIZE)
            return false;
        pos += GL_TORCH_STEP_LINE_FIXED_SIZE; /* bytes, count, line */
        for (int k = 0; k < 2; k++) {         /* file, function */
            if (len - pos < 4)
                return false;
            uint32_t n = le32(p + pos);
            pos += 4;
            if (n > GL_SNAP_MAX_STRING || len - pos < n)
                return false;
            pos += n;
        }
    }
    return pos == len;
}

/* '<QQIIQQ': allocated, reserved, flags, lines, the step's number (from
 * its answer), the steps recorded so far (the hook counts them: a step the
 * recorder was on for counts whether or not it was viewed) */
#define HOOK_HEAD 40u

static void note_step(const unsigned char *p, size_t len)
{
    if (len < HOOK_HEAD)
        return;
    uint32_t lines = le32(p + 20);
    uint64_t step = le64(p + 24), recorded = le64(p + 32);
    if (step == 0 || step > gl_step_pace_numbered() || recorded > step || lines > GL_TORCH_STEP_MAX_LINES ||
        !tail_well_formed(p + HOOK_HEAD, len - HOOK_HEAD, lines))
        return;
    uint32_t flags = le32(p + 16) & (GL_TORCH_STEP_F_LINES | GL_TORCH_STEP_F_WINDOW | GL_TORCH_STEP_F_RECORDED |
                                     GL_TORCH_STEP_F_SAMPLED);
    gl_step_pace_viewed(step, flags & GL_TORCH_STEP_F_LINES);
    struct gl_torch_step *s = malloc(sizeof *s + (len - HOOK_HEAD));
    if (s == NULL)
        return;
    s->step = step;
    s->time_ns = gl_mono_ns() - gl_start_mono_ns;
    s->allocated = le64(p);
    s->reserved = le64(p + 8);
    s->flags = flags;
    s->recorded_steps = recorded;
    s->lines_every = sampling_every();
    s->lines = lines;
    s->tail_len = len - HOOK_HEAD;
    memcpy(s->tail, p + HOOK_HEAD, s->tail_len);
    keep_step(s);
}

/* ---- the C function the hook calls ---------------------------------------- */

struct py_method_def { /* PyMethodDef: the same four members in every CPython 3 */
    const char *name;
    void *(*meth)(void *, void *);
    int flags;
    const char *doc;
};
#define PY_METH_O 0x0008

static struct {
    int (*bytes_get)(void *, char **, ssize_t *);
    void *(*long_from)(long);
    void (*incref)(void *);
    void (*err_clear)(void);
    int (*callable_check)(void *);
    void *(*call_object)(void *, void *);
    void (*decref)(void *);
    int (*add_pending)(int (*)(void *), void *);
    void *none, *py_true, *py_false;
} api;

/* The window function (`_gpuleak_step_window`), a reference of ours; set
 * once, by the registration snippet, and read by the pending call. */
static void *_Atomic window_fn;

static void *step_call(void *self, void *arg)
{
    (void)self;
    if (arg == api.none)
        return api.long_from(step_answer());
    if (arg == api.py_true || arg == api.py_false) {
        atomic_store(&sampler_owns, arg == api.py_true);
        api.incref(api.none);
        return api.none;
    }
    if (api.callable_check(arg)) {
        void *none = NULL;
        api.incref(arg);
        if (!atomic_compare_exchange_strong(&window_fn, &none, arg))
            api.decref(arg);
        api.incref(api.none);
        return api.none;
    }
    char *data;
    ssize_t n;
    if (gl_tracking_active() && api.bytes_get(arg, &data, &n) == 0 && n > 0)
        note_step((const unsigned char *)data, (size_t)n);
    api.err_clear(); /* not bytes: TypeError, the hook's own mistake, never the program's */
    api.incref(api.none);
    return api.none;
}

static struct py_method_def step_def = {"gpuleak_step", step_call, PY_METH_O, NULL};

void *gl_torch_steps_hook_fn(void)
{
    void *(*new_cfunc)(void *, void *, void *) = NULL;
#define FIND(dst, name)                                                                \
    if ((*(void **)&(dst) = gl_libc_dlsym(RTLD_DEFAULT, name)) == NULL)                \
        return NULL;
    FIND(new_cfunc, "PyCFunction_NewEx")
    FIND(api.bytes_get, "PyBytes_AsStringAndSize")
    FIND(api.long_from, "PyLong_FromLong")
    FIND(api.incref, "Py_IncRef")
    FIND(api.err_clear, "PyErr_Clear")
    FIND(api.callable_check, "PyCallable_Check")
    FIND(api.call_object, "PyObject_CallObject")
    FIND(api.decref, "Py_DecRef")
    FIND(api.add_pending, "Py_AddPendingCall")
    FIND(api.none, "_Py_NoneStruct")
    FIND(api.py_true, "_Py_TrueStruct")
    FIND(api.py_false, "_Py_FalseStruct")
#undef FIND
    void *fn = new_cfunc(&step_def, NULL, NULL);
    if (fn == NULL)
        api.err_clear();
    return fn;
}

/* ---- GPULEAK_STEP_INTERVAL: a view per time window ---------------------- */

#define MIN_WINDOW_MS 100ull
#define MAX_WINDOW_MS (30ull * 24 * 3600 * 1000) /* 30 days */

static uint64_t window_ms; /* 0: off */
static uint64_t window_due_ns;
static atomic_bool window_queued; /* one pending call at a time */

void gl_torch_steps_configure(void)
{
    static atomic_bool warned;
    configure_lines_every();
    gl_step_pace_configure();
    const char *iv = gl_getenv("GPULEAK_STEP_INTERVAL");
    window_ms = 0;
    if (iv != NULL && *iv != '\0' && strcmp(iv, "0") != 0 &&
        !gl_parse_duration_ms(iv, MIN_WINDOW_MS, MAX_WINDOW_MS, &window_ms)) {
        gl_warn_once(&warned,
                     "ignoring GPULEAK_STEP_INTERVAL=%.40s: not a duration from 100ms to 30 days "
                     "(e.g. 90s, 10m, 2h); no views by time", iv);
        window_ms = 0;
    }
    window_due_ns = window_ms ? gl_mono_ns() + window_ms * 1000000u : 0;
}

uint64_t gl_torch_steps_window_wait_ms(void)
{
    if (window_ms == 0)
        return UINT64_MAX;
    uint64_t now = gl_mono_ns();
    return now >= window_due_ns ? 0 : (window_due_ns - now + 999999u) / 1000000u;
}

/* On Python's main thread, at a bytecode boundary, with the GIL: the
 * window's view.  The function swallows its own Exceptions; what escapes
 * it (KeyboardInterrupt from the program's signal handler, run inside it)
 * is the program's, raised where the pending call ran, as CPython raises
 * its own signal handlers' exceptions. */
static int window_call(void *arg)
{
    (void)arg;
    atomic_store(&window_queued, false);
    void *r = api.call_object(atomic_load(&window_fn), NULL);
    if (r == NULL)
        return -1;
    api.decref(r);
    return 0;
}

void gl_torch_steps_window_run(void)
{
    window_due_ns = gl_mono_ns() + window_ms * 1000000u;
    /* Py_AddPendingCall may be called from any thread without the GIL;
     * window_fn is set only once the step hook's snippet ran (PyTorch
     * found, so api is filled). */
    if (atomic_load(&window_fn) == NULL || !gl_tracking_active() || gl_exit_begun() ||
        atomic_exchange(&window_queued, true))
        return;
    if (api.add_pending(window_call, NULL) != 0)
        atomic_store(&window_queued, false);
}

/* ---- for a snapshot -------------------------------------------------------- */

static struct gl_torch_step *copy_slot(struct gl_torch_step *_Atomic *slot)
{
    struct gl_torch_step *s = atomic_exchange(slot, NULL);
    if (s == NULL)
        return NULL;
    struct gl_torch_step *c = malloc(sizeof *c + s->tail_len);
    if (c != NULL)
        memcpy(c, s, sizeof *c + s->tail_len);
    struct gl_torch_step *none = NULL;
    if (!atomic_compare_exchange_strong(slot, &none, s))
        free(s); /* the hook kept a newer step there meanwhile */
    return c;
}

static int by_step(const void *a, const void *b)
{
    uint64_t x = (*(struct gl_torch_step *const *)a)->step, y = (*(struct gl_torch_step *const *)b)->step;
    return x < y ? -1 : x > y;
}

struct gl_torch_step **gl_torch_steps_copy(size_t *n)
{
    *n = 0;
    if (atomic_load(&views_kept) == 0)
        return NULL;
    struct gl_torch_step **out = malloc((GL_TORCH_STEPS_KEPT + 1) * sizeof *out);
    if (out == NULL)
        return NULL;
    if ((out[*n] = copy_slot(&first)) != NULL)
        (*n)++;
    for (size_t i = 0; i < GL_TORCH_STEPS_KEPT; i++)
        if ((out[*n] = copy_slot(&ring[i])) != NULL)
            (*n)++;
    qsort(out, *n, sizeof *out, by_step);
    return out;
}

void gl_torch_steps_free(struct gl_torch_step **steps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(steps[i]);
    free(steps);
}

void gl_torch_steps_postfork_child(void)
{
    free(atomic_exchange(&first, NULL));
    for (size_t i = 0; i < GL_TORCH_STEPS_KEPT; i++)
        free(atomic_exchange(&ring[i], NULL));
    atomic_store(&views_kept, 0);
    gl_step_pace_postfork_child();
    atomic_store(&window_queued, false); /* a call queued in the parent runs there */
    window_due_ns = window_ms ? gl_mono_ns() + window_ms * 1000000u : 0;
}
