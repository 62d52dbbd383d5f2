/* A view's own stacks and Python frames (view_stacks.h). */
#include "state/view_stacks.h"

#include <stdlib.h>
#include <string.h>

#include "capture/pyframes.h"

/* Makes room for one more element in the array whose pointer is at arrp
 * (n used of *cap, doubling); false when memory ran out.  The pointer is
 * read and written through memcpy: arrays of any pointer type. */
static bool grow(void *arrp, size_t elem, uint32_t n, uint32_t *cap)
{
    if (n < *cap)
        return true;
    uint32_t want = *cap ? 2 * *cap : 64;
    void *old, *p;
    memcpy(&old, arrp, sizeof old);
    if ((p = realloc(old, (size_t)want * elem)) == NULL)
        return false;
    memcpy(arrp, &p, sizeof p);
    *cap = want;
    return true;
}

uint32_t gl_view_frame_intern(struct gl_view_stacks *t, const char *file, size_t file_len, const char *func,
                              size_t func_len, uint32_t line)
{
    if (file_len > GL_PY_MAX_TEXT)
        file_len = GL_PY_MAX_TEXT;
    if (func_len > GL_PY_MAX_TEXT)
        func_len = GL_PY_MAX_TEXT;
    size_t keylen = file_len + 1 + func_len + 1 + 4;
    struct gl_view_frame *f = malloc(sizeof *f + keylen);
    if (f == NULL)
        return 0;
    memcpy(f->key, file, file_len);
    f->key[file_len] = '\0';
    memcpy(f->key + file_len + 1, func, func_len);
    f->key[file_len + 1 + func_len] = '\0';
    memcpy(f->key + file_len + func_len + 2, &line, 4);
    struct gl_view_frame *old;
    HASH_FIND(hh, t->frames_by_key, f->key, keylen, old);
    if (old != NULL || !grow(&t->frames, sizeof *t->frames, t->nframes, &t->cap_frames)) {
        free(f);
        return old != NULL ? old->id : 0;
    }
    f->id = t->nframes + 1;
    f->line = line;
    f->file_len = (uint32_t)file_len;
    f->func_len = (uint32_t)func_len;
    gl_ut_oom = false;
    HASH_ADD_KEYPTR(hh, t->frames_by_key, f->key, keylen, f);
    if (gl_ut_oom) {
        free(f);
        return 0;
    }
    t->frames[t->nframes++] = f;
    return f->id;
}

uint32_t gl_view_stack_intern(struct gl_view_stacks *t, const uint32_t *frames, uint32_t depth)
{
    if (depth == 0)
        return 0;
    size_t keylen = (size_t)depth * sizeof *frames;
    struct gl_view_stack *s;
    HASH_FIND(hh, t->stacks_by_key, frames, keylen, s);
    if (s != NULL)
        return s->id;
    if (!grow(&t->stacks, sizeof *t->stacks, t->nstacks, &t->cap_stacks) || (s = malloc(sizeof *s + keylen)) == NULL)
        return 0;
    memcpy(s->frames, frames, keylen);
    s->id = t->nstacks + 1;
    s->depth = depth;
    gl_ut_oom = false;
    HASH_ADD_KEYPTR(hh, t->stacks_by_key, s->frames, keylen, s);
    if (gl_ut_oom) {
        free(s);
        return 0;
    }
    t->stacks[t->nstacks++] = s;
    return s->id;
}

void gl_view_stacks_free(struct gl_view_stacks *t)
{
    HASH_CLEAR(hh, t->frames_by_key);
    HASH_CLEAR(hh, t->stacks_by_key);
    for (uint32_t i = 0; i < t->nframes; i++)
        free(t->frames[i]);
    for (uint32_t i = 0; i < t->nstacks; i++)
        free(t->stacks[i]);
    free(t->frames);
    free(t->stacks);
    memset(t, 0, sizeof *t);
}
