/* Settings read once from the environment when tracking starts.  Bad values
 * get one warning each and fall back to the default: a typo in a variable must
 * never stop the program. */
#ifndef GL_CONFIG_H
#define GL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GL_DEFAULT_DEPTH 64
#define GL_MAX_DEPTH 256
#define GL_DEFAULT_OUTPUT "gpuleak.%p.%n.snap"
#define GL_OUTPUT_MAX 1024

struct gl_config {
    bool disabled;               /* GPULEAK_DISABLE=1: pass-through only */
    int depth;                   /* GPULEAK_DEPTH: frames kept per stack */
    char output[GL_OUTPUT_MAX];  /* GPULEAK_OUTPUT: file name pattern */
    long max_entries;            /* GPULEAK_MAX_ENTRIES: history events kept */
    bool python;                 /* GPULEAK_PYTHON: Python frames (default on) */
    bool free_stacks;            /* GPULEAK_FREE_STACKS: unwind frees too (default off) */
};

extern struct gl_config gl_config;

void gl_config_load(void);

/* Parses a decimal integer in [min,max]; false on anything else. */
bool gl_parse_long(const char *s, long min, long max, long *out);

/* A duration in milliseconds: a decimal number with an optional unit, ms,
 * s (the default), m or h ("1500ms", "90", "10m", "2h"), in [min_ms,max_ms];
 * false on anything else. */
bool gl_parse_duration_ms(const char *s, uint64_t min_ms, uint64_t max_ms, uint64_t *out);

/* GPULEAK_SIGNAL: NULL or "" -> SIGUSR1, "none"/"0" -> 0, a number 1..SIGRTMAX,
 * a name (USR1, SIGUSR2, HUP, PWR, WINCH, URG, RTMIN+n); -1 for anything else. */
int gl_parse_signal(const char *s);

#endif
