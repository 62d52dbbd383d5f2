/* gpuleak attach (the script's cmd_attach), with its messages. */
#include "attach.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attach_checks.h"
#include "attach_status.h"
#include "detach.h"
#include "gdb.h"
#include "launcher.h"
#include "parse.h"
#include "proc.h"
#include "strbuf.h"
#include "usage.h"

struct attach_opts {
    const char *duration, *output, *depth, *pid;
    bool light; /* --light: GPULEAK_MODE=light */
};

/* The options, then exactly one PID; later options win. */
static struct attach_opts attach_options(int argc, char **argv)
{
    static const struct {
        const char *flag, *needs;
    } valued[] = {{"--duration", "a time"}, {"--output", "a pattern"}, {"--depth", "a number"}};
    struct attach_opts o = {"", "", "", NULL, false};
    const char **slot[] = {&o.duration, &o.output, &o.depth};
    int i = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--light") == 0) {
            o.light = true;
            continue;
        }
        size_t k = 0;
        while (k < 3 && strcmp(a, valued[k].flag) != 0)
            k++;
        if (k < 3) {
            if (i + 1 >= argc)
                die("attach: %s needs %s", a, valued[k].needs);
            *slot[k] = argv[++i];
        } else {
            operand_or_die("attach", a);
            break;
        }
    }
    one_pid_or_die("attach", argc, i);
    o.pid = argv[i];
    return o;
}

/* Whether s has a control character (bash's [[:cntrl:]]). */
static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

static void no_control(const char *what, const char *value)
{
    if (has_control(value))
        die("%s has a control character (newline, tab...); refused", what);
}


