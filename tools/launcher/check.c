/* gpuleak check (the script's cmd_check): the options checked and the
 * reporter tried before the command runs; the command run as a child,
 * its snapshots in a directory of check's own (or --output's, tagged per
 * run); then each process's final snapshot reported and judged. */
#include "check.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach_status.h"
#include "check_files.h"
#include "check_opts.h"
#include "check_procs.h"
#include "check_report.h"
#include "env.h"
#include "launcher.h"

extern char **environ;

/* What is removed however check ends: its work directory, its claim. */
static char *work_dir, *claim_file;

static void remove_own_files(void)
{
    if (work_dir != NULL)
        remove_tree(work_dir);
    if (claim_file != NULL)
        unlink(claim_file);
}

/* Killed by a signal (the script's EXIT trap): the same files go, then
 * the signal does what it would have done. */
static void remove_own_files_and_die(int sig)
{
    if (work_dir != NULL)
        remove_dir_in_handler(work_dir, 2);
    if (claim_file != NULL)
        unlink(claim_file);
    signal(sig, SIG_DFL);
    raise(sig);
}

void untrap_in_child(void)
{
    static const int sigs[] = {SIGHUP, SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN && sa.sa_handler != SIG_DFL)
            signal(sigs[i], SIG_DFL);
    }
}

static const char *tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

/* Runs argv with stdout to /dev/null: its status, and its stderr (trailing
 * newlines dropped) in *err. */
