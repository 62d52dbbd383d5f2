/* What the output writers share: the parsed snapshot, its analyses, the
 * symbolizer and canonical stacks, and the formatting helpers. */
#ifndef GPULEAK_REPORT_H
#define GPULEAK_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analyze.h"
#include "analysis/frag.h"
#include "analysis/history.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "model/symbolize.h"

/* --sections */
enum {
    SEC_LEAKS = 1,
    SEC_PEAK = 2,
    SEC_TIMELINE = 4,
    SEC_FRAG = 8,
    SEC_ALL = 15,
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

void output_text(struct report_ctx *r);
void output_json(struct report_ctx *r);
/* --folded leaks|peak: one "outer;...;inner BYTES" line per stack */
void output_folded(struct report_ctx *r, bool peak);

/* "1,048,576" */
void fmt_commas(char *buf, size_t len, uint64_t v);
/* "1.0 MiB"; "" below 1024 (the exact count says it all) */
void fmt_human(char *buf, size_t len, uint64_t v);
/* "at exit", "on signal", ... */
const char *reason_phrase(uint32_t reason);
/* "exit", "signal", ... (JSON) */
const char *reason_name(uint32_t reason);

#endif
