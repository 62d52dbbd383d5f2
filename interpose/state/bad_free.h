/* Frees of an address or handle that has no live allocation: the call
 * stack, API, device and whether CUDA refused the free too, so the report can
 * show where a double free or a free of a pointer never allocated happened
 * (valgrind's "Invalid free()").  One entry per (stack, API, outcome), at most
 * GL_BAD_FREE_MAX; the DEVICES record's unknown_free_count counts them all.
 *
 * A free CUDA refused is a bug in the program (cudaErrorInvalidValue: freed
 * twice, never allocated, or not the start of an allocation).  One CUDA
 * accepted is memory allocated where gpuleak could not see it. */
#ifndef GL_BAD_FREE_H
#define GL_BAD_FREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gl_bad_free {
    uint64_t ptr, count, time_ns;
    uint32_t stack_id;
    int32_t device;
    uint16_t api;
    bool rejected;
};

struct gl_stack;

/* A free of `key` by `api` found no record; `rejected`: the real call
 * failed.  stack: the free's, when the caller has it already; else (NULL)
 * the calling stack is captured (errno is preserved). */
void gl_bad_free_note(int32_t device, uint64_t key, uint16_t api, bool rejected, const struct gl_stack *stack);

/* Copies the entries into a malloc'ed array (*n of them); NULL when there
 * are none or memory ran out. */
struct gl_bad_free *gl_bad_free_copy(size_t *n);

/* Detach: every entry dropped (docs/attach.md). */
void gl_bad_free_reset(void);
void gl_bad_free_postfork_child(void);

#endif
