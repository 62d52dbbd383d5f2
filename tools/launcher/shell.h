/* The subcommand of the launcher not yet in C, check: the shell script
 * gpuleak-sh (libexec), run with the launcher's names. */
#ifndef GL_LAUNCHER_SHELL_H
#define GL_LAUNCHER_SHELL_H

#include <stdnoreturn.h>

/* The subcommand and its arguments run by the shell script gpuleak-sh. */
noreturn void run_shell(int argc, char **argv);

#endif
