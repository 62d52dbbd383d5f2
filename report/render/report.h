/* What every output writer is given: the parsed snapshot, its analyses, the
 * symbolizer and canonical stacks, where to write and how (report.c). */
#ifndef GPULEAK_REPORT_H
#define GPULEAK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
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

/* --sections */
enum {
    SEC_LEAKS = 1,
    SEC_PEAK = 2,
    SEC_TIMELINE = 4,
    SEC_FRAG = 8,
    SEC_LEDGER = 16,
    SEC_CALLS = 32, /* ALLOCATION CALLS: not a leak; gpuleak check leaves it out */
    SEC_ALL = 63,
};

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
    FILE *out;
    bool color;
    unsigned sections;
    size_t top; /* --top: groups shown per list, 0 = the default */
    bool default_suppressions;
    const char *suppressions_file;
    /* warnings collected by report_prepare() */
    char **warnings;
    size_t nwarnings;
};

/* Gathers the warning lines (module problems, skipped records, ...). */
void report_prepare(struct report_ctx *r);
void report_ctx_free(struct report_ctx *r);

#endif
