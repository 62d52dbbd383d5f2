/* Turns stack pcs from a snapshot into function / file:line / module using
 * elfutils libdwfl and the snapshot's own module map.  Results are cached per
 * pc, and modules are opened lazily (only those a shown stack needs). */
#ifndef GPULEAK_SYMBOLIZE_H
#define GPULEAK_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snap_read.h"

struct sym_frame {
    const char *function; /* demangled; NULL when unknown */
    const char *file;     /* as recorded in DWARF; NULL when unknown */
    unsigned line;        /* 0 when unknown */
    const char *module;   /* basename of the module; NULL: pc in no module */
    int module_index;     /* index into snapshot.modules, or -1 */
    uint64_t address;     /* the pc as recorded (a return address) */
    uint64_t offset;      /* address - module load bias (0 without module) */
    bool inlined;         /* body inlined into the next frame's function */
    bool python;          /* a Python frame (module "python", no address) */
};

enum sym_module_status {
    SYM_MOD_UNUSED = 0, /* no shown frame needed it: never opened */
    SYM_MOD_OK,
    SYM_MOD_MISSING,    /* file not found */
    SYM_MOD_MISMATCH,   /* file's GNU build-id differs from the snapshot's */
    SYM_MOD_BAD,        /* file exists but elfutils cannot use it */
};

struct symbolizer;

/* open_files false: every module is treated as missing and nothing is read
 * from disk (a harness fed hostile snapshots). */
struct symbolizer *sym_new(const struct snapshot *s, bool open_files);
void sym_free(struct symbolizer *sy);
/* The snapshot moved (its struct, not its contents): point at it anew. */
void sym_rebind(struct symbolizer *sy, const struct snapshot *s);

/* Frames for one pc, innermost first (more than one when inlined calls were
 * expanded).  The array and its strings live until sym_free. */
const struct sym_frame *sym_pc(struct symbolizer *sy, uint64_t pc, size_t *n);

enum sym_module_status sym_module_status(const struct symbolizer *sy, size_t i);
const char *sym_module_status_name(enum sym_module_status st);
/* One line explaining a non-OK status of module i (NULL when OK/unused). */
const char *sym_module_note(const struct symbolizer *sy, size_t i);

#endif
