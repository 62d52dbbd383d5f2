/* report, merge, diff, html and plan (the script's cmd_report,
 * hint_as_typed, cmd_html and cmd_plan). */
#include "passthru.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"

/* report_bin, then argv after `first` extra arguments. */
static noreturn void exec_report(char *const *extra, int nextra, int argc, char **argv)
{
    char *rep = report_bin();
    char *args[argc + nextra + 2];
    int n = 0;
    args[n++] = rep;
    for (int i = 0; i < nextra; i++)
        args[n++] = extra[i];
    for (int i = 0; i < argc; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    exec_or_die(rep, args);
}

int cmd_report(int argc, char **argv)
{
    exec_report(NULL, 0, argc, argv);
}

int cmd_merge(int argc, char **argv)
{
    /* (the script passed "merge" on: the reporter's own verb) */
    exec_report(argv - 1, 1, argc, argv);
}

#define HINT_TAIL "growth is measured between snapshots of one process: compare processes with"

/* s with its suffix old (which it ends with) replaced by new, or NULL. */
static char *replace_end(const char *s, const char *old, const char *new)
{
    size_t ls = strlen(s), lo = strlen(old);
    if (ls < lo || strcmp(s + ls - lo, old) != 0)
        return NULL;
    return str_printf("%.*s%s", (int)(ls - lo), s, new);
}

char *hint_as_typed(const char *line, const char *merge, const char *html_merge)
{
    const char *body = strstr(line, HINT_TAIL " '");
    if (strncmp(line, "gpuleak-report: ", 16) != 0 || body == NULL)
        return str_printf("%s", line);
    char *to_merge = str_printf(HINT_TAIL " '%s'", merge);
    char *to_across = str_printf(HINT_TAIL " '%s', or two runs of one program stack by stack with '%s diff "
                                           "--across-runs'",
                                 merge, launcher()->prog);
    char *to_html = str_printf(HINT_TAIL " '%s'", html_merge);
    char *out = replace_end(line, HINT_TAIL " 'merge'", to_merge);
    if (out == NULL)
        out = replace_end(line,
                          HINT_TAIL " 'merge', or two runs of one program stack by stack with 'diff --across-runs'",
                          to_across);
    if (out == NULL)
        out = replace_end(line, HINT_TAIL " '--html OUT.html merge'", to_html);
    free(to_merge);
    free(to_across);
    free(to_html);
    return out ? out : str_printf("%s", line);
}

/* The reporter's stderr, line by line, through hint_as_typed. */
static void copy_stderr(FILE *in, const char *merge, const char *html_merge)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, in)) > 0) {
        int newline = line[n - 1] == '\n';
        if (newline)
            line[n - 1] = '\0';
        char *out = hint_as_typed(line, merge, html_merge);
        fprintf(stderr, "%s%s", out, newline ? "\n" : "");
        fflush(stderr);
        free(out);
    }
    free(line);
}

/* gpuleak-report ARGS with its hint rewritten; exits with its status. */
static noreturn void report_with_hint(const char *merge, const char *html_merge, char **args)
{
    int fds[2];
    if (pipe(fds) != 0)
        die("cannot make a pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("cannot start %s: %s", args[0], strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        close(fds[1]);
        execv(args[0], args);
        fprintf(stderr, "%s: cannot run %s: %s\n", launcher()->prog, args[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    if (in != NULL) {
        copy_stderr(in, merge, html_merge);
        fclose(in);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

int cmd_diff(int argc, char **argv)
{
    const char *prog = launcher()->prog;
    char *merge = str_printf("%s merge", prog);
    char *html_merge = str_printf("%s merge --html OUT.html SNAP...", prog);
    char *args[argc + 3];
    int n = 0;
    args[n++] = report_bin();
    args[n++] = argv[-1]; /* "diff", the reporter's verb */
    for (int i = 0; i < argc; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    report_with_hint(merge, html_merge, args);
}

/* The reporter's options that take a value: html skips them with it when
 * it looks for OUT.html, the first operand. */
static int takes_value(const char *opt)
{
    static const char *const valued[] = {"--output", "--top", "--min-bytes", "--group-depth", "--suppressions",
                                         "--categories", "--sections", "--folded", "--color", "--colour",
                                         "--error-exitcode", "--verdict", "--html", "--torch-snapshot",
                                         "--alloc-fn"};
    for (size_t i = 0; i < sizeof valued / sizeof valued[0]; i++)
        if (strcmp(opt, valued[i]) == 0)
            return 1;
    return 0;
}

int cmd_html(int argc, char **argv)
{
    char *opts[2 * argc + 1];
    int nopts = 0, i = 0;
    while (i < argc) {
        if (takes_value(argv[i])) {
            opts[nopts++] = argv[i];
            opts[nopts++] = i + 1 < argc ? argv[i + 1] : "";
            i += i + 1 < argc ? 2 : 1;
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            opts[nopts++] = argv[i++];
        } else {
            break;
        }
    }
    if (i >= argc) { /* no OUT.html: the reporter's own usage error */
        opts[nopts++] = "--html";
        exec_report(NULL, 0, nopts, opts);
    }
    const char *prog = launcher()->prog;
    char *args[argc + nopts + 4];
    int n = 0;
    args[n++] = report_bin();
    args[n++] = "--html";
    args[n++] = argv[i];
    for (int k = 0; k < nopts; k++)
        args[n++] = opts[k];
    for (int k = i + 1; k < argc; k++)
        args[n++] = argv[k];
    args[n] = NULL;
    report_with_hint(str_printf("%s merge", prog), str_printf("%s html OUT.html merge SNAP...", prog), args);
}

int cmd_plan(int argc, char **argv)
{
    char *planner = libexec_tool("plan", "plan/gpuleak-plan");
    char *self = str_printf("%s/%s", launcher()->here, launcher()->prog);
    setenv("GPULEAK_LAUNCHER", self, 1);
    char *args[argc + 2];
    args[0] = planner;
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    args[argc + 1] = NULL;
    exec_or_die(planner, args);
}