static int run_capturing_stderr(char **argv, char **err)
{
    int fds[2];
    if (pipe(fds) != 0)
        die("check: cannot run %s: %s", argv[0], strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    struct strbuf b = {0};
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            sb_addn(&b, buf, (size_t)n);
    close(fds[0]);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    *err = sb_take(&b);
    for (size_t k = strlen(*err); k > 0 && (*err)[k - 1] == '\n'; k--)
        (*err)[k - 1] = '\0';
    return pid < 0 ? 127 : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

static const char *without_reporter_name(const char *err)
{
    return strncmp(err, "gpuleak-report: ", 16) == 0 ? err + 16 : err;
}

/* Every reporter option tried once before the command runs, and the
 * suppression rules read: a typo stops here, not after the job. */
static void try_reporter(const char *rep, const struct check_opts *o)
{
    struct strv argv = {0};
    sv_push(&argv, rep);
    for (size_t i = 0; i < o->ropts.n; i++)
        sv_push(&argv, o->ropts.v[i]);
    sv_push(&argv, "--list-default-suppressions");
    char *err;
    if (run_capturing_stderr(argv.v, &err) != 0)
        die("check: %s", without_reporter_name(err));
    free(err);
    sv_free(&argv);
    if (o->supp == NULL)
        return;
    char *supp_argv[] = {(char *)rep, "--check-suppressions", (char *)o->supp, NULL};
    if (run_capturing_stderr(supp_argv, &err) != 0)
        die("check: --suppressions %s", without_reporter_name(err));
    free(err);
}

/* The snapshot directory: made: 0 given and there, 1 made by mkdir -p,
 * 2 made in $TMPDIR (check's own). */
static char *snapshot_dir(const char *given, int *made)
{
    *made = 0;
    if (given == NULL || *given == '\0') {
        char *dir = str_printf("%s/gpuleak-check.XXXXXX", tmpdir());
        if (mkdtemp(dir) == NULL)
            die("check: cannot create a directory in %s", tmpdir());
        *made = 2;
        return dir;
    }
    struct stat st;
    if (stat(given, &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (!make_dirs(given))
            die("check: cannot create %s", given);
        *made = 1;
    }
    return str_printf("%s", given);
}

static void make_work_dir(void)
{
    work_dir = str_printf("%s/gpuleak-check-run.XXXXXX", tmpdir());
    if (mkdtemp(work_dir) == NULL) {
        free(work_dir);
        work_dir = NULL;
        die("check: cannot create a temporary directory");
    }
    char *pending = str_printf("%s/pending", work_dir);
    if (mkdir(pending, 0777) != 0)
        die("check: cannot create a temporary directory");
    free(pending);
}

/* A shared --output directory: this run's tag, the name of an O_EXCL
 * claim file no other run has while this one lives. */
static char *claim_prefix(const char *absdir, const char *dir)
{
    claim_file = str_printf("%s/.gpuleak-check.XXXXXX", absdir);
    int fd = mkstemp(claim_file);
    if (fd < 0) {
        free(claim_file);
        claim_file = NULL;
        die("check: cannot write to %s", dir);
    }
    close(fd);
    return str_printf("gpuleak.run-%s.", strrchr(claim_file, '.') + 1);
}

/* The pattern: the directory absolute and literal (its '%' doubled). */
static char *output_pattern(const char *absdir, const char *prefix)
{
    struct strbuf b = {0};
    for (const char *p = absdir; *p != '\0'; p++) {
        if (*p == '%')
            sb_addc(&b, '%');
        sb_addc(&b, *p);
    }
    sb_addc(&b, '/');
    sb_adds(&b, prefix);
    sb_adds(&b, "%p.%n.snap");
    return sb_take(&b);
}

/* In the child: env(1)'s settings, then the command (its own leading
 * NAME=VALUE words are settings too, as env read them). */
static noreturn void exec_tracked(char **command)
{
    while (*command != NULL && strchr(*command, '=') != NULL && **command != '=') {
        char *eq = strchr(*command, '=');
        *eq = '\0';
        setenv(*command, eq + 1, 1);
        *eq = '=';
        command++;
    }
    if (*command == NULL) {
        for (char **e = environ; *e != NULL; e++)
            puts(*e);
        _exit(fflush(stdout) == 0 ? 0 : 125);
    }
    execvp(command[0], command);
    int err = errno;
    char *q = coreutils_quote(command[0]);
    fprintf(stderr, "env: %s: %s\n", q, strerror(err));
    _exit(err == ENOENT ? 127 : 126);
}

static void ignore_for_now(int sig)
{
    (void)sig;
}

/* Sets sig's handler (unless ignored on entry, as the shell's trap does);
 * true when it was set. */
static bool trap_signal(int sig, void (*fn)(int))
{
    struct sigaction old, sa;
    if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
        return false;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL) == 0;
}

/* The command as a child: an interrupt goes to it (same process group)
 * and check still reports.  Its status as the shell gives it. */
static int run_command(const struct check_opts *o, const char *pattern)
{
    bool int_set = trap_signal(SIGINT, ignore_for_now), term_set = trap_signal(SIGTERM, ignore_for_now);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("check: cannot start the command: %s", strerror(errno));
    if (pid == 0) {
        untrap_in_child();
        char *pending = str_printf("%s/pending", work_dir);
        setenv("GPULEAK_OUTPUT", pattern, 1);
        setenv("GPULEAK_PENDING_DIR", pending, 1);
        if (o->depth != NULL)
            setenv("GPULEAK_DEPTH", o->depth, 1);
        if (o->free_stacks)
            setenv("GPULEAK_FREE_STACKS", "1", 1);
        exec_tracked(o->command); /* (handlers go back to their defaults in exec) */
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            status = 127 << 8;
            break;
        }
    /* From now an interrupt ends check, without leaving its files. */
    if (int_set)
        trap_signal(SIGINT, remove_own_files_and_die);
    if (term_set)
        trap_signal(SIGTERM, remove_own_files_and_die);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* The snapshots to judge, and the processes that cannot be: those still
 * running after --wait, and those that ended without a final snapshot. */
static struct strv judged_snapshots(struct check_run *run, const char *dir, const char *absdir,
                                    const struct strv *before, const char *prefix, const char *pattern, double wait)
{
    run->late = wait_started(pattern, wait);
    struct strv snaps = final_snapshots(dir, before, prefix);
    if (claim_file != NULL) {
        unlink(claim_file);
        free(claim_file);
        claim_file = NULL;
    }
    char *pending = str_printf("%s/pending", work_dir);
    /* An image an exec replaced left its last snapshot in a mark of its
     * own: judged beside the next image's, never that one's last. */
    struct strv execs = exec_snapshots(pending, absdir, dir, prefix);
    struct strv not_exec = {0};
    for (size_t i = 0; i < snaps.n; i++)
        if (!sv_has(&execs, snaps.v[i]))
            sv_push(&not_exec, snaps.v[i]);
    unjudged_processes(pending, &run->late, &not_exec, &run->unjudged, &run->unjudged_why);
    free(pending);
    struct strv out = {0};
    for (size_t i = 0; i < snaps.n; i++) {
        bool partial = false; /* what one wrote so far is not its last word */
        for (size_t k = 0; k < run->late.n; k++)
            partial |= is_snapshot_of(snaps.v[i], run->late.v[k]);
        for (size_t k = 0; k < run->unjudged.n; k++)
            partial |= is_snapshot_of(snaps.v[i], run->unjudged.v[k]);
        if (!partial && !sv_has(&out, snaps.v[i]))
            sv_push(&out, snaps.v[i]);
    }
    for (size_t i = 0; i < execs.n; i++)
        if (!sv_has(&out, execs.v[i]))
            sv_push(&out, execs.v[i]);
    sort_snapshots(&out);
    sv_free(&snaps);
    sv_free(&execs);
    sv_free(&not_exec);
    return out;
}

static void summary_line(const struct check_run *run, int nbad, int nproc)
{
    struct strbuf b = {0};
    char *head = str_printf("%s: ERROR SUMMARY: %d of %d processes with errors (leaks, memory still mapped, refused "
                            "frees, teardown releases",
                            launcher()->prog, nbad, nproc);
    sb_adds(&b, head);
    free(head);
    if (run->late.n > 0)
        sb_adds(&b, "; still running");
    if (run->unjudged.n > 0)
        sb_adds(&b, "; no final snapshot");
    if (run->failed > 0)
        sb_adds(&b, "; reports failed");
    sb_addc(&b, ')');
    if (run->bad_ranks.n > 0) {
        sb_adds(&b, "; ranks with errors:");
        for (size_t i = 0; i < run->bad_ranks.n; i++) {
            sb_addc(&b, ' ');
            sb_adds(&b, run->bad_ranks.v[i]);
        }
    }
    if (run->double_frees > 0) {
        char *d = str_printf("; double frees: %d", run->double_frees);
        sb_adds(&b, d);
        free(d);
    }
    sb_addc(&b, '\n');
    char *text = sb_take(&b);
    fputs(text, stderr);
    free(text);
}

/* What cmd_check holds until it exits: static, so that it is still
 * reachable there (LeakSanitizer judges at exit). */
static struct check_opts o;
static char *rep, *dir, *absdir, *prefix, *pattern;
static struct strv before, snaps;
static struct check_run run;

int cmd_check(int argc, char **argv)
{
    parse_check(argc, argv, &o);
    bool has_exitcode = o.exitcode != NULL && *o.exitcode != '\0';
    if (has_exitcode && !valid_exitcode(o.exitcode))
        die("check: --error-exitcode %s: expected 1 to 255", o.exitcode);
    /* Short by default: the summary and the leaks. */
    if (!o.full && !o.sections)
        sv_push(&o.ropts, "--sections=leaks");
    rep = report_bin();
    try_reporter(rep, &o);
    setup_env(); /* (before a directory is made: it can fail) */
    atexit(remove_own_files);
    trap_signal(SIGHUP, remove_own_files_and_die);
    int made;
    dir = snapshot_dir(o.dir, &made);
    absdir = logical_abspath(dir);
    if (absdir == NULL)
        die("check: cannot enter %s", dir);
    if (access(absdir, W_OK) != 0)
        die("check: cannot write to %s", dir);
    /* A reused directory: only what this run writes is read. */
    before = dir_names(dir, "gpuleak.*.*.snap");
    make_work_dir();
    prefix = made == 2 ? str_printf("gpuleak.") : claim_prefix(absdir, dir);
    pattern = output_pattern(absdir, prefix);
    int status = run_command(&o, pattern);
    snaps = judged_snapshots(&run, dir, absdir, &before, prefix, pattern, strtod(o.wait, NULL));
    if (snaps.n == 0 && run.late.n == 0 && run.unjudged.n == 0 && o.json_file == NULL) {
        fprintf(stderr, "%s: no snapshot was written (the command made no CUDA allocation gpuleak saw)\n",
                launcher()->prog);
        if (made)
            rmdir(dir); /* nothing to keep */
        exit(status);
    }
    check_reports(&run, rep, o.ropts.v, &snaps, work_dir);
    int nother = (int)(run.late.n + run.unjudged.n);
    int nproc = (int)run.n + nother, nbad = run.bad + nother, code = status;
    /* not checked is not passed, with or without --error-exitcode */
    if (run.late.n > 0 || run.unjudged.n > 0 || run.failed > 0)
        code = 2;
    if (nbad != 0 && has_exitcode)
        code = atoi(o.exitcode);
    /* check's own directory is kept only for a process with errors */
    const char *kept = dir;
    if (made == 2 && nbad == 0) {
        remove_tree(dir);
        kept = NULL;
    }
    if (o.json_file != NULL) {
        struct check_totals t = {nproc, nbad, status, code, kept};
        char *doc = check_document(&run, &t);
        char *why = write_json_target(doc, o.json_file);
        if (why != NULL)
            die("check: --json=%s: %s", o.json_file, why);
        free(doc);
    }
    check_lines(&run, o.wait, o.json_file != NULL);
    if (kept != NULL)
        fprintf(stderr, "%s: snapshots in %s\n", launcher()->prog, kept);
    summary_line(&run, nbad, nproc);
    exit(code);
}
