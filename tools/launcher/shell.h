/* The subcommands of the launcher not yet in C (check, attach) and its usage text: the shell script gpuleak-sh (libexec), run
 * with the launcher's names. */
#ifndef GL_LAUNCHER_SHELL_H
#define GL_LAUNCHER_SHELL_H

#include <stdnoreturn.h>

/* The subcommand and its arguments run by the shell script gpuleak-sh. */
noreturn void run_shell(int argc, char **argv);

/* The usage text (still the script's): on stdout and exit 0, or, for
 * to_stderr, on stderr and exit 2. */
noreturn void show_usage(int to_stderr);

#endif
