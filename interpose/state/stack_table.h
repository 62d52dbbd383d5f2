/* Call stacks interned once in a uthash table, shared by every record that
 * has the same stack.  Interned stacks are immutable and never freed, so a
 * pointer to one stays valid for the life of the process (and across fork).
 * Captured by capture/stacks.h. */
#ifndef GL_STACK_TABLE_H
#define GL_STACK_TABLE_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/ut.h"
#include "capture/stacks.h" /* struct gl_capture */

struct gl_stack {
    UT_hash_handle hh;
    struct gl_stack *older; /* list of all stacks, newest first */
    /* The calls that made memory with this stack and the frees of that
     * memory, of every kind, and the bytes made (the report's "allocation
     * calls": CUDA's allocation calls are slow, so a site that allocates and
     * frees in a loop costs time while leaking nothing).  The only mutable
     * part of a stack; relaxed counters, so a snapshot may see an allocation
     * counted before its bytes.  Threads add to them through their lanes'
     * tallies (stack_tally.h), not per event. */
    _Atomic uint64_t allocs, frees, bytes;
    _Atomic uint16_t api; /* of the latest allocation */
    _Atomic uint8_t kind;
    uint32_t id;            /* 1, 2, 3...; 0 is "no stack" in files */
    uint32_t depth;
    uintptr_t pcs[];
};

/* The interned stack equal to cap; NULL if cap is empty or memory ran out. */
struct gl_stack *gl_stack_intern(const struct gl_capture *cap);

/* Light mode's one stack for every allocation that was not sampled
 * (capture/sample.h): a single frame, GL_UNSAMPLED_PC, that is no code
 * address; the snapshot's SAMPLING record names its id.  NULL if memory
 * ran out. */
struct gl_stack *gl_stack_unsampled(void);

/* The newest stack and how many there are; walk ->older from it.  Safe
 * without locks afterwards because stacks are only ever prepended. */
struct gl_stack *gl_stacks_newest(uint32_t *count);

/* Detach: every stack's call counts back to 0 (the stacks stay: a hook in
 * flight may hold one).  In the exclusive section, lanes' tallies flushed. */
void gl_stacks_zero_counts(void);

/* fork support: the child must not inherit a lock held by another thread. */
void gl_stacks_lock(void);
void gl_stacks_unlock(void);
void gl_stacks_reinit_lock(void);

#endif
