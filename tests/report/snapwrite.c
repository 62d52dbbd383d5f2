/* See snapwrite.h.  Little-endian host assumed, as in the format. */
#include "snapwrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot_format.h"

static void reserve(struct sw *w, size_t n)
{
    if (w->len + n <= w->cap)
        return;
    size_t c = w->cap ? w->cap : 4096;
    while (c < w->len + n)
        c *= 2;
    w->buf = realloc(w->buf, c);
    if (!w->buf) {
        perror("snapgen");
        exit(1);
    }
    w->cap = c;
}

void sw_bytes(struct sw *w, const void *p, size_t n)
{
    reserve(w, n);
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

void sw_u16(struct sw *w, uint16_t v) { sw_bytes(w, &v, 2); }
void sw_u32(struct sw *w, uint32_t v) { sw_bytes(w, &v, 4); }
void sw_u64(struct sw *w, uint64_t v) { sw_bytes(w, &v, 8); }

void sw_str(struct sw *w, const char *s)
{
    sw_u32(w, (uint32_t)strlen(s));
    sw_bytes(w, s, strlen(s));
}

void sw_init(struct sw *w, uint32_t version)
{
    memset(w, 0, sizeof *w);
    SW_PART(w, file_header, .magic = GL_SNAP_MAGIC, .version = version, .flags = 0);
}

size_t sw_begin(struct sw *w, uint32_t type, uint32_t count)
{
    size_t off = w->len;
    SW_PART(w, record_header, .type = type, .count = count, .length = 0);
    return off;
}

void sw_end(struct sw *w, size_t hdr)
{
    SW_SET(w, hdr, record_header, length, w->len - hdr - GL_SNAP_RECORD_HEADER_SIZE);
    w->nrec++;
}

void sw_finish(struct sw *w)
{
    size_t off = sw_begin(w, GL_REC_END, 1);
    SW_PART(w, end, .records = w->nrec, .offset = off);
    SW_SET(w, off, record_header, length, GL_END_SIZE);
}

int sw_save(const struct sw *w, const char *path, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(w->buf, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

void sw_free(struct sw *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}
