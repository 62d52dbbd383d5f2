/* Tiny in-memory writer for snapshot files (test side only): the tests need
 * to produce valid files of known content and precisely broken ones, so it
 * exposes the raw pieces rather than a safe high-level API. */
#ifndef GPULEAK_SNAPWRITE_H
#define GPULEAK_SNAPWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot_codec.h"

struct sw {
    uint8_t *buf;
    size_t len, cap;
    uint64_t nrec; /* records written so far (for END) */
};

void sw_init(struct sw *w, uint32_t version); /* writes the file header */
void sw_bytes(struct sw *w, const void *p, size_t n);
void sw_u16(struct sw *w, uint16_t v);
void sw_u32(struct sw *w, uint32_t v);
void sw_u64(struct sw *w, uint64_t v);
void sw_str(struct sw *w, const char *s); /* u32 length + bytes */
/* Starts a record; returns its header offset for sw_end. */
size_t sw_begin(struct sw *w, uint32_t type, uint32_t count);
void sw_end(struct sw *w, size_t hdr); /* patches the length */
void sw_finish(struct sw *w);          /* END record */

/* Appends one fixed-size part of the format (snapshot_fields.h: a record's
 * fixed fields, an array entry), its fields given by name; the others 0. */
#define SW_PART(w, part, ...)                                                  \
    do {                                                                       \
        uint8_t e_[sizeof(struct gl_wire_##part##_layout)];                    \
        gl_wire_##part##_encode(e_, &(const struct gl_wire_##part){__VA_ARGS__}); \
        sw_bytes((w), e_, sizeof e_);                                          \
    } while (0)

/* Sets one field of the part written at offset at, in place (the broken
 * files of snapgen corrupt). */
#define SW_SET(w, at, part, field, value)                                      \
    do {                                                                       \
        struct gl_wire_##part p_;                                              \
        gl_wire_##part##_decode((w)->buf + (at), &p_);                         \
        p_.field = (value);                                                    \
        gl_wire_##part##_encode((w)->buf + (at), &p_);                         \
    } while (0)
int sw_save(const struct sw *w, const char *path, size_t len);
void sw_free(struct sw *w);

#endif
