/* The history: a bounded ring of the most recent events (allocations, frees,
 * out-of-memory, snapshots, annotations), written into every snapshot so the
 * reporter can draw the usage timeline and replay the state at any point it
 * covers.  Like PyTorch's _record_memory_history(max_entries=N): the ring
 * holds the events of the last GPULEAK_MAX_ENTRIES sequence numbers (default
 * 65536, 0 turns it off), 64 bytes each, allocated once when tracking starts.
 *
 * Events reach it numbered, through the merger (events.h), which alone
 * writes it: an event's sequence number picks its slot (seq modulo the
 * capacity).  A snapshot merges every lane in the exclusive section first,
 * so it always copies complete events, in sequence order. */
#ifndef GL_HISTORY_H
#define GL_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "base/config.h" /* GL_DEFAULT_MAX_ENTRIES, GL_MAX_MAX_ENTRIES */

struct gl_event {
    uint64_t seq, time_ns;
    union {
        uint64_t ptr;      /* ALLOC, FREE; the label id of an ANNOTATION */
        uint64_t mem_free; /* OOM, which has no pointer: the driver's free memory */
    };
    uint64_t size, stream;
    uint32_t stack_id;
    int32_t device;
    uint16_t type, kind, api, reserved;
    union {
        uint64_t mem_total;     /* OOM */
        uint64_t free_stack_id; /* FREE: the free's own stack (GPULEAK_FREE_STACKS), else 0 */
    };
};

/* Sizes the ring (0: off).  Must be called in the exclusive section (or
 * before any event). */
void gl_history_configure(size_t max_entries);
size_t gl_history_capacity(void);

/* The merger (events.h), holding writer_mutex.  e->seq is its number:
 * unique and non-zero. */
void gl_history_add(const struct gl_event *e);

/* In the exclusive section: the events of sequence numbers up to last_seq
 * still held, oldest first, copied into buf (malloc'd, room events) if it is
 * large enough, else into a new buffer (buf is then freed); NULL with *n = 0
 * if there are none (history off, or out of memory).  Lets a snapshot
 * allocate outside the exclusive section. */
struct gl_event *gl_history_copy_into(struct gl_event *buf, size_t room, uint64_t last_seq, size_t *n);

/* Annotation labels: a bounded table of the most recent 4096 labels; an
 * ANNOTATION event refers to its label by id. */
uint32_t gl_label_add(const char *text);
/* Copies label `id` into buf; 0 if it has been evicted. */
size_t gl_label_get(uint32_t id, char *buf, size_t size);

/* Detach: events before next_seq are dropped (the ring is kept).  In the
 * exclusive section. */
void gl_history_forget(uint64_t next_seq);
/* fork child: events before next_seq were the parent's. */
void gl_history_postfork_child(uint64_t next_seq);

#endif
