/* Output patterns (GPULEAK_OUTPUT: %p pid, %h host, %r rank, %n number,
 * %t time, %% a '%') read back: which files a pattern makes, as a glob or
 * a regular expression, so that `gpuleak run` finds and names the
 * snapshots its command wrote. */
#ifndef GL_LAUNCHER_PATTERN_H
#define GL_LAUNCHER_PATTERN_H

#include <stdbool.h>

/* The pattern itself, or, for a directory (ending in '/' or existing),
 * the default names in it. */
char *with_default_names(const char *p);

/* Every file the pattern makes as one glob: each conversion a '*', but %r
 * the rank own_rank when it is not NULL (launchers that share a pattern,
 * one per rank, each see their own); glob characters escaped. */
char *output_glob(const char *p, const char *own_rank);

/* The pattern as an extended regular expression over the names it makes:
 * %h a group of [A-Za-z0-9._-]+, %p %r %n %t a group of digits, their
 * letters in roles (as long as the pattern), in order. */
char *pattern_regex(const char *p, char *roles);

/* The snapshots of one process as a glob: pattern p with that process's
 * own %p, %r and %h read from its file and '*' for %n and %t, in *quoted
 * (its literal parts quoted to paste) and *raw (to expand).  False for
 * what it cannot spell: glob characters or an unknown conversion in p, a
 * file the pattern does not make. */
bool series_glob(const char *p, const char *file, char **quoted, char **raw);

#endif
