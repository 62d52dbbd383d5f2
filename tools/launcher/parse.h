/* The checks of the launcher's options, by the library's own rules
 * (interpose/base/config.c, periodic.c, trigger.c; common/output_target.h),
 * so that a typo stops the launcher before the command starts, naming the
 * flag, not later as a library warning naming the variable.  Each check_*
 * returns NULL for a good value, else the reason (a new string) that
 * follows "gpuleak run: --flag VALUE: ". */
#ifndef GL_LAUNCHER_PARSE_H
#define GL_LAUNCHER_PARSE_H

#include <stdbool.h>

/* A decimal integer as strtol reads it (leading blanks, a sign, at most 18
 * digits after leading zeros), within [lo, hi]. */
bool is_long_in(const char *s, long long lo, long long hi);

/* A duration as gl_parse_duration_ms reads it: 1 to 12 digits, then ms, s,
 * m or h (bare: seconds). */
bool duration_ms(const char *s, long long *ms);

char *check_depth(const char *v);
char *check_keep(const char *v);
char *check_interval(const char *v);
/* GPULEAK_SIGNAL: a name, a number or none; the signals the library
 * cannot use are refused with its reason. */
char *check_signal(const char *v);
/* The signal a name of the library's list (upper case, without SIG: USR1,
 * HUP, ..., and the ones check_signal refuses) names, or 0; RTMIN+N is
 * left to the caller, whose rules for N differ. */
int listed_signal(const char *name);
/* An output pattern: known conversions only, shorter than the library's
 * limit, and a directory part without conversions that exists and is
 * writable now.  for_attach: a stream is the target's descriptor, not one
 * of ours, and is not looked at. */
char *check_output(const char *v, bool for_attach);

/* What an output name denotes (common/output_target.h): run --output's
 * and check --json's targets. */
enum target_kind { TARGET_FILE, TARGET_IN_PLACE, TARGET_STREAM, TARGET_NOT_A_FILE, TARGET_REFUSED };
struct target {
    enum target_kind kind;
    int fd;          /* TARGET_STREAM: the descriptor */
    const char *why; /* TARGET_REFUSED: the reason, after "is " */
};
struct target target_of(const char *path);

#endif
