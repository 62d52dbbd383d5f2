/* What an attach or a detach checks of its target before gdb runs, each
 * refusal one line and status 2 (docs/attach.md): the script's
 * attach_checks and the functions it calls, and preloaded_check. */
#ifndef GL_LAUNCHER_ATTACH_CHECKS_H
#define GL_LAUNCHER_ATTACH_CHECKS_H

#include <stdbool.h>

/* What /proc/PID/status says of a process: its state letter, its tracer
 * ("0" for none), its file-system user and group, its groups (separated
 * by one space). */
struct proc_status {
    char *state, *tracer, *fsuid, *fsgid, *groups;
};

/* Reads a status file's text as the script's proc_status did, word by
 * word: the last State:, TracerPid:, Uid: (4th value), Gid: (4th value)
 * and Groups: lines.  False when the state, user or group is missing. */
bool parse_proc_status(const char *text, struct proc_status *st);

/* parse_proc_status of /proc/PID/status, read whole; false when it is gone. */
bool read_proc_status(const char *pid, struct proc_status *st);
void proc_status_free(struct proc_status *st);

/* Why this user cannot ptrace process pid, in words (a new string); NULL
 * when it can.  GPULEAK_YAMA_SCOPE_FILE, for the tests, is read in place
 * of /proc/sys/kernel/yama/ptrace_scope and takes CAP_SYS_PTRACE away. */
char *ptrace_refusal(const char *pid);

/* The checks of an attach or detach (what: "attach" or "detach") of pid:
 * a process id, not this one, gdb installed, ptrace allowed, no other
 * attach or detach of it running (an exclusive flock on /proc/PID, held
 * until the launcher and the gdb it runs end), not a zombie, not traced,
 * not stopped.  Dies naming why; *st is the process's status after. */
void attach_checks(const char *what, const char *pid, struct proc_status *st);

/* Ends the lock attach_checks took (attach --duration, before it sleeps). */
void attach_unlock(void);

/* Dies when pid has libgpuleak preloaded, under its name or another (a
 * file of LD_PRELOAD that exports gpuleak_attach_start). */
void preloaded_check(const char *what, const char *pid);

/* Whether process pid runs and is not a zombie. */
bool process_running(const char *pid);

/* Whether the process of st can create a file in dir: as root, asked of
 * the kernel through setpriv run as the process's user and groups; else
 * read from dir's owner and mode. */
bool can_create_as_target(const struct proc_status *st, const char *dir);

#endif
