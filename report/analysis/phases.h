/* Memory by phase: the annotations of the history (gpuleak_annotate,
 * gpuleak_memory.annotate, the pytest plugin) as phases, and per phase and
 * device the live bytes at its start and end, its peak, and what made up
 * that peak, by stack and by category (model/categories.h).
 *
 * How annotations become phases (docs/reporter.md, "Phases"):
 *   - "X (end)" closes the innermost open phase X, and every phase opened
 *     inside it that is still open (they end with it);
 *   - "X" with a later "X (end)" opens a bracketed phase, inside whatever
 *     phase is open;
 *   - "X" without one is a marker: it closes the marker open at the top of
 *     the stack (the previous marker of the same nesting level) and runs
 *     until the next marker of its level, the end of the phase around it,
 *     or the end of the history; bracketed phases opened after it nest
 *     inside it;
 *   - when the ring has wrapped (its first event's seq is above 1), an
 *     "X (end)" with no "X" before it is a phase whose start is lost: it is
 *     shown from the history's first event, flagged, never given a start
 *     it does not have.  In a history that starts at seq 1 such an end
 *     opened nothing and is only counted.
 * A phase holds the events strictly between its opening and its closing
 * annotation. */
#ifndef GPULEAK_PHASES_H
#define GPULEAK_PHASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/history.h"
#include "model/categories.h"
#include "model/snap_read.h"
#include "model/stackdb.h"

#define PHASE_STACKS 8     /* stacks kept per phase and device at its peak */
#define PHASE_MAX_DEPTH 64 /* phases nested deeper are not opened (counted) */

enum phase_end {
    PHASE_END_MARK,    /* its "X (end)" */
    PHASE_END_NEXT,    /* a marker: the next marker of its level */
    PHASE_END_PARENT,  /* the phase around it ended */
    PHASE_END_HISTORY, /* still open when the history ends (the snapshot) */
};

struct phase_cat {
    uint32_t cat; /* index into categories.names */
    uint64_t bytes, count;
};

struct phase_stack {
    uint32_t cs, stack_id; /* canonical stack; the lowest stack id in it */
    uint64_t bytes, count;
};

struct phase_dev {
    int32_t device;
    uint64_t start_bytes, end_bytes; /* the device's live bytes then */
    uint64_t peak_bytes;
    bool peak_at_start; /* nothing in the phase rose above its start */
    uint64_t peak_seq, peak_time_ns; /* the allocation that reached it;
                                        at the start: the phase's start */
    uint64_t allocs, frees, alloc_bytes, free_bytes; /* events in the phase */
    struct phase_cat *cats; /* at the peak: bytes desc, then category asc */
    size_t ncats;
    struct phase_stack *stacks; /* at the peak: bytes desc, count desc,
                                   stack id asc; the first PHASE_STACKS */
    size_t nstacks, nstacks_total;
    uint64_t hidden_bytes, hidden_count; /* stacks beyond PHASE_STACKS */
};

struct phase {
    const struct snap_label *label; /* NULL: an id with no LABEL record */
    uint32_t label_id;
    size_t name_len;     /* of label's text, without " (end)" (start lost) */
    unsigned depth;      /* phases around it */
    long parent;         /* the phase around it, -1 none */
    bool bracketed;      /* has an "X (end)" (else a marker) */
    bool start_known;    /* false: only its end is in the history */
    uint64_t start_seq, start_time_ns; /* its annotation; start unknown:
                                          the history's first event */
    uint64_t end_seq, end_time_ns;     /* the annotation that ended it;
                                          history end: the last event's seq
                                          and the snapshot's time */
    enum phase_end end;
    struct phase_dev *devs; /* devices with memory or events in it, asc, host last */
    size_t ndevs;
};

struct phases {
    bool present;  /* the snapshot has a history */
    bool wrapped;  /* it starts after seq 1: earlier events are gone */
    bool inconsistent; /* the history frees more than was live (history.h) */
    uint64_t first_seq;
    struct phase *p; /* by start; a phase before those inside it */
    size_t n;
    size_t unmatched_ends; /* "X (end)" that closed nothing */
    size_t too_deep;       /* phases not opened: PHASE_MAX_DEPTH open already */
    const struct categories *cat;
};

/* 0, or -1 when out of memory.  h: history_build of v->s. */
int phases_build(const struct snapview *v, const struct history *h,
                 const struct categories *cat, struct phases *out);
void phases_free(struct phases *ph);

/* The name of how a phase ended ("end", "next", "enclosing", "history"). */
const char *phase_end_name(enum phase_end e);

#endif
