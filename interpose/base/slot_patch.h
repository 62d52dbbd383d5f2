/* Pointer slots of loaded objects rewritten in place, and put back: what
 * `gpuleak attach` does instead of symbol interposition, since a library
 * loaded into a running process (dlopen, from gdb) is not in front of the
 * program's lookups (docs/attach.md).
 *
 * Two kinds of slots: the GOT entries of every loaded object's imports
 * (R_X86_64_JUMP_SLOT and R_X86_64_GLOB_DAT relocations, chosen by the
 * imported name), and any pointer-sized word of an object's writable
 * segments that holds one of a given set of addresses (function pointers
 * fetched earlier through dlsym or cuGetProcAddress).  A page that is read-
 * only (RELRO) is made writable for the write and given its protection back. */
#ifndef GL_SLOT_PATCH_H
#define GL_SLOT_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gl_slot {
    void **slot;
    void *old;  /* what it held */
    void *with; /* what we wrote */
};

struct gl_slots {
    struct gl_slot *v;
    size_t n, cap;
    bool overflow; /* malloc failed: the set is incomplete */
};

/* For an imported name whose slot holds `current`: the replacement, or NULL
 * to leave the slot alone. */
typedef void *(*gl_import_choice)(const char *name, void *current);

/* Appends every import slot of every loaded object except libgpuleak that
 * `choose` gives a replacement for. */
void gl_slots_collect_imports(struct gl_slots *s, gl_import_choice choose);

/* A value to look for in writable segments, and what replaces it.  `owner`:
 * the start of the object that defines it, whose own segments are not
 * searched (its tables of itself are its business). */
struct gl_swap_value {
    uintptr_t value, with, owner;
};

/* Appends every aligned word of every loaded object's writable segments
 * (except libgpuleak's and each value's owner's) equal to one of `vals`
 * (sorted by value), skipping slots already in `s`. */
void gl_slots_collect_values(struct gl_slots *s, const struct gl_swap_value *vals, size_t nvals);

/* Writes each slot's `with`.  All or nothing: on a failure (a page that
 * cannot be made writable) every slot written is put back; -1 then. */
int gl_slots_apply(struct gl_slots *s);

/* Puts back `old` in each slot that still holds `with` (one rewritten by
 * someone else since, e.g. the lazy binder, is left as it is).  Returns how
 * many were restored. */
size_t gl_slots_restore(struct gl_slots *s);

/* Moves every slot of `more` to the end of `s`; false (and `s` unchanged)
 * when memory ran out. */
bool gl_slots_append(struct gl_slots *s, struct gl_slots *more);

void gl_slots_free(struct gl_slots *s);

#endif
