/* Option values checked as the library will read them. */
#include "parse.h"

#include <ctype.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"
#include "output_target.h"

bool is_long_in(const char *s, long long lo, long long hi)
{
    while (isspace((unsigned char)*s))
        s++;
    bool neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (*s == '\0')
        return false;
    while (s[0] == '0' && s[1] != '\0')
        s++;
    size_t n = strspn(s, "0123456789");
    if (n == 0 || s[n] != '\0' || n > 18)
        return false;
    long long v = strtoll(s, NULL, 10);
    if (neg)
        v = -v;
    return v >= lo && v <= hi;
}

bool duration_ms(const char *s, long long *ms)
{
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > 12)
        return false;
    long long v = strtoll(s, NULL, 10);
    const char *unit = s + n;
    if (strcmp(unit, "ms") == 0)
        *ms = v;
    else if (strcmp(unit, "s") == 0 || *unit == '\0')
        *ms = v * 1000;
    else if (strcmp(unit, "m") == 0)
        *ms = v * 60000;
    else if (strcmp(unit, "h") == 0)
        *ms = v * 3600000;
    else
        return false;
    return true;
}

static char *reason(const char *why)
{
    return str_printf("%s", why);
}

char *check_depth(const char *v)
{
    return is_long_in(v, 0, 256) ? NULL : reason("expected 0 to 256 frames");
}

char *check_keep(const char *v)
{
    if (is_long_in(v, 0, 10000) && !is_long_in(v, 1, 1))
        return NULL;
    return reason("expected 0 (keep all) or 2 to 10000");
}

char *check_interval(const char *v)
{
    long long ms;
    if (strcmp(v, "0") == 0 || (duration_ms(v, &ms) && ms >= 100 && ms <= 30LL * 86400 * 1000))
        return NULL;
    return reason("not a duration from 100ms to 30 days (e.g. 90s, 10m, 2h), or 0 for off");
}

int listed_signal(const char *name)
{
    static const struct {
        const char *name;
        int sig;
    } names[] = {
        {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP},   {"PWR", SIGPWR}, {"WINCH", SIGWINCH},
        {"URG", SIGURG},   {"KILL", SIGKILL}, {"STOP", SIGSTOP}, {"SEGV", SIGSEGV}, {"BUS", SIGBUS},
        {"ILL", SIGILL},   {"FPE", SIGFPE},   {"ABRT", SIGABRT},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0)
            return names[i].sig;
    return 0;
}

/* The signal NAME (upper case, without SIG) names, or 0. */
static int signal_by_name(const char *name)
{
    int sig = listed_signal(name);
    if (sig != 0)
        return sig;
    if (strncmp(name, "RTMIN+", 6) == 0 && is_long_in(name + 6, 0, SIGRTMAX - SIGRTMIN))
        return SIGRTMIN + (int)strtol(name + 6, NULL, 10);
    return 0;
}

