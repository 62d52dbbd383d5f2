/* What the output writers share: the parsed snapshot, its analysis, the
 * symbolizer, and the formatting helpers both text and JSON use. */
#ifndef GPULEAK_REPORT_H
#define GPULEAK_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "analyze.h"
#include "snap_read.h"
#include "symbolize.h"

struct report_ctx {
    const char *path; /* snapshot file as given on the command line */
    const struct snapshot *s;
    const struct analysis *a;
    struct symbolizer *sy;
    FILE *out;
    /* warnings collected by report_collect_warnings() */
    char **warnings;
    size_t nwarnings;
};

/* Symbolizes every stack the report will show (so module problems are known
 * before anything is printed) and gathers the warning lines. */
void report_prepare(struct report_ctx *r);
void report_ctx_free(struct report_ctx *r);

void output_text(struct report_ctx *r);
void output_json(struct report_ctx *r);

/* "1,048,576" */
void fmt_commas(char *buf, size_t len, uint64_t v);
/* "1.0 MiB"; "" below 1024 (the exact count says it all) */
void fmt_human(char *buf, size_t len, uint64_t v);
/* "at exit", "on signal", ... */
const char *reason_phrase(uint32_t reason);
/* "exit", "signal", ... (JSON) */
const char *reason_name(uint32_t reason);

#endif
