/* gdb runs and their logs, as the script's gdb_call and its readers. */
#include "gdb.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "launcher.h"
#include "strbuf.h"

const char *gdb_program(void)
{
    const char *g = getenv("GPULEAK_GDB");
    return g != NULL && *g != '\0' ? g : "gdb";
}

char *c_literal(const char *s)
{
    struct strbuf b = {0};
    sb_addc(&b, '"');
    for (; *s; s++) {
        if (*s == '\\')
            sb_adds(&b, "\\\\");
        else if (*s == '"')
            sb_adds(&b, "\\\"");
        else if (*s == '\n')
            sb_adds(&b, "\\n");
        else
            sb_addc(&b, *s);
    }
    sb_addc(&b, '"');
    return sb_take(&b);
}

/* s in single quotes as bash's ${s@Q} writes it: ' as '\''. */
static char *single_quote(const char *s)
{
    struct strbuf b = {0};
    sb_addc(&b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            sb_adds(&b, "'\\''");
        else
            sb_addc(&b, *s);
    }
    sb_addc(&b, '\'');
    return sb_take(&b);
}

/* The awk program that reads gdb's backtrace and prints the commands that
 * finish the outermost frame inside the allocator, the loader, fork or
 * pthread_create (gdb_safe_point in the script says why each).  Entry
 * points only: their internal functions have no exported name and are
 * always below one of them.  A frame line is
 * "#N  [0xADDR in ]NAME (...)[ at FILE:LINE| from LIB]"; no "from": the
 * executable.  Only frames of the executable, libc, the loader and an
 * allocator library count (those whose unwind tables gdb read); the first
 * other one ends the walk.  One line: gdb hands the shell the rest of its
 * line. */
static const char safe_awk[] =
    "done { next } /<signal handler called>/ { next } /^#[0-9]+ / {"
    " level = substr($1, 2) + 0; s = $0; lib = \"\"; sub(/^#[0-9]+ +/, \"\", s);"
    " sub(/^0x[0-9a-f]+ in /, \"\", s); if (match(s, / from [^ ]+$/)) lib = substr(s, RSTART + 6);"
    " sub(/ \\(.*$/, \"\", s); sub(/@.*$/, \"\", s);"
    " if (!((lib == \"\" && s != \"??\") || lib ~ /\\/libc\\.so|\\/ld-linux|malloc/)) { done = 1; next }"
    " if (s ~ /^(__libc_|je_|tc_|mi_)?(malloc|free|calloc|realloc|reallocarray|memalign|aligned_alloc"
    "|posix_memalign|valloc|pvalloc|cfree)$/"
    " || s ~ /^(malloc_|_int_|__malloc_|tcache_|arena_|sysmalloc|operator new|operator delete)/"
    " || s ~ /^(dlopen|dlmopen|dlclose|dlsym|dlvsym|dladdr|dladdr1|dlinfo|dl_iterate_phdr)$|^(_dl_|__dl|__libc_dl)/"
    " || s ~ /^(fork|_Fork|__fork|__libc_fork|pthread_create)$/ || lib ~ /\\/ld-linux/) worst = level }"
    " END { if (worst != \"\") printf \"frame %d\\nfinish\\n\", worst }";

char **gdb_safe_cmds(const char *dir)
{
    char *out = str_printf("%s/safe.gdb", dir);
    char *prog = single_quote(safe_awk), *out_q = single_quote(out);
    char **cmds = calloc(5, sizeof *cmds);
    if (cmds == NULL)
        die("out of memory");
    /* "No shared libraries matched" (no allocator library) is no failure. */
    cmds[0] = str_printf("sharedlibrary /ld-linux");
    cmds[1] = str_printf("sharedlibrary malloc");
    cmds[2] = str_printf("pipe bt 200 | awk %s >%s", prog, out_q);
    cmds[3] = str_printf("source %s", out);
    free(prog);
    free(out_q);
    free(out);
    return cmds;
}

char *gdb_call_safely(const char *pid, const char *work, char *const steps[])
{
    enum { N_SAFE = 4 };
    size_t n = 0;
    while (steps[n] != NULL)
        n++;
    char **cmds = calloc(N_SAFE + n + 1, sizeof *cmds);
    if (cmds == NULL)
        die("out of memory");
    char **safe = gdb_safe_cmds(work);
    memcpy(cmds, safe, N_SAFE * sizeof *cmds);
    memcpy(cmds + N_SAFE, steps, n * sizeof *cmds);
    char *log = str_printf("%s/gdb.log", work);
    gdb_call(pid, log, cmds);
    char *text = read_text_file(log);
    free(log);
    for (int i = 0; i < N_SAFE; i++)
        free(safe[i]);
    free(safe);
    free(cmds);
    return text;
}

/* gdb's settings before it attaches: libc's symbols alone, no debug
 * information, no auto-loading, every signal the program gets passed on
 * at once (a stop abandoned the call), a call a signal interrupts unwound.
 * gdb_call in the script says what each cost or broke. */
