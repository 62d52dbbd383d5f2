#include "capture/stacks.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define UNW_LOCAL_ONLY /* this process's stacks only: libunwind's _UL* functions */
#include <libunwind.h>

#include "base/internal.h"
#include "base/self.h"
#include "capture/pyframes.h"
#include "capture/stack_cache.h"
#include "capture/stack_check.h"

/* Frames of ours that can sit above the hook: the hook itself plus the
 * recording helpers.  Over-capturing by this much lets us keep `depth` user
 * frames after dropping ours. */
#define OWN_FRAMES_MAX 8

/* Replaces the interpreter's own native frames (the C code that runs Python)
 * with the Python frames they were running: native frames of the code called
 * from Python come first, then the Python stack, innermost first.  Every
 * walk of a Python thread was cut at the interpreter's first frame
 * (cut_at_stop), the last of cap: the Python frames are written from there
 * on.  The native frames beyond it (the interpreter's own, python's main,
 * an embedding program's caller) are neither walked nor kept: at a
 * PyTorch op's ~20 native frames that was two thirds of the walk.  A walk
 * that ended before the interpreter (native frames deeper than the depth
 * asked) gets the Python frames after its own.  See docs/python-frames.md. */
static void merge_python(struct gl_capture *cap, void *top, struct gl_walk_stop stop)
{
    uint32_t first = cap->depth;
    if (first > 0 && cap->pcs[first - 1] - stop.lo < stop.hi - stop.lo)
        first--;
    size_t npy = gl_py_capture(top, cap->pcs + first, GL_MAX_DEPTH - first);
    if (npy > 0) /* nothing written otherwise: the native stack stays */
        cap->depth = first + (uint32_t)npy;
}

/* The first n of pcs up to the first in stop's range, which is kept. */
static uint32_t cut_at_stop(const uintptr_t *pcs, uint32_t n, struct gl_walk_stop stop)
{
    if (stop.hi == stop.lo) /* no stop: not a Python thread */
        return n;
    for (uint32_t i = 0; i < n; i++)
        if (pcs[i] - stop.lo < stop.hi - stop.lo)
            return i + 1;
    return n;
}

#if defined(__SANITIZE_THREAD__)
/* TSan builds only: unw_backtrace keeps a per-thread trace cache that libunwind
 * frees in the last round of thread-specific-data destructors, after TSan's
 * runtime has finalized the thread, and the lock it takes there crashes TSan
 * (docs/reliability.md).  Walking with unw_step keeps no per-thread state, so
 * the TSan phase can run the tests whose threads exit.  Always inlined: the
 * context is the caller's, as with unw_backtrace. */
static inline __attribute__((always_inline)) int walk_stack(void **buf, int size)
{
    unw_context_t uc;
    unw_cursor_t cursor;
    if (unw_getcontext(&uc) != 0 || unw_init_local(&cursor, &uc) != 0)
        return 0;
    int n = 0;
    unw_word_t ip;
    while (n < size && unw_get_reg(&cursor, UNW_REG_IP, &ip) == 0 && ip != 0) {
        buf[n++] = (void *)(uintptr_t)ip;
        if (unw_step(&cursor) <= 0)
            break;
    }
    return n;
}
#else
#define walk_stack unw_backtrace
#endif

/* How many frames to unwind beyond the `depth` the user wants, for our own:
 * the most ever seen plus one (OWN_FRAMES_MAX until the first capture), so
 * that unwinding does not pay for frames it then drops. */
static _Atomic int own_frames_max;

/* Drops our own frames from the front of raw[0..n) and keeps at most `want`
 * of the rest in pcs; returns how many.  learn: update own_frames_max (not
 * from the check mode's second walk, which has one own frame fewer than the
 * cache's walker: the two would make the walk's size, part of the cache's
 * key, flip). */
static uint32_t keep_user_frames(void *const *raw, int n, int want, int extra, bool learn, uintptr_t *pcs)
{
    uintptr_t own_lo, own_hi;
    gl_own_range(&own_lo, &own_hi); /* read once, not once a frame */
    int skip = 0;
    while (skip < n && (uintptr_t)raw[skip] - own_lo < own_hi - own_lo)
        skip++;
    if (learn && skip + 1 > extra && skip < OWN_FRAMES_MAX)
        atomic_store_explicit(&own_frames_max, skip + 1, memory_order_relaxed);
    int keep = n - skip;
    if (keep > want)
        keep = want;
    if (keep < 0)
        keep = 0;
    _Static_assert(sizeof(void *) == sizeof(uintptr_t), "a pc is a pointer");
    memcpy(pcs, raw + skip, (size_t)keep * sizeof *pcs);
    return (uint32_t)keep;
}

void gl_stack_capture(struct gl_capture *cap)
{
    void *raw[GL_MAX_DEPTH + OWN_FRAMES_MAX];
    int want = gl_config.depth;
    cap->depth = 0;
    if (want <= 0)
        return;
    int extra = atomic_load_explicit(&own_frames_max, memory_order_relaxed);
    int size = want + (extra ? extra : OWN_FRAMES_MAX);
    /* A thread running Python: its walk stops at the interpreter, whose
     * frames the Python ones replace (merge_python). */
    void *py_top = gl_config.python ? gl_py_top_frame() : NULL;
    struct gl_walk_stop stop = {0, 0};
    if (py_top != NULL)
        gl_py_interpreter_range(&stop.lo, &stop.hi);
    /* libunwind may hold the loader's lock (dl_iterate_phdr) and its own
     * while it walks: a fatal signal here must not send the writer, which
     * walks the loader's list too, to wait for them (gl_busy). */
    gl_busy_enter();
    /* The cache answers, or walks recording what it reads (stack_cache.h);
     * where it cannot, unw_backtrace walks as before.  Both start at the
     * return address into this function and find the same frames. */
    enum gl_stack_walk_kind kind = GL_WALK_UNCACHED;
    int n = -1;
    if (gl_config.stack_cache != GL_STACK_CACHE_OFF)
        n = gl_stack_cache_walk(raw, size, stop, &kind);
    int fell_back = n < 0;
    if (fell_back) {
        /* libunwind validates addresses through a pipe (read, write: both
         * cancellation points); the cache's replay reads none. */
        gl_nocancel_begin();
        n = walk_stack(raw, size);
        gl_nocancel_end();
    }
    gl_busy_leave();
    /* unw_backtrace does not stop: cut alike, so that one place's stack
     * is the same whichever walked it */
    cap->depth = cut_at_stop(cap->pcs, keep_user_frames(raw, n, want, extra, true, cap->pcs), stop);
    if (gl_config.stack_check[0] != '\0') {
        gl_stack_check_count(kind, fell_back);
        if (!fell_back) {
            /* The full walk, from this same frame and for as many frames. */
            void *full[GL_MAX_DEPTH + OWN_FRAMES_MAX];
            uintptr_t pcs[GL_MAX_DEPTH];
            gl_busy_enter();
            gl_nocancel_begin();
            int m = walk_stack(full, size);
            gl_nocancel_end();
            gl_busy_leave();
            uint32_t keep = cut_at_stop(pcs, keep_user_frames(full, m, want, extra, false, pcs), stop);
            gl_stack_check_compare(kind, cap->pcs, cap->depth, pcs, keep);
        }
    }
    if (py_top != NULL)
        merge_python(cap, py_top, stop);
}