char *output_dir(const char *p)
{
    struct stat st;
    size_t len = strlen(p);
    char *dir;
    if ((len > 0 && p[len - 1] == '/') || (stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
        dir = str_printf("%.*s", (int)(len > 0 && p[len - 1] == '/' ? len - 1 : len), p);
    else if (strrchr(p, '/') != NULL)
        dir = str_printf("%.*s", (int)(strrchr(p, '/') - p), p);
    else
        dir = str_printf("%s", p); /* no "/": the name itself, as bash gave */
    if (*dir == '\0') {
        free(dir);
        dir = str_printf("/");
    }
    return dir;
}

/* When the process runs as another user than the launcher (root attaching
 * to a user's job), a snapshot directory that user cannot write is
 * refused: the process writes its snapshots itself, as its own user. */
static void target_output_check(const char *pid, const char *output, struct proc_status *st)
{
    proc_status_free(st);
    if (!read_proc_status(pid, st))
        return;
    char *me = str_printf("%u", (unsigned)geteuid());
    bool same = strcmp(st->fsuid, me) == 0;
    free(me);
    if (same)
        return;
    char *dir = output_dir(output);
    if (strchr(dir, '%') != NULL || can_create_as_target(st, dir)) { /* made per process: unchecked */
        free(dir);
        return;
    }
    struct passwd *pw = getpwuid((uid_t)strtoul(st->fsuid, NULL, 10));
    char *user = pw ? str_printf("user %s, ", pw->pw_name) : str_printf("%s", "");
    die("attach: --output: process %s runs as %suid %s, which cannot create files in %s (its snapshots would be "
        "lost); choose a directory it can write",
        pid, user, st->fsuid, dir);
}

/* The records' directory, made and checked before gdb starts: the record
 * is written once the attach is in place, which must not fail then. */
static char *attach_record_dir(void)
{
    char *rec = attach_record_path("x");
    rec[strlen(rec) - 2] = '\0';
    struct stat st;
    if (stat(rec, &st) != 0 || !S_ISDIR(st.st_mode)) {
        char *argv[] = {"mkdir", "-p", rec, NULL};
        char *out = run_capture(argv, true);
        if (out == NULL)
            die("attach: cannot create %s", rec);
        free(out);
    }
    struct stat lst;
    if (stat(rec, &st) != 0 || !S_ISDIR(st.st_mode) || lstat(rec, &lst) != 0 || S_ISLNK(lst.st_mode) ||
        st.st_uid != geteuid())
        die("attach: %s is not a directory of mine", rec);
    return rec;
}

/* The record: the process's start time, then the settings, 0600, put in
 * place whole.  False when the process has ended (it needs none). */
static bool attach_record_write(const char *pid, char *const settings[])
{
    char *dir = attach_record_dir();
    char *tmpl = str_printf("%s/.rec.XXXXXX", dir);
    char *argv[] = {"mktemp", tmpl, NULL};
    char *tmp = run_capture(argv, true);
    if (tmp == NULL)
        die("attach: cannot write in %s", dir);
    char *start = start_time(pid);
    FILE *f = start ? fopen(tmp, "w") : NULL;
    bool ok = f != NULL && fprintf(f, "%s\n", start) >= 0;
    for (int i = 0; ok && settings[i] != NULL; i++)
        ok = fprintf(f, "%s\n", settings[i]) >= 0;
    if (f != NULL && fclose(f) != 0)
        ok = false;
    char *final = str_printf("%s/%s", dir, pid);
    if (!ok || rename(tmp, final) != 0) {
        unlink(tmp);
        ok = false;
    }
    free(final);
    free(start);
    free(tmp);
    free(tmpl);
    free(dir);
    return ok;
}

/* gdb's calls: dlopen with RTLD_NOW (2), not RTLD_GLOBAL (the library
 * must not come in front of the program's own lookups; hooks go in
 * through the slots instead), then gpuleak_attach_start, which only
 * starts the library's own thread (the stopped thread may hold a lock the
 * attach needs); that thread writes the status file.  It runs once the
 * thread is out of malloc and the loader (gdb_safe_cmds).  The entry
 * point is called only when dlopen and dlsym both found it: a library
 * that cannot be loaded, or is not gpuleak's, made the process call a
 * null pointer, and it died (tests/t_attach_badlib.sh); GPULEAK_DLOPEN
 * prints the entry point, so either reads as "cannot load", with the
 * loader's words (GPULEAK_DLERROR).  The answer,
 * NULL without one or without the library loaded (*why then says why). */
static char *call_attach(const char *pid, const char *work, const char *lib, const char *config, char **why)
{
    char *status = str_printf("%s/status", work);
    char *lib_lit = c_literal(lib), *config_lit = c_literal(config), *status_lit = c_literal(status);
    char *steps[] = {str_printf("set $gl_h = (void *) dlopen(%s, 2)", lib_lit),
                     "set $gl_f = $gl_h ? (void *) dlsym($gl_h, \"gpuleak_attach_start\") : (void *) 0",
                     "printf \"GPULEAK_DLOPEN=%p\\n\", $gl_f",
                     "printf \"GPULEAK_DLERROR=%s\\n\", $gl_f ? \"\" : (char *) dlerror()",
                     str_printf("set $gl_rc = $gl_f ? ((int (*)(const char *, const char *)) $gl_f)(%s, %s) : -1",
                                config_lit, status_lit),
                     "printf \"GPULEAK_RC=%d\\n\", $gl_rc",
                     NULL};
    char *text = gdb_call_safely(pid, work, steps);
    bool loaded;
    char *rc = gdb_answer(text ? text : "", &loaded);
    /* gdb goes on after a failed step: without the library loaded, the
     * answer it prints is not the library's. */
    if (!loaded) {
        free(rc);
        rc = NULL;
    }
    *why = NULL;
    if (rc == NULL) {
        char *w = loaded ? NULL : gdb_dlerror(text ? text : "");
        if (w == NULL)
            w = gdb_why(text ? text : "");
        *why = loaded ? w : str_printf("cannot load %s into it%s%s", lib, *w ? ": " : "", w);
        if (!loaded)
            free(w);
    }
    free(text);
    free(steps[0]);
    free(steps[4]);
    free(lib_lit);
    free(config_lit);
    free(status_lit);
    free(status);
    return rc;
}

/* The settings the process reads (GPULEAK_OUTPUT, GPULEAK_DEPTH,
 * GPULEAK_MODE), NULL terminated, and joined by newlines for the library. */
static char **attach_settings(const char *output, const struct attach_opts *o, char **config)
{
    char **settings = calloc(4, sizeof *settings);
    if (settings == NULL)
        die("out of memory");
    size_t n = 0;
    settings[n++] = str_printf("GPULEAK_OUTPUT=%s", output);
    if (*o->depth)
        settings[n++] = str_printf("GPULEAK_DEPTH=%s", o->depth);
    if (o->light)
        settings[n++] = str_printf("GPULEAK_MODE=light");
    struct strbuf joined = {0};
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            sb_addc(&joined, '\n');
        sb_adds(&joined, settings[i]);
    }
    *config = sb_take(&joined);
    return settings;
}

/* What the library answered, waited for: NULL when the attach is in
 * place, else the script's words for the failure (after "attach: "),
 * work removed.  The caller frees what it holds before it dies with them:
 * LeakSanitizer counts what exit leaves. */
static char *attach_failure(const char *pid, const char *work, char *rc, const char *why)
{
    if (rc != NULL && strcmp(rc, "0") == 0) {
        char *status = str_printf("%s/status", work);
        char *line = wait_status(status, pid);
        free(status);
        free(rc);
        rc = str_printf("%.*s", (int)strcspn(line, " "), line);
        free(line);
        if (*rc == '\0') {
            free(rc);
            remove_tree(work);
            if (!process_running(pid))
                return str_printf("process %s ended during the attach", pid);
            return str_printf("process %s: the attach started but did not end within 60 s", pid);
        }
    }
    if (rc != NULL && strcmp(rc, "0") == 0) {
        free(rc);
        return NULL;
    }
    remove_tree(work);
    char *failure;
    if (!process_running(pid))
        failure = str_printf("process %s ended during the attach", pid);
    else if (rc != NULL && strcmp(rc, "-1") == 0)
        failure = str_printf("process %s: the library could not start its attach thread", pid);
    else if (rc != NULL)
        failure = attach_message(rc, pid);
    else
        failure = str_printf("process %s: %s", pid, why && *why ? why : "gdb could not attach");
    free(rc);
    return failure;
}

/* The snapshot pattern the process gets: the default when none is given,
 * relative to here, not to the process's working directory; checked as
 * for an attach.  Dies naming what is wrong. */
static char *attach_output(const char *given)
{
    const char *pattern = *given ? given : "gpuleak.%p.%n.snap";
    char *pwd = pattern[0] == '/' ? NULL : shell_pwd(".");
    char *output = pwd ? str_printf("%s/%s", pwd, pattern) : str_printf("%s", pattern);
    free(pwd);
    no_control("attach: --output", output);
    char *why = check_output(output, true);
    if (why != NULL)
        die("attach: --output: %s", why);
    return output;
}

/* A process with gpuleak's writer thread is tracked already.  A writer
 * seen may also be the last detach's on its way out: the detach returns
 * once the writer has stopped, and the thread leaves the process's task
 * list only when it has run to its end (a target at nice 19 on a loaded
 * machine: t_attach_threads saw one at the next attach).  So it is looked
 * for again for up to WRITER_GONE_MS before the attach is refused. */
#define WRITER_GONE_MS 2000
static void refuse_tracked(const char *pid)
{
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int waited = 0;; waited += 10) {
        char *writer = writer_tid(pid);
        bool tracked = writer != NULL;
        free(writer); /* (before die: LeakSanitizer counts what exit leaves) */
        if (!tracked)
            return;
        if (waited >= WRITER_GONE_MS)
            die("attach: %s", attach_message("1", pid));
        nanosleep(&tick, NULL);
    }
}

