/* The launcher's usage text: every subcommand, its options, what it does. */
#ifndef GL_LAUNCHER_USAGE_H
#define GL_LAUNCHER_USAGE_H

#include <stdnoreturn.h>

/* The usage text naming the launcher prog (a new string). */
char *usage_for(const char *prog);

/* The usage text on stdout and exit 0, or, for to_stderr, on stderr and
 * exit 2. */
noreturn void show_usage(int to_stderr);

/* For a subcommand that takes one PID (attach, detach, snapshot, top): an
 * argument that is none of cmd's own options.  -h or --help shows the
 * usage (exit 0), another "-..." dies "cmd: unknown option a"; an operand
 * returns, and the caller's option loop ends there. */
void operand_or_die(const char *cmd, const char *a);

/* Dies "cmd: give exactly one PID" unless argv[i] is the last of argc
 * arguments. */
void one_pid_or_die(const char *cmd, int argc, int i);

#endif
