/* check's bookkeeping of the processes its command started: which still
 * run, which snapshot is each one's last, which images an exec replaced,
 * and which ended without a final snapshot (interpose/control/pending.c's
 * marks in check's pending directory). */
#ifndef GL_LAUNCHER_CHECK_PROCS_H
#define GL_LAUNCHER_CHECK_PROCS_H

#include "strbuf.h"

/* The live processes (pids as digits, in the order of /proc's names
 * sorted bytewise) whose environment as exec gave it has
 * GPULEAK_OUTPUT=pattern and an LD_PRELOAD naming libgpuleak: started by
 * check, loaded or not yet.  check's own process is not one. */
struct strv running_under(const char *pattern);

/* Waits up to limit seconds while running_under(pattern) has any; the
 * pids still running at the end (none: all ended). */
struct strv wait_started(const char *pattern, double limit);

/* The names in dir (regular files, not followed) that match the glob,
 * sorted bytewise. */
struct strv dir_names(const char *dir, const char *glob);

/* Each process's final snapshot: per pid, the highest N of the files
 * PREFIXPID.N.snap in dir not in `before`, as "dir/NAME", by pid. */
struct strv final_snapshots(const char *dir, const struct strv *before, const char *prefix);

/* The snapshots images an exec replaced left (marks PID.exec.K in pending
 * saying "written PATH"), those in absdir named with prefix, as
 * "dir/NAME". */
struct strv exec_snapshots(const char *pending, const char *absdir, const char *dir, const char *prefix);

/* What a final-snapshot mark says. */
enum pending_state { PENDING_NONE, PENDING_WRITTEN, PENDING_NOT_WRITTEN };
enum pending_state pending_state(const char *mark);

/* The processes that made CUDA calls and ended without a final snapshot:
 * marks PID in pending, not written, of pids not in late; each one's
 * reason in why (same index), naming its last snapshot in snaps. */
void unjudged_processes(const char *pending, const struct strv *late, const struct strv *snaps,
                        struct strv *pids, struct strv *why);

/* Whether snapshot path s is one of pid's ("[/.]PID.N.snap" at its end). */
bool is_snapshot_of(const char *s, const char *pid);

/* Snapshot paths sorted by pid, then N, numerically (the last two
 * numbers of "DIR/PREFIXPID.N.snap"). */
void sort_snapshots(struct strv *snaps);

#endif
