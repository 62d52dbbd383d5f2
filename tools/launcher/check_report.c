/* check's reports and what it says of them (the script's check_reports,
 * check_lines and check_document). */
#include "check_report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "check_json.h"
#include "launcher.h"
#include "proc.h"

/* Runs argv with stdout and stderr into the file out: its status as the
 * shell gives it (128+N for a signal). */
static int run_to_file(char **argv, const char *out)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 127;
    if (pid == 0) {
        untrap_in_child();
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(1);
        execv(argv[0], argv);
        fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 127;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* The whole file (NULL: unreadable), its trailing newlines dropped when
 * strip is set (as $(<file) does). */
static char *slurp(const char *path, bool strip)
{
    size_t len = 0;
    char *s = read_proc(path, &len);
    if (s == NULL)
        return NULL;
    if (strip)
        for (size_t n = strlen(s); n > 0 && s[n - 1] == '\n'; n--)
            s[n - 1] = '\0';
    return s;
}

/* The pid in a snapshot's name (DIR/gpuleak.[run-TAG.]PID.N.snap). */
static char *pid_of_name(const char *snap)
{
    const char *p = strrchr(snap, '/');
    p = p ? p + 1 : snap;
    if (strncmp(p, "gpuleak.", 8) == 0)
        p += 8;
    if (strncmp(p, "run-", 4) == 0 && strchr(p, '.') != NULL)
        p = strchr(p, '.') + 1;
    return str_printf("%.*s", (int)strcspn(p, "."), p);
}

static void check_one(struct check_run *run, struct checked *c, const char *rep, char **ropts, const char *snap,
                      const char *work, size_t n)
{
    char *vfile = str_printf("%s/%zu.verdict", work, n), *rfile = str_printf("%s/%zu.report", work, n);
    struct strv argv = {0};
    sv_push(&argv, rep);
    for (char **o = ropts; o != NULL && *o != NULL; o++)
        sv_push(&argv, *o);
    const char *tail[] = {"--error-exitcode", "100", "--verdict", vfile, snap};
    for (size_t k = 0; k < sizeof tail / sizeof tail[0]; k++)
        sv_push(&argv, tail[k]);
    c->rc = run_to_file(argv.v, rfile);
    sv_free(&argv);
    c->n = n;
    c->snap = str_printf("%s", snap);
    c->pid = pid_of_name(snap);
    c->rank = str_printf("0");
    c->report = slurp(rfile, false);
    if (c->report == NULL)
        c->report = str_printf("%s", "");
    if (c->rc == 0 || c->rc == 100) {
        c->verdict = slurp(vfile, true);
        if (c->verdict == NULL)
            c->verdict = str_printf("%s", "");
        char *rank = verdict_field(c->verdict, "rank"), *pid = verdict_field(c->verdict, "pid");
        char *dbl = verdict_field(c->verdict, "double_frees");
        free(c->rank);
        c->rank = rank ? rank : str_printf("-");
        if (pid != NULL) {
            free(c->pid);
            c->pid = pid;
        }
        if (dbl != NULL)
            run->double_frees += atoi(dbl);
        free(dbl);
    }
    if (strcmp(c->rank, "0") != 0 && strcmp(c->rank, "-") != 0)
        run->ranks = true;
    run->bad += c->rc != 0;
    run->failed += c->rc != 0 && c->rc != 100;
    free(vfile);
    free(rfile);
}

static int num_cmp(const char *a, const char *b)
{
    long long x = atoll(a), y = atoll(b);
    return x < y ? -1 : x > y;
}

/* The line "RANK PID N RC" the script sorted, for sort's last resort. */
static int line_cmp(const struct checked *a, const struct checked *b)
{
    char *x = str_printf("%s %s %zu %d", a->rank, a->pid, a->n, a->rc);
    char *y = str_printf("%s %s %zu %d", b->rank, b->pid, b->n, b->rc);
    int c = strcmp(x, y);
    free(x);
    free(y);
    return c;
}

/* Ranked ones by rank then pid, then the unranked ones by pid. */
static int by_rank(const void *pa, const void *pb)
{
    const struct checked *a = pa, *b = pb;
    bool ua = strcmp(a->rank, "-") == 0, ub = strcmp(b->rank, "-") == 0;
    if (ua != ub)
        return ua ? 1 : -1;
    int c = ua ? 0 : num_cmp(a->rank, b->rank);
    if (c == 0)
        c = num_cmp(a->pid, b->pid);
    return c ? c : line_cmp(a, b);
}

void check_reports(struct check_run *run, const char *rep, char **ropts, const struct strv *snaps, const char *work)
{
    run->procs = calloc(snaps->n ? snaps->n : 1, sizeof *run->procs);
    if (run->procs == NULL)
        die("out of memory");
    for (size_t i = 0; i < snaps->n; i++)
        check_one(run, &run->procs[i], rep, ropts, snaps->v[i], work, i + 1);
    run->n = snaps->n;
    if (run->n > 1)
        qsort(run->procs, run->n, sizeof *run->procs, by_rank);
    for (size_t i = 0; i < run->n; i++) {
        const struct checked *c = &run->procs[i];
        if (strcmp(c->rank, "-") != 0 && c->rc != 0 && run->ranks && !sv_has(&run->bad_ranks, c->rank))
            sv_push(&run->bad_ranks, c->rank);
    }
}

char *comm_of(const char *pid)
{
    char *path = str_printf("/proc/%s/comm", pid);
    char *comm = slurp(path, true);
    free(path);
    return comm ? comm : str_printf("?");
}

static char *who_of(const struct check_run *run, const struct checked *c)
{
    if (!run->ranks)
        return str_printf("process %s", c->pid);
    if (strcmp(c->rank, "-") == 0)
        return str_printf("process %s (no rank)", c->pid);
    return str_printf("rank %s (process %s)", c->rank, c->pid);
}

static void process_line(struct strbuf *b, const struct check_run *run, const struct checked *c)
{
    const char *prog = launcher()->prog;
    char *who = who_of(run, c);
    char *summary = c->verdict ? verdict_field(c->verdict, "summary") : NULL;
    char *line;
    if (c->rc == 0 || c->rc == 100)
        line = str_printf("%s: %s: %s: %s [%s]\n", prog, who, c->rc == 0 ? "no errors" : "ERRORS",
                          summary ? summary : "", c->snap);
    else
        line = str_printf("%s: %s: the report of %s failed (status %d): not checked, so not passed\n", prog, who,
                          c->snap, c->rc);
    sb_adds(b, line);
    free(line);
    free(summary);
    free(who);
}

void check_lines(const struct check_run *run, const char *wait, bool no_reports)
{
    const char *prog = launcher()->prog;
    struct strbuf b = {0};
    for (size_t i = 0; i < run->n; i++) {
        if (!no_reports)
            fputs(run->procs[i].report, stderr);
        process_line(&b, run, &run->procs[i]);
    }
    for (size_t i = 0; i < run->late.n; i++) {
        char *comm = comm_of(run->late.v[i]);
        char *line = str_printf("%s: process %s (%s) still running after %s s (--wait): its final snapshot was not "
                                "checked\n",
                                prog, run->late.v[i], comm, wait);
        sb_adds(&b, line);
        free(line);
        free(comm);
    }
    for (size_t i = 0; i < run->unjudged.n; i++) {
        char *line = str_printf("%s: process %s made CUDA calls, but %s: not checked, so not passed\n", prog,
                                run->unjudged.v[i], run->unjudged_why.v[i]);
        sb_adds(&b, line);
        free(line);
    }
    char *text = sb_take(&b);
    fputs(text, stderr);
    fflush(stderr);
    free(text);
}

/* One process's element: its verdict with its report, or why the report
 * failed. */
static void document_process(struct strbuf *b, const struct checked *c)
{
    if (c->rc == 0 || c->rc == 100) {
        size_t len = strlen(c->verdict);
        sb_addn(b, c->verdict, len > 0 && c->verdict[len - 1] == '}' ? len - 1 : len);
        sb_adds(b, ",\"report\":");
        sb_adds(b, c->report);
        sb_addc(b, '}');
        return;
    }
    char *first = str_printf("%.*s", (int)strcspn(c->report, "\n"), c->report);
    char *head = str_printf("{\"pid\":%s,\"snapshot\":", c->pid);
    sb_adds(b, head);
    json_quote(b, c->snap);
    char *mid = str_printf(",\"verdict\":\"report failed\",\"status\":%d,\"error\":", c->rc);
    sb_adds(b, mid);
    json_quote(b, first);
    sb_addc(b, '}');
    free(first);
    free(head);
    free(mid);
}

static void document_others(struct strbuf *b, const struct check_run *run, const char **sep)
{
    for (size_t i = 0; i < run->late.n; i++) {
        sb_adds(b, *sep);
        *sep = ",\n";
        char *head = str_printf("{\"pid\":%s,\"command\":", run->late.v[i]);
        sb_adds(b, head);
        char *comm = comm_of(run->late.v[i]);
        json_quote(b, comm);
        sb_adds(b, ",\"verdict\":\"still running\"}");
        free(comm);
        free(head);
    }
    for (size_t i = 0; i < run->unjudged.n; i++) {
        sb_adds(b, *sep);
        *sep = ",\n";
        char *head = str_printf("{\"pid\":%s,\"verdict\":\"no final snapshot\",\"why\":", run->unjudged.v[i]);
        sb_adds(b, head);
        json_quote(b, run->unjudged_why.v[i]);
        sb_addc(b, '}');
        free(head);
    }
}

static void document_job(struct strbuf *b, const struct check_run *run, const struct check_totals *t)
{
    struct strbuf ranks = {0};
    for (size_t i = 0; i < run->bad_ranks.n; i++) {
        if (i > 0)
            sb_addc(&ranks, ',');
        sb_adds(&ranks, run->bad_ranks.v[i]);
    }
    char *r = sb_take(&ranks);
    char *job = str_printf("],\n\"job\":{\"verdict\":\"%s\",\"processes\":%d,\"with_errors\":%d,\"still_running\":%zu,"
                           "\"no_final_snapshot\":%zu,\"ranks_with_errors\":[%s],\"double_frees\":%d,"
                           "\"command_status\":%d,\"exit_status\":%d,\"snapshots\":",
                           t->nbad == 0 ? "no errors" : "errors", t->nproc, t->nbad, run->late.n, run->unjudged.n, r,
                           run->double_frees, t->status, t->code);
    sb_adds(b, job);
    if (t->kept != NULL)
        json_quote(b, t->kept);
    else
        sb_adds(b, "null");
    sb_adds(b, "}}\n");
    free(job);
    free(r);
}

char *check_document(const struct check_run *run, const struct check_totals *t)
{
    struct strbuf b = {0};
    sb_adds(&b, "{\"format\":\"gpuleak-check\",\"schema_version\":1,\"processes\":[");
    const char *sep = "\n";
    for (size_t i = 0; i < run->n; i++) {
        sb_adds(&b, sep);
        sep = ",\n";
        document_process(&b, &run->procs[i]);
    }
    document_others(&b, run, &sep);
    document_job(&b, run, t);
    return sb_take(&b);
}
