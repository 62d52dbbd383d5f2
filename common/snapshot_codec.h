/* Encoding and decoding of the fixed-size parts of a snapshot file, all
 * expanded from the field lists of snapshot_fields.h, so that the writer
 * (interposer), the reader (reporter) and the test tools cannot disagree on
 * an offset: none is written by hand.
 *
 * For each part (GL_PART_LIST: ALLOCS, PROCESS, ...) this declares
 *   struct gl_wire_<part>         the values of its fields (reserved ones
 *                                 left out), for writers to fill;
 *   gl_wire_<part>_encode(dst, v) the GL_*_SIZE bytes of the part, reserved
 *                                 fields 0;
 *   gl_wire_<part>_decode(src, v) the reverse;
 *   GL_WIRE_OFF(part, field)      a field's offset in the part, for error
 *                                 messages that name an offset and for
 *                                 writers that patch a field later;
 * and GL_WIRE_DECODE(PART, part, src, dst) decodes into any struct whose
 * members have the field names (the reader's snap_* structs, declared with
 * GL_WIRE_MEMBERS).
 *
 * Values are copied with memcpy, never by casting a pointer into a buffer:
 * the file is byte-packed and a hostile one may put anything anywhere.  The
 * packed gl_wire_<part>_layout structs only compute offsets and sizes; no
 * data is ever accessed through them. */
#ifndef GPULEAK_SNAPSHOT_CODEC_H
#define GPULEAK_SNAPSHOT_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "snapshot_fields.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "snapshot_codec.h assumes a little-endian host (the file format is little-endian)"
#endif

typedef uint16_t gl_wire_u16;
typedef uint32_t gl_wire_u32;
typedef uint64_t gl_wire_u64;
typedef int32_t gl_wire_i32;
typedef uint8_t gl_wire_b8[8];

static inline void gl_wire_get_u16(uint16_t *v, const uint8_t *p) { memcpy(v, p, 2); }
static inline void gl_wire_get_u32(uint32_t *v, const uint8_t *p) { memcpy(v, p, 4); }
static inline void gl_wire_get_u64(uint64_t *v, const uint8_t *p) { memcpy(v, p, 8); }
static inline void gl_wire_get_i32(int32_t *v, const uint8_t *p) { memcpy(v, p, 4); }
static inline void gl_wire_get_b8(uint8_t (*v)[8], const uint8_t *p) { memcpy(*v, p, 8); }
static inline void gl_wire_put_u16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void gl_wire_put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void gl_wire_put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void gl_wire_put_i32(uint8_t *p, int32_t v) { memcpy(p, &v, 4); }
static inline void gl_wire_put_b8(uint8_t *p, const uint8_t *v) { memcpy(p, v, 8); }

/* One struct member per field; reserved fields have none. */
#define GL_WIRE_MEMBER(t, name, doc) gl_wire_##t name;
#define GL_WIRE_NO_MEMBER(t, name, doc)
#define GL_WIRE_MEMBERS(PART) GL_FIELDS_##PART(GL_WIRE_MEMBER, GL_WIRE_NO_MEMBER)

/* The layout: every field, reserved ones under a name of their own. */
#define GL_WIRE_LAYOUT_F(t, name, doc) gl_wire_##t name;
#define GL_WIRE_LAYOUT_R(t, name, doc) gl_wire_##t reserved_##name;

#define GL_WIRE_OFF(part, field) offsetof(struct gl_wire_##part##_layout, field)

#define GL_WIRE_ENC_F(t, name, doc) gl_wire_put_##t(gl_dst_ + offsetof(gl_lay_, name), gl_src_->name);
#define GL_WIRE_ENC_R(t, name, doc) memset(gl_dst_ + offsetof(gl_lay_, reserved_##name), 0, sizeof(gl_wire_##t));
#define GL_WIRE_DEC_F(t, name, doc) gl_wire_get_##t(&gl_dst_->name, gl_src_ + offsetof(gl_lay_, name));
#define GL_WIRE_DEC_R(t, name, doc)

/* Decodes part PART at src into *dst, any struct with its members. */
#define GL_WIRE_DECODE(PART, part, src, dst)                                   \
    do {                                                                       \
        typedef struct gl_wire_##part##_layout gl_lay_;                        \
        const uint8_t *gl_src_ = (src);                                        \
        __typeof__(dst) gl_dst_ = (dst);                                       \
        GL_FIELDS_##PART(GL_WIRE_DEC_F, GL_WIRE_DEC_R)                         \
    } while (0)

/* Encodes *src, any struct with PART's members, into dst. */
#define GL_WIRE_ENCODE(PART, part, dst, src)                                   \
    do {                                                                       \
        typedef struct gl_wire_##part##_layout gl_lay_;                        \
        uint8_t *gl_dst_ = (dst);                                              \
        __typeof__(src) gl_src_ = (src);                                       \
        GL_FIELDS_##PART(GL_WIRE_ENC_F, GL_WIRE_ENC_R)                         \
    } while (0)

#define GL_WIRE_DEFINE(PART, part, size)                                       \
    struct __attribute__((packed)) gl_wire_##part##_layout {                   \
        GL_FIELDS_##PART(GL_WIRE_LAYOUT_F, GL_WIRE_LAYOUT_R)                   \
    };                                                                         \
    _Static_assert(sizeof(struct gl_wire_##part##_layout) == (size),           \
                   "the fields of " #PART " must add up to its size in snapshot_format.h"); \
    struct gl_wire_##part {                                                    \
        GL_WIRE_MEMBERS(PART)                                                  \
    };                                                                         \
    static inline void gl_wire_##part##_encode(uint8_t *dst, const struct gl_wire_##part *v) \
    {                                                                          \
        GL_WIRE_ENCODE(PART, part, dst, v);                                    \
    }                                                                          \
    static inline void gl_wire_##part##_decode(const uint8_t *src, struct gl_wire_##part *v) \
    {                                                                          \
        GL_WIRE_DECODE(PART, part, src, v);                                    \
    }

GL_PART_LIST(GL_WIRE_DEFINE)

#endif
