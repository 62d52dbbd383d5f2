/* The snapshot file's buffered little-endian writer: bytes, fields, strings
 * and record headers (docs/snapshot-format.md), and what the record writers
 * (snapshot_stages.c) leave in it for the ones after them. */
#ifndef GL_SNAPSHOT_WRITER_H
#define GL_SNAPSHOT_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot_codec.h"

struct gl_snap_writer {
    int fd;
    int err; /* first errno seen; once set, nothing more is written */
    uint64_t offset;
    uint64_t records;
    /* Where the snapshot's number (the %n of its name) is in the file: the
     * process record and this snapshot's mark in the history; rewritten if
     * the file has to take another number (renumber). */
    uint64_t index;
    uint64_t index_at[2];
    /* The highest process-wide Python frame id and stack id written: a
     * PyTorch view's own frames and stacks are numbered after them
     * (torch_frame_base: the frames' highest before the view's). */
    uint32_t pyframe_top, stack_top, torch_frame_base;
    size_t len;
    uint8_t buf[1 << 16];
};

/* Writes what is buffered; the first error is kept in w->err. */
void gl_snap_flush(struct gl_snap_writer *w);
void gl_snap_bytes(struct gl_snap_writer *w, const void *p, size_t n);
void gl_snap_u32(struct gl_snap_writer *w, uint32_t v);
void gl_snap_u64(struct gl_snap_writer *w, uint64_t v);
/* A string: its length (at most GL_SNAP_MAX_STRING), then its bytes. */
void gl_snap_str(struct gl_snap_writer *w, const char *s, size_t n);
/* A record's header, counted for the END record. */
void gl_snap_record(struct gl_snap_writer *w, uint32_t type, uint32_t count, uint64_t length);

/* One fixed-size part (a record's fixed fields, an array entry), encoded
 * from its field list in snapshot_fields.h: no offset is written here. */
#define GL_SNAP_PART(w, part, ...)                                             \
    do {                                                                       \
        uint8_t part_[sizeof(struct gl_wire_##part##_layout)];                 \
        gl_wire_##part##_encode(part_, &(const struct gl_wire_##part){__VA_ARGS__}); \
        gl_snap_bytes((w), part_, sizeof part_);                               \
    } while (0)

#endif
