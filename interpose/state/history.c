#include "state/history.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "base/internal.h"
#include "base/lock.h"

_Static_assert(sizeof(struct gl_event) == 64, "an event is one cache line");

static struct gl_event *ring; /* 64-byte aligned: one line per slot */
static size_t capacity;
static uint64_t floor_seq; /* events before it are not this process's */

void gl_history_configure(size_t max_entries)
{
    struct gl_event *fresh = NULL;
    if (max_entries > 0) {
        fresh = aligned_alloc(64, max_entries * sizeof *fresh);
        if (fresh != NULL)
            memset(fresh, 0, max_entries * sizeof *fresh); /* seq 0: empty */
        else
            max_entries = 0; /* no memory for it: run without history */
    }
    free(ring);
    ring = fresh;
    capacity = max_entries;
}

size_t gl_history_capacity(void) { return capacity; }

void gl_history_add(const struct gl_event *e)
{
    if (capacity == 0)
        return;
    struct gl_event *slot = &ring[e->seq % capacity];
    /* A thread that took its number long ago (descheduled for a whole ring)
     * must not overwrite a newer event with one already out of the window. */
    if (slot->seq < e->seq)
        *slot = *e;
}

struct gl_event *gl_history_copy_into(struct gl_event *buf, size_t room, uint64_t last_seq, size_t *n)
{
    *n = 0;
    if (capacity == 0 || last_seq == 0) {
        free(buf);
        return NULL;
    }
    uint64_t first = last_seq >= capacity ? last_seq - capacity + 1 : 1;
    if (first < floor_seq)
        first = floor_seq;
    if (first > last_seq) {
        free(buf);
        return NULL;
    }
    size_t count = (size_t)(last_seq - first + 1);
    struct gl_event *out = buf;
    if (out == NULL || room < count) {
        free(buf);
        out = malloc(count * sizeof *out);
    }
    if (out == NULL)
        return NULL;
    /* Slots in sequence order; a slot holding another number belongs to an
     * event not recorded (or not yet written): skipped. */
    size_t k = 0;
    for (uint64_t seq = first; seq <= last_seq; seq++) {
        const struct gl_event *slot = &ring[seq % capacity];
        if (slot->seq == seq)
            out[k++] = *slot;
    }
    *n = k;
    if (k == 0) {
        free(out);
        return NULL;
    }
    return out;
}

#define LABELS 4096
#define LABEL_MAX 256

static struct gl_lock labels_lock = GL_LOCK_INIT(LABELS);
static struct {
    uint32_t id;
    char text[LABEL_MAX];
} labels[LABELS];
static uint32_t next_label = 1;

uint32_t gl_label_add(const char *text)
{
    gl_lock(&labels_lock);
    uint32_t id = next_label++;
    labels[id % LABELS].id = id;
    strncpy(labels[id % LABELS].text, text ? text : "", LABEL_MAX - 1);
    labels[id % LABELS].text[LABEL_MAX - 1] = '\0';
    gl_unlock(&labels_lock);
    return id;
}

size_t gl_label_get(uint32_t id, char *buf, size_t size)
{
    size_t len = 0;
    gl_lock(&labels_lock);
    if (id != 0 && labels[id % LABELS].id == id) {
        len = strnlen(labels[id % LABELS].text, LABEL_MAX);
        if (len >= size)
            len = size - 1;
        memcpy(buf, labels[id % LABELS].text, len);
        buf[len] = '\0';
    }
    gl_unlock(&labels_lock);
    return len;
}

void gl_history_forget(uint64_t next_seq) { floor_seq = next_seq; }

void gl_history_postfork_child(uint64_t next_seq)
{
    /* The parent's events are not the child's (and the ring's pages stay
     * shared with the parent until the child writes them). */
    floor_seq = next_seq;
    gl_lock_init(&labels_lock, GL_LOCK_LABELS, 0);
}
