#include "base/config.h"

#include "size_parse.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"

struct gl_config gl_config = {
    .disabled = false,
    .mode = GL_MODE_FULL,
    .sample_bytes = GL_DEFAULT_SAMPLE_BYTES,
    .depth = GL_DEFAULT_DEPTH,
    .output = GL_DEFAULT_OUTPUT,
    .max_entries = GL_DEFAULT_MAX_ENTRIES,
    .python = true,
    .torch = true,
    .torch_settle_ms = GL_DEFAULT_TORCH_SETTLE_MS,
    .oom_snapshot = true,
    .oom_interval_ms = GL_DEFAULT_OOM_INTERVAL_MS,
};

/* The settings `gpuleak attach` hands over (gl_config_set_overrides): the
 * attached process's environment was fixed when it started, and setenv in
 * a running multi-threaded program is not safe.  Written once per attach,
 * before tracking starts, by the thread gdb borrowed; read after. */
#define OVERRIDES_MAX 32
static char override_text[4096];
static const char *override_key[OVERRIDES_MAX], *override_val[OVERRIDES_MAX];
static size_t noverrides;

int gl_config_set_overrides(const char *text)
{
    noverrides = 0;
    if (text == NULL)
        return 0;
    size_t len = strlen(text);
    if (len >= sizeof override_text)
        return -1;
    memcpy(override_text, text, len + 1);
    for (char *line = override_text, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        char *eq = strchr(line, '=');
        if (eq == NULL || strncmp(line, "GPULEAK_", 8) != 0 || noverrides == OVERRIDES_MAX) {
            noverrides = 0;
            return -1;
        }
        *eq = '\0';
        override_key[noverrides] = line;
        override_val[noverrides++] = eq + 1;
    }
    return 0;
}

const char *gl_getenv(const char *name)
{
    for (size_t i = 0; i < noverrides; i++)
        if (strcmp(override_key[i], name) == 0)
            return override_val[i];
    return getenv(name);
}

bool gl_parse_long(const char *s, long min, long max, long *out)
{
    if (s == NULL || *s == '\0')
        return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool gl_parse_bytes(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v; /* the one size grammar, as --min-bytes and the markers take it */
    if (s == NULL || gl_parse_size(s, &v) != 0 || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool gl_parse_duration_ms(const char *s, uint64_t min_ms, uint64_t max_ms, uint64_t *out)
{
    if (s == NULL || *s < '0' || *s > '9')
        return false;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > UINT64_MAX / 10 / 3600000u)
            return false; /* would overflow once scaled to milliseconds */
        v = v * 10 + (uint64_t)(*s - '0');
    }
    static const struct { const char *unit; uint64_t ms; } units[] = {
        {"", 1000}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(s, units[i].unit) == 0) {
            v *= units[i].ms;
            if (v < min_ms || v > max_ms)
                return false;
            *out = v;
            return true;
        }
    }
    return false;
}

int gl_parse_signal(const char *s)
{
    if (s == NULL || *s == '\0')
        return SIGUSR1;
    if (!strcasecmp(s, "none") || !strcmp(s, "0"))
        return 0;
    long v;
    if (gl_parse_long(s, 1, SIGRTMAX, &v))
        return (int)v;
    if (!strncasecmp(s, "SIG", 3))
        s += 3;
    /* The signals that cannot be used are named too, so that the warning
     * says why (gl_signal_unusable) rather than "not a signal name". */
    static const struct { const char *name; int sig; } names[] = {
        {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP}, {"PWR", SIGPWR},
        {"WINCH", SIGWINCH}, {"URG", SIGURG},
        {"KILL", SIGKILL}, {"STOP", SIGSTOP}, {"SEGV", SIGSEGV}, {"BUS", SIGBUS},
        {"ILL", SIGILL}, {"FPE", SIGFPE}, {"ABRT", SIGABRT},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcasecmp(s, names[i].name))
            return names[i].sig;
    if (!strncasecmp(s, "RTMIN+", 6) && gl_parse_long(s + 6, 0, SIGRTMAX - SIGRTMIN, &v))
        return SIGRTMIN + (int)v;
    return -1;
}

const char *gl_signal_unusable(int sig)
{
    switch (sig) {
    case SIGKILL: return "SIGKILL cannot be caught";
    case SIGSTOP: return "SIGSTOP cannot be caught";
    case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGABRT:
        return "a crash signal cannot ask for snapshots";
    default: return NULL;
    }
}

bool gl_parse_bool(const char *s, bool *out)
{
    static const char *const on[] = {"1", "yes", "y", "true", "on"};
    static const char *const off[] = {"0", "no", "n", "false", "off"};
    if (s == NULL)
        return false;
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
        if (!strcasecmp(s, on[i])) {
            *out = true;
            return true;
        }
        if (!strcasecmp(s, off[i])) {
            *out = false;
            return true;
        }
    }
    return false;
}

