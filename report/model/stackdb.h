/* Canonical stacks: the unit every analysis groups on.
 *
 * A snapshot's stack ids are private to its process, and two ids may even
 * show the same frames once CUDA-library frames are folded away or stacks
 * are cut to --group-depth.  So each stack is turned into its list of shown
 * frames, and equal lists are interned once into a stackdb: a "cstack" id.
 * One stackdb can serve several snapshots (diff, merge): frames are compared
 * by what they show (function, file, line; module+offset when there is no
 * name), never by raw address, so ids match across processes. */
#ifndef GPULEAK_STACKDB_H
#define GPULEAK_STACKDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/snap_read.h"
#include "model/suppress.h"
#include "model/symbolize.h"
#include "model/torch_check.h"

struct sdb_opts {
    bool all_frames;      /* do not fold CUDA-library frames, keep the
                             C library's start frames below main */
    bool native;          /* keep native frames of stacks that have Python ones */
    bool full_stacks;     /* show frames in PyTorch's libraries one by one, not
                             as "PyTorch internals, N frames" (user_frame.h) */
    unsigned group_depth; /* keep only the innermost N frames; 0 = all */
    /* --alloc-fn: the program's allocation wrappers (fnmatch globs), never
     * a stack's label (model/user_frame.h) */
    const char *const *alloc_fns;
    size_t nalloc_fns;
};

enum cs_cut { CS_WHOLE = 0, CS_CUT_LIMIT, CS_CUT_GROUP };

struct cstack {
    uint32_t first;  /* index of its first frame id in stackdb.seq */
    uint32_t n;      /* frames shown */
    uint32_t folded; /* CUDA frames folded away (for the first stack seen) */
    uint32_t start;  /* start frames hidden below main (first stack seen) */
    uint8_t cut;     /* enum cs_cut: why the outer end is missing */
    bool empty;      /* a captured stack of depth 0 */
    /* The runtime API function the program called when it is linked into the
     * program (the static runtime), seen among the folded frames; NULL
     * otherwise.  The allocation itself was caught at the driver layer. */
    const char *via_static;
};

struct stackdb {
    struct sdb_opts o;
    struct sym_frame *frames; /* interned frames (copies; strings live in
                                 the symbolizers, which outlive the db);
                                 frames[0] is none (all zero) */
    size_t nframes, cap_frames;
    uint32_t *fslots; /* frame intern table: id + 1, 0 = empty */
    size_t nfslots;
    uint32_t *seq; /* frame ids of all cstacks, back to back */
    size_t nseq, cap_seq;
    struct cstack *cs; /* cs[0]: "no stack captured" */
    size_t ncs, cap_cs;
    uint64_t *cs_hash;
    uint32_t *cslots;
    size_t ncslots;
};

/* Per snapshot: its stacks mapped into a stackdb, with the suppression rule
 * each one matches (on the full stack, before folding). */
struct snapview {
    const struct snapshot *s;
    struct symbolizer *sy;
    struct stackdb *db;
    uint32_t *cs_of;  /* by stack index (position in s->stacks) */
    int32_t *rule_of; /* by stack index; -1 = no rule */
    uint32_t *dense;  /* stack id -> index + 1 when ids are dense, else NULL */
    size_t ndense;
    const struct suppressions *sup; /* what rule_of indexes; may be NULL */
    /* PyTorch's segments, as its allocator named them (TORCH_BLOCKS),
     * sorted, and the built-in rule they are held by: allocations at those
     * addresses are its cache whatever their stacks say (docs/pytorch.md). */
    uint64_t *torch_segs;
    size_t ntorch_segs;
    int torch_rule; /* -1: none (no such rule, or it is off) */
    /* What does not add up in PyTorch's view: a view with problems names no
     * segments (torch_segs is empty), and its numbers are used for no
     * totals (docs/pytorch.md). */
    struct torch_check torch_check;
};

struct stackdb *sdb_new(const struct sdb_opts *o);
void sdb_free(struct stackdb *db);

static inline const struct sym_frame *sdb_frame(const struct stackdb *db,
                                                const struct cstack *c, size_t i)
{
    return &db->frames[db->seq[c->first + i]];
}

/* Symbolizes every stack of s (each distinct pc once) and interns it.
 * sup may be NULL.  0, or -1 when out of memory. */
int sview_init(struct snapview *v, const struct snapshot *s, struct symbolizer *sy,
               struct stackdb *db, const struct suppressions *sup);
void sview_free(struct snapview *v);

/* Position of a stack id in s->stacks, or -1 (id 0 or unknown). */
long sview_index(const struct snapview *v, uint32_t stack_id);
/* The first rule of sp each stack's full frames match (nothing folded, no
 * gate applied), by stack index, -1 for none: another rule set than the
 * view's own (the categories of model/categories.h).  Freed by the caller. */
int32_t *sview_match_rules(const struct snapview *v, const struct suppressions *sp);
/* The cstack of a stack id (0 for id 0 or an unknown id), and its rule. */
uint32_t sview_cs(const struct snapview *v, uint32_t stack_id);
int sview_rule(const struct snapview *v, uint32_t stack_id);
/* The rule that applies to a live allocation: its stack's, except that the
 * built-in allocator-cache rules never take a mapping of another process's
 * memory (a mapping is no cache; PyTorch's caching allocator opens IPC
 * handles from the namespace its rule matches), nor a loaded module (a
 * framework loads its kernels from code its rule matches).  -1 for none. */
int sview_alloc_rule(const struct snapview *v, const struct snap_alloc *a);
/* Whether ptr is a segment of PyTorch's allocator (TORCH_BLOCKS). */
bool sview_is_torch_segment(const struct snapview *v, uint64_t ptr);
/* The same for memory of `kind` allocated with stack_id (a teardown group). */
int sview_kind_rule(const struct snapview *v, uint32_t stack_id, unsigned kind);

#endif