/* --duration's seconds (rounded up), 0 for none; dies when it is no time. */
static long long duration_seconds(const char *duration)
{
    long long ms = 0;
    if (*duration == '\0')
        return 0;
    if (!duration_ms(duration, &ms) || ms <= 0)
        die("attach: --duration: expected a time such as 90s, 10m, 2h");
    return (ms + 999) / 1000;
}

int cmd_attach(int argc, char **argv)
{
    struct attach_opts o = attach_options(argc, argv);
    const char *pid = o.pid;
    struct proc_status st;
    attach_checks("attach", pid, &st);
    long long secs = duration_seconds(o.duration);
    if (*o.depth) {
        char *why = check_depth(o.depth);
        if (why != NULL)
            die("attach: --depth: %s", why);
    }
    char *output = attach_output(o.output);
    target_output_check(pid, output, &st);
    preloaded_check("attach", pid);
    refuse_tracked(pid);
    char *lib = find_lib();
    no_control("attach: the library's path", lib);
    free(attach_record_dir());
    char *work = status_dir("attach", pid, &st);
    char *config, **settings = attach_settings(output, &o, &config);
    char *gdb_why_text = NULL;
    char *rc = call_attach(pid, work, lib, config, &gdb_why_text);
    char *failure = attach_failure(pid, work, rc, gdb_why_text);
    remove_tree(work);
    free(work);
    free(gdb_why_text);
    free(config);
    free(lib);
    if (failure != NULL) {
        for (int i = 0; settings[i] != NULL; i++)
            free(settings[i]);
        free(settings);
        free(output);
        proc_status_free(&st);
        die("attach: %s", failure);
    }
    const char *prog = launcher()->prog;
    bool recorded = attach_record_write(pid, settings);
    if (!recorded)
        fprintf(stderr,
                "%s: attached to process %s, which has ended since (an attached process writes its final snapshot "
                "at exit: %s)\n",
                prog, pid, output);
    else
        fprintf(stderr, "%s: attached to process %s; snapshots: %s ('%s snapshot %s', '%s detach %s')\n", prog, pid,
                output, prog, pid, prog, pid);
    for (int i = 0; settings[i] != NULL; i++)
        free(settings[i]);
    free(settings);
    free(output);
    proc_status_free(&st);
    if (!recorded || secs == 0)
        return 0;
    attach_unlock();
    struct timespec t = {(time_t)secs, 0};
    while (nanosleep(&t, &t) != 0) {
    }
    char *detach_argv[] = {(char *)pid, NULL};
    return cmd_detach(1, detach_argv);
}
