/* check's reports: the reporter run on each process's final snapshot
 * (its report and its one-line verdict kept in check's work directory),
 * the processes put in rank order, and what check says of them -- the
 * text lines or the --json document. */
#ifndef GL_LAUNCHER_CHECK_REPORT_H
#define GL_LAUNCHER_CHECK_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "strbuf.h"

struct checked {
    char *rank; /* "-": no rank variable was set */
    char *pid;
    char *snap;
    char *report;  /* the reporter's output, whole */
    char *verdict; /* its verdict line (trailing newlines dropped); NULL when the report failed */
    int rc;        /* 0 no errors, 100 errors, else the report failed */
    size_t n;      /* its place in snapshot order, from 1: its files' number */
};

struct check_run {
    struct checked *procs; /* in rank, then pid order; unranked last */
    size_t n;
    int bad, failed, double_frees;
    bool ranks;          /* some rank not 0: the lines name them */
    struct strv bad_ranks;
    struct strv late;     /* still running after --wait */
    struct strv unjudged, unjudged_why;
};

/* Runs reporter rep with options ropts on each snapshot, its files in
 * work, and fills run's processes and counts. */
void check_reports(struct check_run *run, const char *rep, char **ropts, const struct strv *snaps, const char *work);

/* The text of check on stderr: each report (unless no_reports), then one
 * line per process, the still-running ones after `wait` seconds, the
 * unjudged ones last. */
void check_lines(const struct check_run *run, const char *wait, bool no_reports);

/* check --json's document. */
struct check_totals {
    int nproc, nbad, status, code;
    const char *kept; /* NULL: none kept */
};
char *check_document(const struct check_run *run, const struct check_totals *t);

/* The process's command name (/proc/PID/comm) or "?". */
char *comm_of(const char *pid);

#endif
