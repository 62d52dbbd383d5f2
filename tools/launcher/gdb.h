/* gdb, the attach mechanism (docs/attach.md): the commands an attach or
 * detach runs in the target, and reading what gdb printed back.  The
 * script's gdb_call, gdb_safe_point, gdb_rc, gdb_why and c_literal. */
#ifndef GL_LAUNCHER_GDB_H
#define GL_LAUNCHER_GDB_H

#include <stdbool.h>

/* The gdb to run: $GPULEAK_GDB, or "gdb" when unset or empty. */
const char *gdb_program(void);

/* A string as a C literal for gdb: in double quotes, with \ " and newline
 * escaped.  A new string. */
char *c_literal(const char *s);

/* The commands (NULL-terminated, new strings) that let the thread gdb
 * stopped leave the allocator, the loader, fork and pthread_create before
 * the call runs on it (the script's gdb_safe_point, whose comment says
 * why): gdb pipes its backtrace into awk, which writes DIR/safe.gdb, and
 * sources that. */
char **gdb_safe_cmds(const char *dir);

/* Runs `timeout -k 5 60 GDB` in batch mode on process pid with each of
 * cmds as an -ex command (after gdb_safe_cmds' preamble: libc's and
 * libdl's symbols only), stdin /dev/null, stdout and stderr into log.
 * When gdb hung and was killed, the process is sent SIGCONT so that it is
 * never left stopped. */
void gdb_call(const char *pid, const char *log, char *const cmds[]);

/* gdb_call with gdb_safe_cmds(work) first, then steps (NULL-terminated),
 * its log in work/gdb.log; what the log holds afterwards (read_text_file),
 * or NULL. */
char *gdb_call_safely(const char *pid, const char *work, char *const steps[]);

/* What gdb printed in its log: the value of the last "GPULEAK_RC=" line
 * when it is an integer (-?[0-9]+), else NULL (gdb's printf goes on after
 * a failed step and prints its error after the prefix); *loaded whether a
 * "GPULEAK_DLOPEN=0x" handle that is not null was printed. */
char *gdb_answer(const char *log_text, bool *loaded);

/* The loader's error an attach printed ("GPULEAK_DLERROR=why", the last
 * one), or NULL when there is none or it is empty.  A new string. */
char *gdb_dlerror(const char *log_text);

/* gdb's last line that says something (its error): every line but empty
 * ones, "[..." "warning:..." "Using..." "Reading..." "Download..." and
 * "GPULEAK_..."; "" when there is none.  A new string. */
char *gdb_why(const char *log_text);

/* The whole of a file as bash's read gives its lines: NUL bytes dropped;
 * NULL when it cannot be read. */
char *read_text_file(const char *path);

#endif