/* The number a GPULEAK_SIGNAL value names (not none), or 0. */
static int signal_of(const char *v)
{
    if (is_long_in(v, 1, SIGRTMAX)) {
        char digits[32];
        size_t n = 0;
        for (const char *p = v; *p && n < sizeof digits - 1; p++)
            if (isdigit((unsigned char)*p))
                digits[n++] = *p;
        digits[n] = '\0';
        return (int)strtol(digits, NULL, 10);
    }
    char *name = str_printf("%s", v);
    for (char *p = name; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    int sig = signal_by_name(strncmp(name, "SIG", 3) == 0 ? name + 3 : name);
    free(name);
    return sig;
}

static bool is_crash_signal(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT;
}

char *check_signal(const char *v)
{
    if (*v == '\0')
        return reason("empty");
    if (strcasecmp(v, "none") == 0 || strcmp(v, "0") == 0)
        return NULL;
    int sig = signal_of(v);
    if (sig == 0)
        return reason("not a signal name (USR1, USR2, HUP, PWR, WINCH, URG, RTMIN+N) or number, or none");
    if (sig == SIGKILL || sig == SIGSTOP)
        return str_printf("SIG%s cannot be caught", sig == SIGKILL ? "KILL" : "STOP");
    if (is_crash_signal(sig))
        return reason("a crash signal cannot ask for snapshots");
    return NULL;
}

struct target target_of(const char *path)
{
    /* The rule every writer of gpuleak's shares (common/output_target.h),
     * asked just before the command starts. */
    struct stat st;
    enum gl_out_kind kind = gl_out_kind_of(path, lstat(path, &st) == 0 ? &st : NULL);
    struct target t = {TARGET_FILE, -1, NULL};
    switch (kind) {
    case GL_OUT_STREAM:
        t.kind = TARGET_STREAM;
        t.fd = gl_out_stream_fd(path);
        break;
    case GL_OUT_IN_PLACE: t.kind = TARGET_IN_PLACE; break;
    case GL_OUT_DIRECTORY: t.kind = TARGET_NOT_A_FILE; break;
    case GL_OUT_SYMLINK:
    case GL_OUT_SOCKET:
        t.kind = TARGET_REFUSED;
        t.why = gl_out_refusal(kind);
        break;
    default: break;
    }
    return t;
}

/* The first unknown conversion of pattern p ('\0' for a '%' at its end),
 * or -1 when every one is known. */
static int unknown_conversion(const char *p)
{
    for (const char *c = strchr(p, '%'); c != NULL; c = strchr(c, '%')) {
        c++;
        if (*c == '\0' || strchr("phrnt%", *c) == NULL)
            return (unsigned char)*c;
        c++;
    }
    return -1;
}

static bool is_directory(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory the snapshots of pattern p go to: p itself when it ends
 * in '/' or is one, else its part before the last '/', else ".". */
static char *pattern_dir(const char *p)
{
    size_t len = strlen(p);
    char *dir;
    if (p[len - 1] == '/' || is_directory(p))
        dir = str_printf("%.*s", (int)(p[len - 1] == '/' ? len - 1 : len), p);
    else if (strchr(p, '/') != NULL)
        dir = str_printf("%.*s", (int)(strrchr(p, '/') - p), p);
    else
        dir = str_printf(".");
    if (*dir == '\0') {
        free(dir);
        dir = str_printf("/");
    }
    return dir;
}

/* A name without conversions, one target for every snapshot: NULL with
 * *done set when its kind settles it, else the refusal. */
static char *check_single_target(const char *p, bool for_attach, bool *done)
{
    struct target t = target_of(p);
    *done = true;
    switch (t.kind) {
    case TARGET_REFUSED: return str_printf("is %s", t.why);
    case TARGET_STREAM:
        if (!for_attach && fcntl(t.fd, F_GETFD) < 0)
            return str_printf("descriptor %d is not open", t.fd);
        return NULL;
    case TARGET_IN_PLACE: return NULL;
    default: *done = false; return NULL;
    }
}

char *check_output(const char *p, bool for_attach)
{
    if (*p == '\0')
        return reason("empty");
    if (strlen(p) >= 1024)
        return reason("longer than 1023 bytes");
    int bad = unknown_conversion(p);
    if (bad == 0)
        return reason("unknown conversion '%' (known: %p %h %r %n %t %%)");
    if (bad > 0)
        return str_printf("unknown conversion '%%%c' (known: %%p %%h %%r %%n %%t %%%%)", bad);
    char *dir = pattern_dir(p);
    char *why = NULL;
    bool done = strchr(dir, '%') != NULL; /* made per process: not checked here */
    if (!done && strchr(p, '%') == NULL)
        why = check_single_target(p, for_attach, &done);
    if (!done && !is_directory(dir))
        why = str_printf("no directory %s", dir);
    else if (!done && access(dir, W_OK | X_OK) != 0)
        why = str_printf("directory %s is not writable", dir);
    free(dir);
    return why;
}