bool gl_env_bool(const char *name, bool dflt, atomic_bool *warned)
{
    const char *s = gl_getenv(name);
    bool v;
    if (s == NULL || *s == '\0')
        return dflt;
    if (gl_parse_bool(s, &v))
        return v;
    gl_warn_once(warned, "ignoring %s=%.40s: expected 1 or 0 (yes/no, true/false, on/off), using %d",
                 name, s, dflt ? 1 : 0);
    return dflt;
}

const char *gl_output_unknown_conversion(const char *pattern)
{
    for (const char *p = pattern; *p != '\0'; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '\0' || strchr("phrnt%", p[1]) == NULL)
            return p;
        p++;
    }
    return NULL;
}

/* A duration variable, 0 to 1 year: set *out, or one warning and the
 * default kept. */
static void env_duration_ms(const char *name, uint64_t dflt_ms, uint64_t *out, atomic_bool *warned)
{
    const char *text = gl_getenv(name);
    uint64_t ms;
    if (text == NULL || *text == '\0')
        return;
    if (gl_parse_duration_ms(text, 0, GL_MAX_OOM_INTERVAL_MS, &ms))
        *out = ms;
    else
        gl_warn_once(warned, "ignoring %s=%.40s: expected seconds from 0 to 1 year (or 500ms, 5m, 1h), using %llu",
                     name, text, (unsigned long long)(dflt_ms / 1000));
}

/* A variable that is one of two words (either case): the default's value
 * first, the other's second; anything else keeps *out and is told once. */
static void env_either(const char *name, const char *dflt, int dflt_value, const char *other, int other_value,
                       int *out, atomic_bool *warned)
{
    const char *text = gl_getenv(name);
    if (text == NULL || *text == '\0')
        return;
    if (strcasecmp(text, dflt) == 0)
        *out = dflt_value;
    else if (strcasecmp(text, other) == 0)
        *out = other_value;
    else
        gl_warn_once(warned, "ignoring %s=%.40s: expected %s or %s, using %s", name, text, dflt, other, dflt);
}

/* GPULEAK_MODE, GPULEAK_SAMPLE_BYTES, GPULEAK_SAMPLE_SEED: light mode and
 * its sampling (capture/sample.h).  The sampling variables are read in
 * either mode, so that a typo is told even before light mode is on. */
static void load_mode(struct gl_config *cfg)
{
    static atomic_bool warned_mode, warned_bytes, warned_seed;
    int mode = cfg->mode;
    env_either("GPULEAK_MODE", "full", GL_MODE_FULL, "light", GL_MODE_LIGHT, &mode, &warned_mode);
    cfg->mode = (enum gl_mode)mode;
    const char *bytes = gl_getenv("GPULEAK_SAMPLE_BYTES");
    if (bytes != NULL && *bytes != '\0' &&
        !gl_parse_bytes(bytes, 1, GL_MAX_SAMPLE_BYTES, &cfg->sample_bytes))
        gl_warn_once(&warned_bytes, "ignoring GPULEAK_SAMPLE_BYTES=%.40s: expected bytes from 1 to 1T "
                     "(" GL_SIZE_EXAMPLES "), using %lluK", bytes,
                     (unsigned long long)(GL_DEFAULT_SAMPLE_BYTES >> 10));
    const char *seed = gl_getenv("GPULEAK_SAMPLE_SEED");
    long v;
    if (seed != NULL && *seed != '\0') {
        if (gl_parse_long(seed, 0, LONG_MAX, &v)) {
            cfg->sample_seed = (uint64_t)v;
            cfg->sample_seed_set = true;
        } else {
            gl_warn_once(&warned_seed, "ignoring GPULEAK_SAMPLE_SEED=%.40s: expected a number from 0 to %ld, "
                         "using a random seed", seed, LONG_MAX);
        }
    }
}

/* Reads the environment into *cfg: a variable that is unset or bad leaves
 * its field as it was. */
