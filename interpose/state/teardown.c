#include "state/teardown.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "base/lock.h"
#include "snapshot_format.h"

/* Teardowns are rare and drop their records in one pass, so a plain array
 * under a mutex (the copy runs on the writer thread, outside the exclusive
 * section). */
static struct gl_lock lock = GL_LOCK_INIT(TEARDOWN);
static struct gl_teardown table[GL_TEARDOWN_MAX];
static size_t used;
/* A reset drops every record at once, inside the exclusive section (every
 * thread waits): finding a record's group must not scan the table.  Open
 * addressing over twice the table's size; a slot holds index + 1, 0 empty. */
#define SLOTS (2 * GL_TEARDOWN_MAX)
static uint16_t slots[SLOTS];

static bool same(const struct gl_teardown *t, uint32_t stack_id, int32_t device, uint16_t kind, uint16_t api,
                 uint16_t teardown)
{
    return t->stack_id == stack_id && t->device == device && t->kind == kind && t->api == api &&
           t->teardown == teardown;
}

static size_t slot_of(uint32_t stack_id, int32_t device, uint16_t kind, uint16_t api, uint16_t teardown)
{
    uint64_t h = ((uint64_t)stack_id << 32 | (uint32_t)device) * 0x9e3779b97f4a7c15u;
    h ^= ((uint64_t)kind << 32 | (uint64_t)api << 16 | teardown) * 0xc2b2ae3d27d4eb4fu;
    return (size_t)(h >> 40) % SLOTS;
}

void gl_teardown_note(uint32_t stack_id, int32_t device, uint16_t kind, uint16_t api, uint64_t bytes,
                      uint16_t teardown, uint64_t time_ns)
{
    gl_lock(&lock);
    size_t k = slot_of(stack_id, device, kind, api, teardown);
    while (slots[k] != 0 && !same(&table[slots[k] - 1], stack_id, device, kind, api, teardown))
        k = (k + 1) % SLOTS; /* never full: at most half the slots are used */
    if (slots[k] != 0) {
        struct gl_teardown *t = &table[slots[k] - 1];
        t->bytes = t->bytes + bytes < t->bytes ? UINT64_MAX : t->bytes + bytes;
        t->count++;
    } else if (used < GL_TEARDOWN_MAX) {
        table[used] = (struct gl_teardown){.bytes = bytes, .count = 1, .time_ns = time_ns, .stack_id = stack_id,
                                           .device = device, .kind = kind, .api = api, .teardown = teardown};
        slots[k] = (uint16_t)++used;
    }
    gl_unlock(&lock);
}

struct gl_teardown *gl_teardown_copy(size_t *n)
{
    gl_lock(&lock);
    *n = used;
    struct gl_teardown *out = used ? malloc(used * sizeof *out) : NULL;
    if (out != NULL)
        memcpy(out, table, used * sizeof *out);
    else
        *n = 0;
    gl_unlock(&lock);
    return out;
}

void gl_teardown_reset(void)
{
    gl_lock(&lock);
    used = 0;
    memset(slots, 0, sizeof slots);
    gl_unlock(&lock);
}

void gl_teardown_postfork_child(void)
{
    /* Another thread may have held the lock at fork.  What the parent leaked
     * until a teardown is the parent's, as its live records are (the child
     * starts with an empty table, track.c). */
    gl_lock_init(&lock, GL_LOCK_TEARDOWN, 0);
    used = 0;
    memset(slots, 0, sizeof slots);
}
