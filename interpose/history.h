/* The history: a bounded ring of the most recent events (allocations, frees,
 * out-of-memory, snapshots, annotations), written into every snapshot so the
 * reporter can draw the usage timeline and replay the state at any point it
 * covers.  Like PyTorch's _record_memory_history(max_entries=N): the ring
 * holds GPULEAK_MAX_ENTRIES events (default 65536, 0 turns it off), 72 bytes
 * each, allocated once when tracking starts.
 *
 * Appending is lock-free (one atomic increment picks the slot) and happens
 * while the caller holds the tracking gate for reading, so a snapshot, which
 * holds the gate for writing, always copies complete events. */
#ifndef GL_HISTORY_H
#define GL_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#define GL_DEFAULT_MAX_ENTRIES 65536
#define GL_MAX_MAX_ENTRIES (64L * 1024 * 1024)

struct gl_event {
    uint64_t seq, time_ns, ptr, size, stream;
    uint32_t stack_id;
    int32_t device;
    uint16_t type, kind, api, reserved;
    uint64_t mem_free, mem_total;
};

/* Sizes the ring (0: off).  Must be called with the gate held exclusively
 * (or before any event). */
void gl_history_configure(size_t max_entries);
size_t gl_history_capacity(void);

/* Caller holds the gate for reading. */
void gl_history_add(const struct gl_event *e);

/* Caller holds the gate exclusively.  Returns a malloc'd copy, oldest first,
 * or NULL with *n = 0 (history off, or out of memory). */
struct gl_event *gl_history_copy(size_t *n);
/* The same into buf (malloc'd, room events), which is used when it is large
 * enough and freed otherwise; lets a snapshot allocate outside the gate. */
struct gl_event *gl_history_copy_into(struct gl_event *buf, size_t room, size_t *n);

/* Annotation labels: a bounded table of the most recent 4096 labels; an
 * ANNOTATION event refers to its label by id. */
uint32_t gl_label_add(const char *text);
/* Copies label `id` into buf; 0 if it has been evicted. */
size_t gl_label_get(uint32_t id, char *buf, size_t size);

void gl_history_postfork_child(void);

#endif
