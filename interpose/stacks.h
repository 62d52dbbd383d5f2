/* Call stacks: captured with libunwind in the hook, interned once in a uthash
 * table, shared by every record that has the same stack.  Interned stacks are
 * immutable and never freed, so a pointer to one stays valid for the life of
 * the process (and across fork). */
#ifndef GL_STACKS_H
#define GL_STACKS_H

#include <stdint.h>

#include "config.h"
#include "ut.h"

struct gl_stack {
    UT_hash_handle hh;
    struct gl_stack *older; /* list of all stacks, newest first */
    uint32_t id;            /* 1, 2, 3...; 0 is "no stack" in files */
    uint32_t depth;
    uintptr_t pcs[];
};

struct gl_capture {
    uint32_t depth;
    uintptr_t pcs[GL_MAX_DEPTH];
};

/* Unwinds the calling thread, drops libgpuleak's own frames and keeps at
 * most gl_config.depth frames. */
void gl_stack_capture(struct gl_capture *cap);

/* The interned stack equal to cap; NULL if cap is empty or memory ran out. */
struct gl_stack *gl_stack_intern(const struct gl_capture *cap);

/* The newest stack and how many there are; walk ->older from it.  Safe
 * without locks afterwards because stacks are only ever prepended. */
struct gl_stack *gl_stacks_newest(uint32_t *count);

/* fork support: the child must not inherit a lock held by another thread. */
void gl_stacks_lock(void);
void gl_stacks_unlock(void);
void gl_stacks_reinit_lock(void);

#endif
