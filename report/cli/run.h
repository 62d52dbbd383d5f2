/* Running the reporter on snapshots already read: everything gpuleak-report
 * does after its command line is parsed and before its exit.  Split from
 * main.c so that the fuzz harness (tests/fuzz/fuzz_report.c) drives every
 * analysis and output through the same code as the command. */
#ifndef GL_REPORT_RUN_H
#define GL_REPORT_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/analyze.h"
#include "analysis/multi/multi.h"
#include "model/categories.h"
#include "model/stackdb.h"
#include "model/suppress.h"

/* What the command line asked for. */
struct cli {
    struct analyze_opts an;
    struct sdb_opts so;
    const char *output, *supp_file;
    /* --categories rules, then the built-in ones (model/categories.h);
     * NULL: the built-in ones only */
    const struct categories *cat;
    bool json, no_defaults;
    int color;  /* 0 never, 1 always, 2 auto */
    int folded; /* 0 no, 1 leaks, 2 peak */
    const char *html, *torch; /* --html / --torch-snapshot output files */
    const char *pprof;        /* --pprof: written by render/pprof itself, atomically */
    unsigned sections;
    int error_exitcode; /* --error-exitcode: the status when leaks are found; 0 off */
    const char *verdict; /* --verdict FILE: what `gpuleak check` reads (cli/verdict.h) */
};

enum mode { M_REPORT, M_DIFF, M_MERGE };

/* m->s read (snap_load_file or snap_parse), m->path set: makes its
 * symbolizer and stack view.  open_files false: symbolize nothing (every
 * module treated as missing; the fuzz harness, which must not read the
 * files a hostile snapshot names).  0, or 1 with "out of memory" printed. */
int report_attach(struct msnap *m, struct stackdb *db, const struct suppressions *sup,
                  bool open_files);
/* Frees what report_attach and the snapshot reader made. */
void report_detach(struct msnap *m);

/* Writes the report mode asks for on the n snapshots to out (not flushed).
 * M_REPORT: one snapshot; --html with several: the last one's page with
 * the growth across all.  0, or 1 with a one-line error printed.  *found
 * (when found is not NULL): whether the report holds what --error-exitcode
 * fails on -- M_REPORT: a leak or a mapping left, of at least --min-bytes
 * (and 1) bytes, after the suppressions; M_DIFF: a stack that no rule
 * matches whose live bytes grew from the first snapshot to the last by at
 * least that much; M_MERGE: a snapshot with at least that many bytes leaked. */
int report_run(const struct cli *c, enum mode mode, struct msnap *m, size_t n,
               struct stackdb *db, const struct suppressions *sup, FILE *out, bool *found);

#endif