static void config_read(struct gl_config *cfg)
{
    /* One flag per variable: each bad value gets its own line. */
    static atomic_bool warned_depth, warned_output, warned_entries, warned_conv;
    static atomic_bool warned_disable, warned_python, warned_free, warned_oom, warned_oom_iv;
    static atomic_bool warned_cache, warned_check, warned_torch, warned_lines,
        warned_settle, warned_clock;

    cfg->disabled = gl_env_bool("GPULEAK_DISABLE", false, &warned_disable);
    load_mode(cfg);
    cfg->python = gl_env_bool("GPULEAK_PYTHON", true, &warned_python);
    cfg->torch = gl_env_bool("GPULEAK_TORCH", true, &warned_torch);
    /* Light mode never pays for PyTorch's recorder unless told to. */
    enum gl_torch_lines lines_dflt = cfg->mode == GL_MODE_LIGHT ? GL_TORCH_LINES_NEVER : GL_TORCH_LINES_REQUEST;
    cfg->torch_lines = lines_dflt;
    const char *lines = gl_getenv("GPULEAK_TORCH_LINES");
    if (lines != NULL && *lines != '\0') {
        if (strcasecmp(lines, "start") == 0)
            cfg->torch_lines = GL_TORCH_LINES_START;
        else if (strcasecmp(lines, "request") == 0)
            cfg->torch_lines = GL_TORCH_LINES_REQUEST;
        else if (strcasecmp(lines, "never") == 0)
            cfg->torch_lines = GL_TORCH_LINES_NEVER;
        else
            gl_warn_once(&warned_lines, "ignoring GPULEAK_TORCH_LINES=%.40s: expected request, start or never, using %s",
                         lines, lines_dflt == GL_TORCH_LINES_NEVER ? "never" : "request");
    }
    env_duration_ms("GPULEAK_TORCH_SETTLE", GL_DEFAULT_TORCH_SETTLE_MS, &cfg->torch_settle_ms, &warned_settle);
    cfg->free_stacks = gl_env_bool("GPULEAK_FREE_STACKS", false, &warned_free);
    cfg->oom_snapshot = gl_env_bool("GPULEAK_OOM_SNAPSHOT", true, &warned_oom);

    /* Read here, not at the first out-of-memory error: a typo is told at
     * the start, when the user is still looking. */
    env_duration_ms("GPULEAK_OOM_INTERVAL", GL_DEFAULT_OOM_INTERVAL_MS, &cfg->oom_interval_ms, &warned_oom_iv);

    const char *depth = gl_getenv("GPULEAK_DEPTH");
    long v;
    if (depth != NULL && *depth != '\0') {
        if (gl_parse_long(depth, 0, GL_MAX_DEPTH, &v))
            cfg->depth = (int)v;
        else
            gl_warn_once(&warned_depth, "ignoring GPULEAK_DEPTH=%.40s: expected 0..%d, using %d",
                         depth, GL_MAX_DEPTH, GL_DEFAULT_DEPTH);
    }

    const char *entries = gl_getenv("GPULEAK_MAX_ENTRIES");
    if (entries != NULL && *entries != '\0') {
        if (gl_parse_long(entries, 0, GL_MAX_MAX_ENTRIES, &v))
            cfg->max_entries = v;
        else
            gl_warn_once(&warned_entries, "ignoring GPULEAK_MAX_ENTRIES=%.40s: expected 0..%ld, using %d",
                         entries, GL_MAX_MAX_ENTRIES, GL_DEFAULT_MAX_ENTRIES);
    }

    /* on/off in the one boolean syntax, or "miss" (the bench's miss row). */
    const char *cache = gl_getenv("GPULEAK_STACK_CACHE");
    bool b;
    if (cache != NULL && *cache != '\0') {
        if (strcasecmp(cache, "miss") == 0)
            cfg->stack_cache = GL_STACK_CACHE_MISS;
        else if (gl_parse_bool(cache, &b))
            cfg->stack_cache = b ? GL_STACK_CACHE_ON : GL_STACK_CACHE_OFF;
        else
            gl_warn_once(&warned_cache, "ignoring GPULEAK_STACK_CACHE=%.40s: expected on, off or miss, using on",
                         cache);
    }

    int clock = cfg->clock;
    env_either("GPULEAK_CLOCK", "auto", GL_CLOCK_AUTO, "kernel", GL_CLOCK_KERNEL, &clock, &warned_clock);
    cfg->clock = (enum gl_clock_choice)clock;

    const char *check = gl_getenv("GPULEAK_STACK_CHECK");
    if (check != NULL && *check != '\0') {
        if (strlen(check) < sizeof cfg->stack_check)
            memcpy(cfg->stack_check, check, strlen(check) + 1);
        else
            gl_warn_once(&warned_check, "ignoring GPULEAK_STACK_CHECK: longer than %d bytes",
                         GL_OUTPUT_MAX - 1);
    }

    const char *out = gl_getenv("GPULEAK_OUTPUT");
    if (out != NULL && *out != '\0') {
        const char *bad;
        if (strlen(out) < sizeof cfg->output) {
            memcpy(cfg->output, out, strlen(out) + 1);
            /* Kept as text (never a surprise file name elsewhere), but said:
             * "%z" is most likely a typo of a conversion. */
            if ((bad = gl_output_unknown_conversion(out)) != NULL)
                gl_warn_once(&warned_conv,
                             "GPULEAK_OUTPUT=%.60s: unknown conversion '%%%.1s' kept as text "
                             "(known: %%p %%h %%r %%n %%t %%%%)", out, bad + 1);
        } else
            gl_warn_once(&warned_output, "ignoring GPULEAK_OUTPUT: longer than %d bytes, using %s",
                         GL_OUTPUT_MAX - 1, GL_DEFAULT_OUTPUT);
    }
}

/* Read into a copy and written over gl_config only where it changed: at an
 * attach after a detach, a hook handed out during the first attach (a
 * dlsym result) may still be running and reading gl_config, and the same
 * settings, the usual case, then write nothing at all.  Changed settings
 * are written as one copy of the struct: its aligned fields are never
 * seen half-written by such a hook. */
void gl_config_load(void)
{
    struct gl_config next = gl_config;
    config_read(&next);
    if (memcmp(&next, &gl_config, sizeof next) != 0)
        memcpy(&gl_config, &next, sizeof next);
}
