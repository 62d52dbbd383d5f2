#include "history.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static struct gl_event *ring;
static size_t capacity;
static _Atomic uint64_t head; /* events ever appended */

void gl_history_configure(size_t max_entries)
{
    struct gl_event *fresh = NULL;
    if (max_entries > 0) {
        fresh = calloc(max_entries, sizeof *fresh);
        if (fresh == NULL)
            max_entries = 0; /* no memory for it: run without history */
    }
    free(ring);
    ring = fresh;
    capacity = max_entries;
    atomic_store(&head, 0);
}

size_t gl_history_capacity(void) { return capacity; }

void gl_history_add(const struct gl_event *e)
{
    if (capacity == 0)
        return;
    uint64_t i = atomic_fetch_add_explicit(&head, 1, memory_order_relaxed);
    ring[i % capacity] = *e;
}

struct gl_event *gl_history_copy(size_t *n) { return gl_history_copy_into(NULL, 0, n); }

struct gl_event *gl_history_copy_into(struct gl_event *buf, size_t room, size_t *n)
{
    *n = 0;
    uint64_t h = atomic_load(&head);
    if (capacity == 0 || h == 0) {
        free(buf);
        return NULL;
    }
    size_t count = h < capacity ? (size_t)h : capacity;
    struct gl_event *out = buf;
    if (out == NULL || room < count) {
        free(buf);
        out = malloc(count * sizeof *out);
    }
    if (out == NULL)
        return NULL;
    size_t start = h < capacity ? 0 : (size_t)(h % capacity);
    size_t first = capacity - start < count ? capacity - start : count;
    memcpy(out, ring + start, first * sizeof *out);
    memcpy(out + first, ring, (count - first) * sizeof *out);
    *n = count;
    return out;
}

#define LABELS 4096
#define LABEL_MAX 256

static pthread_mutex_t labels_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint32_t id;
    char text[LABEL_MAX];
} labels[LABELS];
static uint32_t next_label = 1;

uint32_t gl_label_add(const char *text)
{
    pthread_mutex_lock(&labels_lock);
    uint32_t id = next_label++;
    labels[id % LABELS].id = id;
    strncpy(labels[id % LABELS].text, text ? text : "", LABEL_MAX - 1);
    labels[id % LABELS].text[LABEL_MAX - 1] = '\0';
    pthread_mutex_unlock(&labels_lock);
    return id;
}

size_t gl_label_get(uint32_t id, char *buf, size_t size)
{
    size_t len = 0;
    pthread_mutex_lock(&labels_lock);
    if (id != 0 && labels[id % LABELS].id == id) {
        len = strnlen(labels[id % LABELS].text, LABEL_MAX);
        if (len >= size)
            len = size - 1;
        memcpy(buf, labels[id % LABELS].text, len);
        buf[len] = '\0';
    }
    pthread_mutex_unlock(&labels_lock);
    return len;
}

void gl_history_postfork_child(void)
{
    /* The parent's events are not the child's. */
    atomic_store(&head, 0);
    pthread_mutex_init(&labels_lock, NULL);
}
