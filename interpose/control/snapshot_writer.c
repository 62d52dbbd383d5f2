#include "control/snapshot_writer.h"

#include <string.h>

#include "control/outfile.h"
#include "snapshot_format.h"

void gl_snap_flush(struct gl_snap_writer *w)
{
    if (w->len > 0 && !w->err)
        w->err = gl_outfile_write(w->fd, w->buf, w->len);
    w->len = 0;
}

void gl_snap_bytes(struct gl_snap_writer *w, const void *p, size_t n)
{
    const uint8_t *src = p;
    w->offset += n;
    if (n <= sizeof w->buf - w->len) { /* the common case: one field */
        memcpy(w->buf + w->len, src, n);
        w->len += n;
        return;
    }
    while (n > 0 && !w->err) {
        if (w->len == sizeof w->buf)
            gl_snap_flush(w);
        size_t chunk = sizeof w->buf - w->len;
        if (chunk > n)
            chunk = n;
        memcpy(w->buf + w->len, src, chunk);
        w->len += chunk;
        src += chunk;
        n -= chunk;
    }
}

/* x86-64 and aarch64 Linux are little-endian; the format is too. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "snapshot writer assumes little-endian");
void gl_snap_u32(struct gl_snap_writer *w, uint32_t v) { gl_snap_bytes(w, &v, 4); }
void gl_snap_u64(struct gl_snap_writer *w, uint64_t v) { gl_snap_bytes(w, &v, 8); }

void gl_snap_str(struct gl_snap_writer *w, const char *s, size_t n)
{
    if (n > GL_SNAP_MAX_STRING)
        n = GL_SNAP_MAX_STRING;
    gl_snap_u32(w, (uint32_t)n);
    gl_snap_bytes(w, s, n);
}

void gl_snap_record(struct gl_snap_writer *w, uint32_t type, uint32_t count, uint64_t length)
{
    GL_SNAP_PART(w, record_header, .type = type, .count = count, .length = length);
    w->records++;
}
