/* Unit test of gpuleak check's bookkeeping (tools/launcher/check_procs.c),
 * every expectation as the bash launcher's functions gave it:
 *   1. a process's last snapshot: per pid the highest N of this run's
 *      files (a name there before the run, another run's tag, a link are
 *      not read), by pid (final_snapshots);
 *   2. the snapshots of images an exec replaced, from their marks, only
 *      those in this run's directory with its prefix (exec_snapshots);
 *   3. the processes with no final snapshot and why, those still running
 *      left out (unjudged_processes, pending_state);
 *   4. "[/.]PID.N.snap" at the end (is_snapshot_of), pid then N order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attach_status.h"
#include "check_procs.h"
#include "launcher.h"
#include "launcher_check.h"

static char *joined(const struct strv *l)
{
    struct strbuf b = {0};
    for (size_t i = 0; i < l->n; i++) {
        sb_adds(&b, l->v[i]);
        sb_addc(&b, '|');
    }
    return sb_take(&b);
}

static void put(const char *dir, const char *name, const char *text)
{
    char *path = str_printf("%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
    free(path);
}

static void test_final_snapshots(const char *dir)
{
    static const char *const names[] = {"gpuleak.10.0.snap", "gpuleak.10.2.snap", "gpuleak.10.10.snap",
                                        "gpuleak.9.1.snap",  "gpuleak.7.0.snap",  "gpuleak.run-AbC123.5.0.snap",
                                        "gpuleak.x.1.snap",  "other.3.0.snap"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        put(dir, names[i], "");
    char *link = str_printf("%s/gpuleak.4.0.snap", dir);
    CHECK(symlink("gpuleak.9.1.snap", link) == 0);
    free(link);
    struct strv before = {0};
    sv_push(&before, "gpuleak.7.0.snap");
    struct strv got = final_snapshots(dir, &before, "gpuleak.");
    char *want = str_printf("%s/gpuleak.9.1.snap|%s/gpuleak.10.10.snap|", dir, dir);
    EXPECT_STR("final", joined(&got), want);
    free(want);
    sv_free(&got);
    got = final_snapshots(dir, &before, "gpuleak.run-AbC123.");
    want = str_printf("%s/gpuleak.run-AbC123.5.0.snap|", dir);
    EXPECT_STR("tagged", joined(&got), want);
    free(want);
    sv_free(&got);
    sv_free(&before);
}

static void test_marks(const char *dir, const char *pending)
{
    char *w = str_printf("written %s/gpuleak.9.0.snap\n", dir);
    put(dir, "gpuleak.9.0.snap", "");
    put(pending, "9.exec.1", w);
    put(pending, "8.exec.1", "written /elsewhere/gpuleak.8.0.snap\n");
    put(pending, "9", "written x\n");
    put(pending, "11", "not written\n");
    put(pending, "12", "");
    put(pending, "13", "");
    put(pending, "x12", "");
    free(w);
    struct strv got = exec_snapshots(pending, dir, "rel", "gpuleak.");
    EXPECT_STR("exec", joined(&got), "rel/gpuleak.9.0.snap|");
    sv_free(&got);
    struct strv late = {0}, snaps = {0}, pids = {0}, why = {0};
    sv_push(&late, "13");
    sv_push(&snaps, "d/gpuleak.12.3.snap");
    unjudged_processes(pending, &late, &snaps, &pids, &why);
    EXPECT_STR("unjudged", joined(&pids), "11|12|");
    EXPECT_STR("why", joined(&why),
               "its final snapshot could not be written (its gpuleak: warning says why)|it ended without a final "
               "snapshot; its last snapshot, d/gpuleak.12.3.snap, is not final|");
    sv_free(&late);
    sv_free(&snaps);
    sv_free(&pids);
    sv_free(&why);
}

static void test_snapshot_of(void)
{
    CHECK(is_snapshot_of("d/gpuleak.12.3.snap", "12"));
    CHECK(is_snapshot_of("d/gpuleak.run-T.12.3.snap", "12"));
    CHECK(!is_snapshot_of("d/gpuleak.112.3.snap", "12"));
    CHECK(!is_snapshot_of("d/gpuleak.12.3.snap", "3"));
    struct strv l = {0};
    sv_push(&l, "d/gpuleak.20.1.snap");
    sv_push(&l, "d/gpuleak.3.10.snap");
    sv_push(&l, "d/gpuleak.3.9.snap");
    sort_snapshots(&l);
    EXPECT_STR("order", joined(&l), "d/gpuleak.3.9.snap|d/gpuleak.3.10.snap|d/gpuleak.20.1.snap|");
    sv_free(&l);
}

int main(void)
{
    launcher_init("gpuleak");
    char dir[] = "/tmp/launcher_check_procs.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *pending = str_printf("%s/pending", dir);
    CHECK(mkdir(pending, 0700) == 0);
    test_final_snapshots(dir);
    test_marks(dir, pending);
    test_snapshot_of();
    remove_tree(dir);
    free(pending);
    return checks_end("launcher_check_procs");
}
