/* The program a snapshot's process ran, as one short name, for telling two
 * runs apart (diff --across-runs, docs/reporter.md): the file name of its
 * executable (PROCESS's exe, else argv[0]), and for a Python interpreter,
 * whose executable every Python program shares, "python" and what it ran:
 * the script's file name, "-m MODULE", "-c" or "-" (whatever the
 * interpreter's version).  File names, not paths: a program
 * built or checked out in two places (before and after a change, the A/B
 * comparison --across-runs is for) is one program.  The build-id is not
 * compared, for the same reason: a rebuilt program has another. */
#ifndef GPULEAK_PROGRAM_H
#define GPULEAK_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

#include "model/snap_read.h"

/* The name into buf[0..n) (cut to fit, NUL-terminated; "?" when the
 * snapshot records neither an executable nor argv). */
void snap_program(const struct snap_process *p, char *buf, size_t n);
/* Whether a and b ran the same program by snap_program's names. */
bool snap_same_program(const struct snap_process *a, const struct snap_process *b);

#endif
