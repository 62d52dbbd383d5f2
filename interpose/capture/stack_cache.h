/* An exact per-thread cache of unwound stacks (docs/performance.md, "Stack
 * cache"): a loop that allocates from one place has one stack, so the walk
 * is done once and replayed for as long as every register and stack word
 * the walk read still holds the value it read. */
#ifndef GL_STACK_CACHE_H
#define GL_STACK_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"

enum gl_stack_walk_kind {
    GL_WALK_HIT,      /* replayed from the cache */
    GL_WALK_MISS,     /* walked with the recording walker, stored */
    GL_WALK_UNCACHED, /* walked with the recording walker, not storable */
    GL_WALK_PLAIN,    /* (with -1) a miss without the credit to record:
                       * the caller walks with unw_backtrace */
};

/* A walk's end short of `size` frames: it stops after the first frame
 * whose pc lies in [lo, hi), which it keeps.  Python threads stop at the
 * interpreter, whose frames the Python ones replace (capture/stacks.c).
 * {0, 0}: never. */
struct gl_walk_stop {
    uintptr_t lo, hi;
};

/* Unwinds the calling thread like unw_backtrace(buf, size), frame for
 * frame, starting at its caller's return address, up to `stop`.  Returns
 * the number of frames and sets *kind, or -1 when the cache does not answer
 * and the recording walker does not run (no credit: *kind is GL_WALK_PLAIN;
 * an error, a TSan build, a stack it does not know: *kind untouched): the
 * caller walks with unw_backtrace instead. */
int gl_stack_cache_walk(void **buf, int size, struct gl_walk_stop stop, enum gl_stack_walk_kind *kind);

/* Loaded objects changed (dlclose): every thread's cached stacks and
 * libunwind's per-IP unwind rules are forgotten before their next use. */
void gl_stack_cache_flush(void);

/* fork: the recording walk's lock, taken first by the prepare handler
 * (control/lifecycle.c's one ordered list), released in the parent and
 * re-made in the child. */
void gl_stack_cache_prefork(void);
void gl_stack_cache_postfork_parent(void);
void gl_stack_cache_postfork_child(void);

#endif
