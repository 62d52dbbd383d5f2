#include "state/stack_tally.h"

#include <stdatomic.h>
#include <stddef.h>

#include "state/stack_table.h"

static void slot_flush(struct gl_tally_slot *sl)
{
    struct gl_stack *s = sl->stack;
    if (s == NULL)
        return;
    if (sl->allocs != 0)
        atomic_fetch_add_explicit(&s->allocs, sl->allocs, memory_order_relaxed);
    if (sl->bytes != 0)
        atomic_fetch_add_explicit(&s->bytes, sl->bytes, memory_order_relaxed);
    if (sl->frees != 0)
        atomic_fetch_add_explicit(&s->frees, (uint64_t)sl->frees, memory_order_relaxed);
    *sl = (struct gl_tally_slot){0};
}

/* The slot for s, emptied of any other stack first.  Stacks are malloc'ed
 * (16-byte aligned): the bits above the alignment pick the slot. */
static struct gl_tally_slot *slot_of(struct gl_stack_tally *t, struct gl_stack *s)
{
    uintptr_t a = (uintptr_t)s;
    struct gl_tally_slot *sl = &t->slots[((a >> 4) ^ (a >> 9)) % GL_TALLY_SLOTS];
    if (sl->stack != s) {
        slot_flush(sl);
        sl->stack = s;
    }
    return sl;
}

void gl_stack_tally_alloc(struct gl_stack_tally *t, struct gl_stack *s, uint64_t size, uint16_t api, uint8_t kind)
{
    if (s == NULL)
        return;
    struct gl_tally_slot *sl = slot_of(t, s);
    sl->allocs++;
    sl->bytes += size;
    /* "Of the latest allocation": written only when it changes, so that a
     * stack shared by threads is read, not written, on every event. */
    if (atomic_load_explicit(&s->api, memory_order_relaxed) != api)
        atomic_store_explicit(&s->api, api, memory_order_relaxed);
    if (atomic_load_explicit(&s->kind, memory_order_relaxed) != kind)
        atomic_store_explicit(&s->kind, kind, memory_order_relaxed);
}

void gl_stack_tally_free(struct gl_stack_tally *t, struct gl_stack *s, int64_t delta)
{
    if (s != NULL)
        slot_of(t, s)->frees += delta;
}

void gl_stack_tally_flush(struct gl_stack_tally *t)
{
    for (int i = 0; i < GL_TALLY_SLOTS; i++)
        slot_flush(&t->slots[i]);
}
