#include "control/torch_decode.h"

#include <stdlib.h>
#include <string.h>

#include "snapshot_format.h"

struct reader {
    const unsigned char *p, *end;
    bool bad;
};

static uint64_t rd(struct reader *r, size_t n)
{
    uint64_t v = 0;
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        r->p = r->end;
        return 0;
    }
    memcpy(&v, r->p, n); /* little-endian, as struct's '<' */
    r->p += n;
    return v;
}


/* The stack of one block: its frames interned as Python frames in the
 * view's own table, not the process's (view_stacks.h). */
static uint32_t block_stack(const uint32_t *frames, uint32_t nframes, const char **str, const uint32_t *slen,
                            uint32_t nstr, struct gl_view_stacks *t)
{
    uint32_t ids[GL_TORCH_MAX_FRAMES], depth = 0;
    for (uint32_t i = 0; i < nframes && i < GL_TORCH_MAX_FRAMES; i++) {
        uint32_t line = frames[3 * i], file = frames[3 * i + 1], name = frames[3 * i + 2];
        if (file >= nstr || name >= nstr)
            continue;
        uint32_t id = gl_view_frame_intern(t, str[file], slen[file], str[name], slen[name], line);
        if (id != 0)
            ids[depth++] = id;
    }
    return gl_view_stack_intern(t, ids, depth);
}

/* COLLECT_EXTRA's part, after the strings at `at`: the maxima and the
 * settings, kept as TORCH_SETTINGS' tail.  Absent or malformed: none. */
static void decode_extra(const struct reader *whole, const unsigned char *at, struct gl_torch_view *v)
{
    struct reader r = {at, whole->end, false};
    if (r.end - r.p < 4 + 8 + 8 + 4 || memcmp(r.p, "GLX1", 4) != 0)
        return;
    r.p += 4;
    uint64_t max_alloc = rd(&r, 8), max_res = rd(&r, 8);
    uint32_t n = (uint32_t)rd(&r, 4);
    const unsigned char *tail = r.p;
    for (uint32_t i = 0; i < n && !r.bad; i++) {
        uint32_t l = (uint32_t)rd(&r, 4);
        if (l > GL_SNAP_MAX_STRING || (size_t)(r.end - r.p) < l)
            return;
        r.p += l;
    }
    if (r.bad || n > GL_TORCH_SETTINGS_MAX)
        return;
    v->max_allocated_bytes = max_alloc;
    v->max_reserved_bytes = max_res;
    size_t len = (size_t)(r.p - tail);
    if (n == 0 || (v->settings = malloc(len)) == NULL)
        return;
    memcpy(v->settings, tail, len);
    v->settings_len = len;
    v->nsettings = n;
}

bool gl_torch_decode(const char *buf, size_t len, struct gl_torch_view *v)
{
    struct reader r = {(const unsigned char *)buf, (const unsigned char *)buf + len, false};
    if (len < 28 || memcmp(buf, "GLT1", 4) != 0)
        return false;
    r.p += 4;
    uint32_t nblocks = (uint32_t)rd(&r, 4);
    v->segments = (uint32_t)rd(&r, 4);
    v->reserved_bytes = rd(&r, 8);
    v->allocated_bytes = rd(&r, 8);
    /* First pass: where the strings start. */
    const unsigned char *blocks_at = r.p;
    for (uint32_t i = 0; i < nblocks && !r.bad; i++) {
        if (r.end - r.p < 44)
            return false;
        r.p += 40;
        uint32_t nf = (uint32_t)rd(&r, 4);
        if (nf > GL_TORCH_MAX_FRAMES || (size_t)(r.end - r.p) < (size_t)nf * 12)
            return false;
        r.p += (size_t)nf * 12;
    }
    uint32_t nstr = (uint32_t)rd(&r, 4);
    if (r.bad || nstr > (size_t)(r.end - r.p) / 4)
        return false;
    const char **str = calloc(nstr + 1, sizeof *str);
    uint32_t *slen = calloc(nstr + 1, sizeof *slen);
    v->blocks = calloc(nblocks + 1, sizeof *v->blocks);
    bool ok = str != NULL && slen != NULL && v->blocks != NULL;
    for (uint32_t i = 0; ok && i < nstr; i++) {
        slen[i] = (uint32_t)rd(&r, 4);
        if (r.bad || slen[i] > (size_t)(r.end - r.p)) {
            ok = false;
            break;
        }
        str[i] = (const char *)r.p;
        r.p += slen[i];
    }
    const unsigned char *strings_end = r.p;
    r.p = blocks_at;
    for (uint32_t i = 0; ok && i < nblocks; i++) {
        struct gl_torch_block *b = &v->blocks[i];
        b->segment = rd(&r, 8);
        b->address = rd(&r, 8);
        b->size = rd(&r, 8);
        b->requested_size = rd(&r, 8);
        b->device = (int32_t)rd(&r, 4);
        b->state = (uint16_t)rd(&r, 2);
        rd(&r, 2);
        uint32_t nf = (uint32_t)rd(&r, 4);
        uint32_t frames[3 * GL_TORCH_MAX_FRAMES];
        for (uint32_t k = 0; k < 3 * nf; k++)
            frames[k] = (uint32_t)rd(&r, 4);
        if (b->device < -1 || b->device > GL_SNAP_MAX_DEVICE)
            b->device = -1;
        b->stack_id = block_stack(frames, nf, str, slen, nstr, &v->stacks);
        v->nblocks++;
    }
    free(str);
    free(slen);
    if (ok && !r.bad)
        decode_extra(&r, strings_end, v);
    return ok && !r.bad;
}


void gl_torch_view_free(struct gl_torch_view *v)
{
    free(v->settings);
    v->settings = NULL;
    v->settings_len = 0;
    v->nsettings = 0;
    free(v->blocks);
    v->blocks = NULL;
    v->nblocks = 0;
    gl_view_stacks_free(&v->stacks);
}
