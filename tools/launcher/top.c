/* gpuleak top (the script's cmd_top): options checked here only for
 * their shape; the viewer checks their values. */
#include "top.h"

#include <string.h>

#include "launcher.h"
#include "usage.h"
#include "proc.h"

/* --interval, --top and --alloc-fn, alone: the next argument is theirs. */
static int takes_value(const char *a)
{
    return strcmp(a, "--interval") == 0 || strcmp(a, "--top") == 0 || strcmp(a, "--alloc-fn") == 0;
}

static int with_value(const char *a)
{
    return strncmp(a, "--interval=", 11) == 0 || strncmp(a, "--top=", 6) == 0 || strncmp(a, "--alloc-fn=", 11) == 0;
}

int cmd_top(int argc, char **argv)
{
    char *args[argc + 3];
    int n = 1, i = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--once") == 0 || with_value(a)) {
            args[n++] = argv[i];
        } else if (takes_value(a)) {
            if (i + 1 >= argc)
                die("top: %s needs a value", a);
            args[n++] = argv[i];
            args[n++] = argv[++i];
        } else {
            operand_or_die("top", a);
            break;
        }
    }
    one_pid_or_die("top", argc, i);
    const char *pid = argv[i];
    if (*pid == '\0' || strspn(pid, "0123456789") != strlen(pid))
        die("top: '%s' is not a process id", pid);
    char *tracked = tracked_pid("top", pid);
    char *viewer = libexec_tool("top", "gpuleak-top");
    args[0] = viewer;
    args[n++] = tracked;
    args[n] = NULL;
    exec_or_die(viewer, args);
}
