#include "model/program.h"

#include <stdio.h>
#include <string.h>

#define PROGRAM_MAX 512

/* The part of s[0..len) after its last '/'. */
static struct snap_str base_name(struct snap_str s)
{
    uint32_t i = s.len;
    while (i > 0 && s.s[i - 1] != '/')
        i--;
    return (struct snap_str){s.s + i, s.len - i};
}

static bool is_python(struct snap_str exe)
{
    return exe.len >= 6 && memcmp(exe.s, "python", 6) == 0;
}

/* What a Python command line ran (argv[1..]), by the interpreter's own
 * rules: options up to the first argument that is none; -c and -m end
 * them, -W and -X take a value (in the same argument or the next).  Its
 * text, or an empty string for the interactive interpreter. */
static void python_target(const struct snap_process *p, char *buf, size_t n)
{
    buf[0] = '\0';
    for (uint32_t i = 1; i < p->argc; i++) {
        struct snap_str a = p->argv[i];
        if (a.len < 2 || a.s[0] != '-') { /* the script, or "-": stdin */
            struct snap_str b = base_name(a);
            snprintf(buf, n, "%.*s", (int)b.len, b.s);
            return;
        }
        if (a.s[1] == '-') { /* a long option; this one takes a value */
            if (a.len == 2)
                continue; /* "--": the next is the script */
            static const char takes_value[] = "--check-hash-based-pycs";
            if (a.len == sizeof takes_value - 1 && memcmp(a.s, takes_value, a.len) == 0)
                i++;
            continue;
        }
        for (uint32_t k = 1; k < a.len; k++) {
            char c = a.s[k];
            bool rest = k + 1 < a.len, next = i + 1 < p->argc;
            if (c == 'c') {
                snprintf(buf, n, "-c");
                return;
            }
            if (c == 'm') {
                struct snap_str mod = rest ? (struct snap_str){a.s + k + 1, a.len - k - 1}
                                           : next ? p->argv[i + 1] : (struct snap_str){"", 0};
                snprintf(buf, n, "-m %.*s", (int)mod.len, mod.s);
                return;
            }
            if (c == 'W' || c == 'X') {
                if (!rest)
                    i++; /* its value is the next argument */
                break;
            }
        }
    }
}

void snap_program(const struct snap_process *p, char *buf, size_t n)
{
    struct snap_str exe = p->exe.len ? p->exe : p->argc ? p->argv[0] : (struct snap_str){"", 0};
    exe = base_name(exe);
    if (exe.len == 0) {
        snprintf(buf, n, "?");
        return;
    }
    if (!is_python(exe)) {
        snprintf(buf, n, "%.*s", (int)exe.len, exe.s);
        return;
    }
    /* python3.11 and python3.12 running one script run one program */
    char target[PROGRAM_MAX];
    python_target(p, target, sizeof target);
    snprintf(buf, n, "python%s%s", target[0] ? " " : "", target);
}

bool snap_same_program(const struct snap_process *a, const struct snap_process *b)
{
    char na[PROGRAM_MAX], nb[PROGRAM_MAX];
    snap_program(a, na, sizeof na);
    snap_program(b, nb, sizeof nb);
    return strcmp(na, nb) == 0;
}
