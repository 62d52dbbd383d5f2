/* What an attach or a detach does around its gdb call: the temporary
 * directory the library's thread answers in, the wait for that answer,
 * the answers in words, and the attach records (docs/attach.md). */
#ifndef GL_LAUNCHER_ATTACH_STATUS_H
#define GL_LAUNCHER_ATTACH_STATUS_H

#include "attach_checks.h"

/* A new directory as mktemp -d makes it ($TMPDIR or /tmp, 0700), made
 * the process's own when root works on another user's process, and
 * checked reachable by it; dies naming what. */
char *status_dir(const char *what, const char *pid, const struct proc_status *st);

/* Waits, 60 s at most and while process pid lives, for the first line the
 * library's thread writes in path when the attach or detach has ended
 * ("RC SNAPSHOT"); that line (a new string), or "" when none came. */
char *wait_status(const char *path, const char *pid);

/* The library's answer rc in words (the script's attach_message). */
char *attach_message(const char *rc, const char *pid);

/* The attach record of pid: $XDG_RUNTIME_DIR (or /tmp)/gpuleak-attach-EUID/PID. */
char *attach_record_path(const char *pid);

/* Runs argv (searched in PATH; under umask 077 for private_umask), its
 * stderr the launcher's, and returns its stdout less the trailing
 * newlines, as $(...) does; NULL when it failed. */
char *run_capture(char *const argv[], bool private_umask);

/* rm -rf of path, links not followed. */
void remove_tree(const char *path);

#endif
