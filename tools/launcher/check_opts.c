/* gpuleak check's options (the script's cmd_check, its loop). */
#include "check_opts.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_files.h"
#include "launcher.h"
#include "parse.h"
#include "usage.h"

char *check_wait(const char *v)
{
    size_t a = strspn(v, "0123456789");
    bool ok = a >= 1 && a <= 5;
    if (ok && v[a] == '.') {
        size_t b = strspn(v + a + 1, "0123456789");
        ok = b >= 1 && b <= 3 && v[a + 1 + b] == '\0';
    } else {
        ok = ok && v[a] == '\0';
    }
    if (ok && strtod(v, NULL) <= 86400)
        return NULL;
    return str_printf("expected seconds, 0 to 86400 (e.g. 60, 0.5)");
}

static bool is_writable_dir(const char *d)
{
    struct stat st;
    return stat(d, &st) == 0 && S_ISDIR(st.st_mode) && access(d, W_OK) == 0;
}

char *check_json_file(const char *v)
{
    if (*v == '\0' || v[strlen(v) - 1] == '/')
        return str_printf("not a file name");
    struct target t = target_of(v);
    switch (t.kind) {
    case TARGET_REFUSED: return str_printf("is %s", t.why);
    case TARGET_NOT_A_FILE: return str_printf("not a file name");
    case TARGET_STREAM:
        /* (the script asked from a command substitution: its stdout a pipe) */
        if (t.fd != 1 && fcntl(t.fd, F_GETFD) < 0)
            return str_printf("descriptor %d is not open", t.fd);
        return NULL;
    case TARGET_IN_PLACE: return NULL;
    default: break;
    }
    char *d = dir_name(v);
    char *why = is_writable_dir(d) ? NULL : str_printf("cannot write in %s", d);
    free(d);
    return why;
}

bool valid_exitcode(const char *v)
{
    size_t n = strspn(v, "0123456789");
    if (n == 0 || n > 3 || v[n] != '\0')
        return false;
    int code = atoi(v);
    return code >= 1 && code <= 255;
}

/* Dies "check: FLAG VALUE: WHY" when check says why. */
static void valid(const char *flag, const char *value, char *(*check)(const char *))
{
    char *why = check(value);
    if (why != NULL)
        die("check: %s %s: %s", flag, value, why);
}

static const char *const valued[] = {"--error-exitcode", "--output",       "--depth",       "--wait",
                                     "--min-bytes",      "--growth-steps", "--top",         "--group-depth",
                                     "--suppressions",   "--sections",     "--color",       "--colour",
                                     "--alloc-fn"};
/* Passed to the reporter as they are, with a value or without. */
static const char *const passed_valued[] = {"--min-bytes", "--top", "--growth-steps", "--group-depth",
                                            "--color",     "--colour", "--alloc-fn"};
static const char *const passed_bare[] = {"--no-default-suppressions", "--all-frames", "--full-stacks", "--native"};
static const char *const own_files[] = {"--html", "--torch-snapshot", "--folded"};

static bool in(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}
#define IN(s, list) in(s, list, sizeof list / sizeof list[0])

/* FLAG=VALUE: its flag (a new string) and *value. */
static char *split_flag(const char *a, const char **value)
{
    const char *eq = strchr(a, '=');
    *value = eq ? eq + 1 : NULL;
    return eq ? str_printf("%.*s", (int)(eq - a), a) : str_printf("%s", a);
}

/* One option of the form --flag=value, or a bare one; false when it is
 * not an option (the command starts). */
static void take_option(const char *a, struct check_opts *o)
{
    const char *v;
    char *flag = split_flag(a, &v);
    const char *prog = launcher()->prog;
    if (v != NULL && strcmp(flag, "--error-exitcode") == 0)
        o->exitcode = v;
    else if (v != NULL && strcmp(flag, "--output") == 0)
        o->dir = v;
    else if (v != NULL && strcmp(flag, "--depth") == 0) {
        valid("--depth", v, check_depth);
        o->depth = v;
    } else if (v != NULL && strcmp(flag, "--wait") == 0) {
        valid("--wait", v, check_wait);
        o->wait = v;
    } else if (v == NULL && strcmp(flag, "--free-stacks") == 0)
        o->free_stacks = true;
    else if (v == NULL && strcmp(flag, "--full") == 0)
        o->full = true;
    else if (v != NULL && strcmp(flag, "--sections") == 0) {
        o->sections = true;
        sv_push(&o->ropts, a);
    } else if (v != NULL && strcmp(flag, "--suppressions") == 0) {
        struct stat st;
        if (access(v, R_OK) != 0 || stat(v, &st) != 0 || !S_ISREG(st.st_mode))
            die("check: --suppressions %s: cannot read that file", v);
        o->supp = v;
        sv_push(&o->ropts, a);
    } else if (v != NULL && IN(flag, passed_valued))
        sv_push(&o->ropts, a);
    else if (v == NULL && strcmp(a, "--json") == 0)
        die("check: --json needs a file: --json=FILE, or --json=/dev/fd/N for a descriptor of its own (stdout is the "
            "command's)");
    else if (v != NULL && strcmp(flag, "--json") == 0) {
        o->json_file = v;
        valid("--json", v, check_json_file);
        sv_push(&o->ropts, "--json");
    } else if (v == NULL && IN(a, passed_bare))
        sv_push(&o->ropts, a);
    else if (IN(flag, own_files))
        die("check: %s writes its own file: run '%s report %s ...' on the snapshots check keeps", flag, prog, flag);
    else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
        show_usage(0);
    else
        die("check: unknown option %s (see %s --help)", a, prog);
    free(flag);
}

void parse_check(int argc, char **argv, struct check_opts *o)
{
    o->wait = "60";
    int i = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (IN(a, valued)) {
            if (i + 1 >= argc)
                die("check: %s needs a value", a);
            char *joined = str_printf("%s=%s", a, argv[i + 1]);
            sv_push(&o->joined, joined);
            free(joined);
            i++;
            take_option(o->joined.v[o->joined.n - 1], o);
            continue;
        }
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        take_option(a, o);
    }
    if (i >= argc)
        die("check: no command given (usage: %s check [options] -- command [args...])", launcher()->prog);
    o->command = argv + i;
}
