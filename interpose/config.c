#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "history.h"
#include "log.h"

struct gl_config gl_config = {
    .disabled = false,
    .depth = GL_DEFAULT_DEPTH,
    .output = GL_DEFAULT_OUTPUT,
    .max_entries = GL_DEFAULT_MAX_ENTRIES,
    .python = true,
};

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
    static const struct { const char *name; int sig; } names[] = {
        {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP}, {"PWR", SIGPWR},
        {"WINCH", SIGWINCH}, {"URG", SIGURG},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcasecmp(s, names[i].name))
            return names[i].sig;
    if (!strncasecmp(s, "RTMIN+", 6) && gl_parse_long(s + 6, 0, SIGRTMAX - SIGRTMIN, &v))
        return SIGRTMIN + (int)v;
    return -1;
}

static bool parse_bool(const char *name, const char *s, bool dflt)
{
    static atomic_bool warned;
    if (s == NULL || *s == '\0')
        return dflt;
    if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on"))
        return true;
    if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcasecmp(s, "off"))
        return false;
    gl_warn_once(&warned, "ignoring %s=%.40s: expected 0 or 1", name, s);
    return dflt;
}

void gl_config_load(void)
{
    static atomic_bool warned_depth, warned_output, warned_entries;

    gl_config.disabled = parse_bool("GPULEAK_DISABLE", getenv("GPULEAK_DISABLE"), false);
    gl_config.python = parse_bool("GPULEAK_PYTHON", getenv("GPULEAK_PYTHON"), true);
    gl_config.free_stacks = parse_bool("GPULEAK_FREE_STACKS", getenv("GPULEAK_FREE_STACKS"), false);

    const char *depth = getenv("GPULEAK_DEPTH");
    long v;
    if (depth != NULL && *depth != '\0') {
        if (gl_parse_long(depth, 0, GL_MAX_DEPTH, &v))
            gl_config.depth = (int)v;
        else
            gl_warn_once(&warned_depth, "ignoring GPULEAK_DEPTH=%.40s: expected 0..%d, using %d",
                         depth, GL_MAX_DEPTH, GL_DEFAULT_DEPTH);
    }

    const char *entries = getenv("GPULEAK_MAX_ENTRIES");
    if (entries != NULL && *entries != '\0') {
        if (gl_parse_long(entries, 0, GL_MAX_MAX_ENTRIES, &v))
            gl_config.max_entries = v;
        else
            gl_warn_once(&warned_entries, "ignoring GPULEAK_MAX_ENTRIES=%.40s: expected 0..%ld, using %d",
                         entries, GL_MAX_MAX_ENTRIES, GL_DEFAULT_MAX_ENTRIES);
    }

    const char *out = getenv("GPULEAK_OUTPUT");
    if (out != NULL && *out != '\0') {
        if (strlen(out) < sizeof gl_config.output)
            memcpy(gl_config.output, out, strlen(out) + 1);
        else
            gl_warn_once(&warned_output, "ignoring GPULEAK_OUTPUT: longer than %d bytes, using %s",
                         GL_OUTPUT_MAX - 1, GL_DEFAULT_OUTPUT);
    }
}