static const char *const gdb_preamble[] = {
    "-nx", "-batch", "-q", "-iex", "set auto-load off", "-iex", "set debuginfod enabled off",
    "-iex", "set pagination off", "-iex", "set confirm off", "-iex", "set auto-solib-add off",
    "-iex", "set debug-file-directory /nonexistent", "-iex", "handle all nostop noprint pass",
    "-iex", "set unwindonsignal on",
};

/* The child's side: stdin /dev/null, both outputs into log, then exec. */
static void exec_gdb_child(const char *log, char **argv)
{
    int in = open("/dev/null", O_RDONLY);
    int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        _exit(126);
    close(in);
    close(out);
    execvp(argv[0], argv);
    _exit(127);
}

void gdb_call(const char *pid, const char *log, char *const cmds[])
{
    size_t ncmds = 0;
    while (cmds[ncmds] != NULL)
        ncmds++;
    size_t npre = sizeof gdb_preamble / sizeof gdb_preamble[0];
    char **argv = calloc(6 + npre + 6 + 2 * ncmds + 1, sizeof *argv);
    if (argv == NULL)
        die("out of memory");
    size_t n = 0;
    argv[n++] = "timeout";
    argv[n++] = "-k";
    argv[n++] = "5";
    argv[n++] = "60";
    argv[n++] = (char *)gdb_program();
    for (size_t i = 0; i < npre; i++)
        argv[n++] = (char *)gdb_preamble[i];
    argv[n++] = "-p";
    argv[n++] = (char *)pid;
    argv[n++] = "-ex";
    argv[n++] = "sharedlibrary /libc\\.so";
    argv[n++] = "-ex";
    argv[n++] = "sharedlibrary /libdl\\.so";
    for (size_t i = 0; i < ncmds; i++) {
        argv[n++] = "-ex";
        argv[n++] = cmds[i];
    }
    argv[n] = NULL;
    fflush(NULL);
    pid_t child = fork();
    if (child == 0)
        exec_gdb_child(log, argv);
    int status = 0, rc = 0;
    if (child < 0)
        rc = 1;
    else if (waitpid(child, &status, 0) == child)
        rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    /* timeout's 124 (and a kill): gdb hung; the process may be stopped. */
    if (rc >= 124)
        kill((pid_t)atoi(pid), SIGCONT);
    free(argv);
}

char *read_text_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    struct strbuf b = {0};
    int c;
    while ((c = getc(f)) != EOF)
        if (c != '\0')
            sb_addc(&b, (char)c);
    fclose(f);
    return sb_take(&b);
}

/* Whether s is -?[0-9]+. */
static bool is_integer(const char *s)
{
    if (*s == '-')
        s++;
    return *s != '\0' && strspn(s, "0123456789") == strlen(s);
}

/* Calls fn on each line of text (the last one also without a newline). */
static void each_line(const char *text, void (*fn)(const char *line, size_t len, void *arg), void *arg)
{
    while (*text) {
        size_t len = strcspn(text, "\n");
        fn(text, len, arg);
        text += len;
        if (*text == '\n')
            text++;
    }
}

static bool starts(const char *line, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(line, prefix, n) == 0;
}

struct answer {
    char *rc;
    bool loaded;
};

static void answer_line(const char *line, size_t len, void *arg)
{
    struct answer *a = arg;
    if (starts(line, len, "GPULEAK_RC=")) {
        free(a->rc);
        a->rc = str_printf("%.*s", (int)(len - 11), line + 11);
    } else if (starts(line, len, "GPULEAK_DLOPEN=0x") && len > 17 && strchr("123456789abcdef", line[17]) != NULL) {
        a->loaded = true;
    }
}

char *gdb_answer(const char *log_text, bool *loaded)
{
    struct answer a = {NULL, false};
    each_line(log_text, answer_line, &a);
    if (a.rc != NULL && !is_integer(a.rc)) {
        free(a.rc);
        a.rc = NULL;
    }
    *loaded = a.loaded;
    return a.rc;
}

static void dlerror_line(const char *line, size_t len, void *arg)
{
    char **err = arg;
    if (starts(line, len, "GPULEAK_DLERROR=")) {
        free(*err);
        *err = len > 16 ? str_printf("%.*s", (int)(len - 16), line + 16) : NULL;
    }
}

char *gdb_dlerror(const char *log_text)
{
    char *err = NULL;
    each_line(log_text, dlerror_line, &err);
    return err;
}

static void why_line(const char *line, size_t len, void *arg)
{
    char **why = arg;
    static const char *const noise[] = {"[", "warning:", "Using", "Reading", "Download", "GPULEAK_"};
    if (len == 0)
        return;
    for (size_t i = 0; i < sizeof noise / sizeof noise[0]; i++)
        if (starts(line, len, noise[i]))
            return;
    free(*why);
    *why = str_printf("%.*s", (int)len, line);
}

char *gdb_why(const char *log_text)
{
    char *why = NULL;
    each_line(log_text, why_line, &why);
    return why != NULL ? why : str_printf("%s", "");
}
