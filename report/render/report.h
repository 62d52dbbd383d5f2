/* What every output writer is given: the parsed snapshot, its analyses, the
 * symbolizer and canonical stacks, where to write and how (report.c). */
#ifndef GPULEAK_REPORT_H
#define GPULEAK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct snapshot;
struct analysis;
struct symbolizer;
struct snapview;
struct stackdb;
struct suppressions;
struct history;
struct frag;
struct phases;
struct ledger;
struct section_data;

struct report_ctx {
    const char *path; /* snapshot file as given on the command line */
    const struct snapshot *s;
    const struct analysis *a;
    struct symbolizer *sy;
    const struct snapview *v;
    const struct stackdb *db;
    const struct suppressions *sup;
    const struct history *h;
    const struct frag *fr;
    const struct phases *ph; /* memory by phase; NULL in diff and merge */
    const struct ledger *lg; /* every used byte per device; NULL in diff and merge */
    /* every analysis of the snapshot (render/sections.h; a new section
     * reads its own there); NULL in diff and merge */
    const struct section_data *data;
    FILE *out;
    bool color;
    unsigned sections; /* --sections: a bit per row of render/sections.c */
    size_t top; /* --top: groups shown per list, 0 = the default */
    uint64_t min_bytes; /* --min-bytes: smaller groups are not findings, 0 = none */
    unsigned growth_steps; /* --growth-steps: N of the leak-by-growth rule, 0 = its default */
    bool default_suppressions;
    const char *suppressions_file;
    /* warnings collected by report_prepare() */
    char **warnings;
    size_t nwarnings;
};

struct snap_process;
/* How every per-rank view names a process: "rank R", or "no rank (pid P)"
 * for one that had no rank variable (GL_SNAP_F_NO_RANK: its rank field is
 * a default 0, not rank 0).  The text lives in one of a few static buffers
 * that rotate (the reporter is single-threaded): valid for the next 3 calls. */
const char *rank_name(const struct snap_process *p);

/* Gathers the warning lines (module problems, skipped records, ...). */
void report_prepare(struct report_ctx *r);
void report_ctx_free(struct report_ctx *r);

#endif
