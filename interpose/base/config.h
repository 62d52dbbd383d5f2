/* Settings read once from the environment when tracking starts.  Bad values
 * get one warning each and fall back to the default: a typo in a variable must
 * never stop the program. */
#ifndef GL_CONFIG_H
#define GL_CONFIG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* GPULEAK_MAX_ENTRIES: the history ring's capacity (state/history.h). */
#define GL_DEFAULT_MAX_ENTRIES 65536
#define GL_MAX_MAX_ENTRIES (64L * 1024 * 1024)
#define GL_DEFAULT_DEPTH 64
#define GL_MAX_DEPTH 256
#define GL_DEFAULT_OUTPUT "gpuleak.%p.%n.snap"
#define GL_OUTPUT_MAX 1024
#define GL_DEFAULT_OOM_INTERVAL_MS 10000
#define GL_MAX_OOM_INTERVAL_MS (365ull * 86400 * 1000)
#define GL_DEFAULT_TORCH_SETTLE_MS 10000
/* GPULEAK_SAMPLE_BYTES: light mode's mean distance, in bytes allocated,
 * between sampled allocations (docs/performance.md, section 7). */
#define GL_DEFAULT_SAMPLE_BYTES (1ull << 20)
#define GL_MAX_SAMPLE_BYTES (1ull << 40)

/* GPULEAK_MODE: full, the default, captures the stack of every allocation;
 * light keeps every allocation's address, size, device and API (exact
 * totals, live view, metrics) but captures stacks only for allocations
 * sampled by bytes (capture/sample.h), and never turns PyTorch's recorder
 * on by itself (GPULEAK_TORCH_LINES defaults to never). */
enum gl_mode { GL_MODE_FULL, GL_MODE_LIGHT };

/* GPULEAK_STACK_CACHE (capture/stack_cache.h): on, the default; off, walk
 * with unw_backtrace every time as before the cache; miss, walk with the
 * recording walker every time and reuse nothing (a miss's cost, the bench). */
enum gl_stack_cache_mode { GL_STACK_CACHE_ON, GL_STACK_CACHE_OFF, GL_STACK_CACHE_MISS };

/* GPULEAK_TORCH_LINES: when gpuleak turns on PyTorch's recorder, which gives
 * each tensor its Python line and costs PyTorch ~1.5 us a tensor (make
 * bench, section 7).  request, the default: at the first snapshot request
 * (signal, period, gpuleak_memory, the API), so a job pays nothing until
 * someone asks; start: at PyTorch's first CUDA use, so every tensor has one. */
/* never: not by gpuleak at all (light mode's default; the program may turn
 * it on itself). */
enum gl_torch_lines { GL_TORCH_LINES_REQUEST, GL_TORCH_LINES_START, GL_TORCH_LINES_NEVER };

/* GPULEAK_CLOCK (base/clock.h): auto, the default, reads the TSC where the
 * kernel's own clocksource is the TSC; kernel, clock_gettime always. */
enum gl_clock_choice { GL_CLOCK_AUTO, GL_CLOCK_KERNEL };

struct gl_config {
    bool disabled;               /* GPULEAK_DISABLE=1: pass-through only */
    enum gl_mode mode;           /* GPULEAK_MODE: full (default) or light */
    uint64_t sample_bytes;       /* GPULEAK_SAMPLE_BYTES: light mode's mean bytes per sample */
    bool sample_seed_set;        /* GPULEAK_SAMPLE_SEED given: reproducible samples (tests) */
    uint64_t sample_seed;
    int depth;                   /* GPULEAK_DEPTH: frames kept per stack */
    char output[GL_OUTPUT_MAX];  /* GPULEAK_OUTPUT: file name pattern */
    long max_entries;            /* GPULEAK_MAX_ENTRIES: history events kept */
    bool python;                 /* GPULEAK_PYTHON: Python frames (default on) */
    bool torch;                  /* GPULEAK_TORCH: PyTorch's blocks in snapshots (default on) */
    enum gl_torch_lines torch_lines; /* GPULEAK_TORCH_LINES: request (default), start or never */
    uint64_t torch_settle_ms;    /* GPULEAK_TORCH_SETTLE: quiet time before growth asks for lines */
    bool free_stacks;            /* GPULEAK_FREE_STACKS: unwind frees too (default off) */
    bool oom_snapshot;           /* GPULEAK_OOM_SNAPSHOT: snapshot on out-of-memory (default on) */
    uint64_t oom_interval_ms;    /* GPULEAK_OOM_INTERVAL: at most one OOM snapshot per this */
    enum gl_stack_cache_mode stack_cache;  /* GPULEAK_STACK_CACHE */
    char stack_check[GL_OUTPUT_MAX];       /* GPULEAK_STACK_CHECK: file; "" = off */
    enum gl_clock_choice clock;            /* GPULEAK_CLOCK: auto (default) or kernel */
};

extern struct gl_config gl_config;

void gl_config_load(void);

/* A size in bytes in the one grammar of common/size_parse.h (4096, 512k,
 * 1.5M, 1 MiB, 2G), in [min,max]; false on anything else. */
bool gl_parse_bytes(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A GPULEAK_* variable: the value `gpuleak attach` gave, else the
 * environment's. */
const char *gl_getenv(const char *name);

/* The attach's settings, "GPULEAK_X=value" lines separated by '\n', which
 * gl_getenv answers first from now on (replacing those of an earlier
 * attach); -1 (and none kept) on a line of another form or too much text. */
int gl_config_set_overrides(const char *text);

/* Parses a decimal integer in [min,max]; false on anything else. */
bool gl_parse_long(const char *s, long min, long max, long *out);

/* A duration in milliseconds: a decimal number with an optional unit, ms,
 * s (the default), m or h ("1500ms", "90", "10m", "2h"), in [min_ms,max_ms];
 * false on anything else. */
bool gl_parse_duration_ms(const char *s, uint64_t min_ms, uint64_t max_ms, uint64_t *out);

/* GPULEAK_SIGNAL: NULL or "" -> SIGUSR1, "none"/"0" -> 0, a number 1..SIGRTMAX,
 * a name (USR1, SIGUSR2, HUP, PWR, WINCH, URG, RTMIN+n); -1 for anything else. */
int gl_parse_signal(const char *s);

/* Why signal sig cannot ask for snapshots (SIGKILL, SIGSTOP, the crash
 * signals gpuleak reports on), or NULL when it can. */
const char *gl_signal_unusable(int sig);

/* The one boolean syntax of every GPULEAK_* switch: 1/0, yes/no, y/n,
 * true/false, on/off, in any case; false on anything else. */
bool gl_parse_bool(const char *s, bool *out);

/* Environment variable name as a boolean: unset or empty -> dflt; a bad
 * value -> dflt and one warning (keyed by *warned, one per variable). */
bool gl_env_bool(const char *name, bool dflt, atomic_bool *warned);

/* The first '%' of an output pattern that is not a known conversion
 * (%p %h %r %n %t %%, outfile.c), or NULL. */
const char *gl_output_unknown_conversion(const char *pattern);

#endif
