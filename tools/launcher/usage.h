/* The launcher's usage text: every subcommand, its options, what it does. */
#ifndef GL_LAUNCHER_USAGE_H
#define GL_LAUNCHER_USAGE_H

#include <stdnoreturn.h>

/* The usage text naming the launcher prog (a new string). */
char *usage_for(const char *prog);

/* The usage text on stdout and exit 0, or, for to_stderr, on stderr and
 * exit 2. */
noreturn void show_usage(int to_stderr);

#endif
