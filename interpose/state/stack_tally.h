/* A thread's pending allocation-call counts per stack (the CALLS record:
 * allocs, frees and bytes of each interned stack).
 *
 * A loop that allocates from one place on several threads used to add to the
 * same stack's counters on every event: one cache line written by every
 * thread, the largest shared cost per event in the thread benchmark
 * (docs/performance.md, "Threads").  Each lane keeps a small direct-mapped
 * tally instead; a slot is added to the stack's counters when another stack
 * needs it, when the thread exits, and in the exclusive section before a
 * snapshot copies the state (gl_lanes_flush_tallies), so a snapshot's counts
 * cover every event before it, as before.
 *
 * Every function here is called with the owning lane held (its thread, or
 * the exclusive section). */
#ifndef GL_STACK_TALLY_H
#define GL_STACK_TALLY_H

#include <stdint.h>

struct gl_stack;

#define GL_TALLY_SLOTS 16

struct gl_tally_slot {
    struct gl_stack *stack; /* NULL: empty */
    uint64_t allocs, bytes;
    int64_t frees; /* a failed free's restore takes one back */
};

struct gl_stack_tally {
    struct gl_tally_slot slots[GL_TALLY_SLOTS];
};

/* An allocation from s (NULL: nothing counted) of size bytes. */
void gl_stack_tally_alloc(struct gl_stack_tally *t, struct gl_stack *s, uint64_t size, uint16_t api, uint8_t kind);
/* A free (delta 1) of memory allocated from s, or its undoing (delta -1). */
void gl_stack_tally_free(struct gl_stack_tally *t, struct gl_stack *s, int64_t delta);
/* Adds every slot to its stack's counters and empties the tally. */
void gl_stack_tally_flush(struct gl_stack_tally *t);

#endif
