/* Stacks that live only as long as the view that names them: PyTorch's
 * recorded Python stacks of its blocks (control/torch_view.c), interned per
 * snapshot instead of in the process-wide tables (state/stack_table.h,
 * capture/pyframes.h), which keep every stack for the life of the process.
 * A request with 100k distinct tensor lines made every later snapshot carry
 * 100k stacks that nothing referred to any more (issue 34, defect 8).
 *
 * Ids here are the table's own, 1, 2, 3...; the snapshot writer numbers
 * them after the process-wide ones it writes (control/snapshot_stages.c), so a
 * file never holds two stacks or frames with one id.  Not locked: a table
 * belongs to the one snapshot being written. */
#ifndef GL_VIEW_STACKS_H
#define GL_VIEW_STACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ut.h"

struct gl_view_frame {
    UT_hash_handle hh;
    uint32_t id, line, file_len, func_len;
    char key[]; /* file '\0' func '\0' line (4 bytes): the hash key */
};

struct gl_view_stack {
    UT_hash_handle hh;
    uint32_t id, depth;
    uint32_t frames[]; /* this table's frame ids, innermost first: the key */
};

struct gl_view_stacks {
    struct gl_view_frame *frames_by_key, **frames; /* frames[i] has id i + 1 */
    uint32_t nframes, cap_frames;
    struct gl_view_stack *stacks_by_key, **stacks; /* stacks[i] has id i + 1 */
    uint32_t nstacks, cap_stacks;
};

/* The id of the frame (file, func, line), added if new; 0 when memory ran
 * out.  Names are cut as capture/pyframes.h cuts a walk's (GL_PY_MAX_TEXT, capture/pyframes.h),
 * so a reader matches the same frame from either source. */
uint32_t gl_view_frame_intern(struct gl_view_stacks *t, const char *file, size_t file_len, const char *func,
                              size_t func_len, uint32_t line);

/* The id of the stack of these frame ids (depth 1 or more), added if new; 0
 * when depth is 0 or memory ran out. */
uint32_t gl_view_stack_intern(struct gl_view_stacks *t, const uint32_t *frames, uint32_t depth);

static inline const char *gl_view_frame_file(const struct gl_view_frame *f) { return f->key; }
static inline const char *gl_view_frame_func(const struct gl_view_frame *f) { return f->key + f->file_len + 1; }

/* Frees everything and leaves an empty table. */
void gl_view_stacks_free(struct gl_view_stacks *t);

#endif
