/* Fuzz target: the whole reporter after the reader.  An input the reader
 * accepts is reported every way gpuleak-report can (text with colour, JSON,
 * folded leaks and peak, the HTML page, the memory_viz pickle, the pprof
 * profile (encoded, not written: pprof_encode, what --pprof writes), diff and
 * merge against a second copy of itself, the HTML page with growth) through
 * report_run, the command's own code path.  fuzz_snap covers the reader; this
 * covers what a snapshot that is valid but hostile (absurd sizes, addresses,
 * counts, sequence numbers, overlapping allocations, self-contradicting
 * history) does to the analyses.  Properties: no crash, no leak, no
 * undefined behaviour, every run returns 0 (out of memory aside, which the
 * fuzzer's memory limit turns into a crash anyway).  Nothing is read from
 * disk: the symbolizer treats every module as missing. */
#include <stdio.h>
#include <string.h>

#include "render/report.h"
#include "render/sections.h"
#include "cli/run.h"
#include "model/snap_read.h"
#include "render/pprof/pb.h"
#include "render/pprof/pprof.h"
#include "fuzz.h"

static FILE *sink(void)
{
    static FILE *f;
    if (f == NULL)
        f = fopen("/dev/null", "w");
    FUZZ_CHECK(f != NULL, "cannot open /dev/null");
    return f;
}

/* One way of running the reporter: the command line it stands for. */
struct way {
    const char *name;
    struct cli c;
    enum mode mode;
    size_t n; /* snapshots */
    const char *sections; /* --sections */
};

static const struct way ways[] = {
    {"text --color always", {.color = 1}, M_REPORT, 1, "all"},
    {"text --top 1 --min-bytes 4096 --group-depth 2 --all-frames --native",
     {.an = {.top = 1, .min_bytes = 4096}, .so = {.group_depth = 2, .all_frames = true, .native = true},
      .color = 0},
     M_REPORT, 1, "leaks,peak"},
    {"--json", {.json = true}, M_REPORT, 1, "all"},
    {"--folded leaks", {.folded = 1}, M_REPORT, 1, "all"},
    {"--folded peak", {.folded = 2}, M_REPORT, 1, "all"},
    {"--html", {.html = "fuzz.html"}, M_REPORT, 1, "all"},
    {"--torch-snapshot", {.torch = "fuzz.pickle"}, M_REPORT, 1, "all"},
    {"--pprof", {.pprof = "encoded, not written"}, M_REPORT, 1, "all"},
    {"diff", {.color = 0}, M_DIFF, 2, "all"},
    {"diff --json", {.json = true}, M_DIFF, 2, "all"},
    {"merge", {.color = 0}, M_MERGE, 2, "all"},
    {"merge --json", {.json = true}, M_MERGE, 2, "all"},
    {"--html, two snapshots", {.html = "fuzz.html"}, M_DIFF, 2, "all"},
};

static void run_way(const struct way *w, const uint8_t *data, size_t size)
{
    struct msnap m[2];
    memset(m, 0, sizeof m);
    struct suppressions sup = {0};
    supp_add_defaults(&sup);
    struct stackdb *db = sdb_new(&w->c.so);
    FUZZ_CHECK(db != NULL, "sdb_new");
    size_t attached = 0;
    for (size_t i = 0; i < w->n; i++) {
        char err[512];
        m[i].path = i ? "fuzz-input-2" : "fuzz-input";
        /* the caller checked that the reader accepts it */
        FUZZ_CHECK(snap_parse(data, size, &m[i].s, err, sizeof err) == 0, "reparse: %s", err);
        attached++;
        FUZZ_CHECK(report_attach(&m[i], db, &sup, false) == 0, "report_attach");
    }
    struct cli c = w->c;
    FUZZ_CHECK(sections_parse(w->sections, &c.sections) == 0, "--sections");
    bool found;
    if (w->c.pprof) { /* the bytes --pprof writes, without the file */
        struct pb gz;
        int prc = pprof_encode(&m[0].v, &gz);
        FUZZ_CHECK(prc == 0, "%s: pprof_encode returned %d", w->name, prc);
        pb_free(&gz);
    } else {
        int rc = report_run(&c, w->mode, m, w->n, db, &sup, sink(), &found);
        FUZZ_CHECK(rc == 0, "%s: report_run returned %d", w->name, rc);
    }
    for (size_t i = 0; i < attached; i++)
        report_detach(&m[i]);
    sdb_free(db);
    supp_free(&sup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct snapshot s;
    char err[512];
    if (snap_parse(data, size, &s, err, sizeof err) != 0)
        return 0; /* the reader's side: fuzz_snap */
    snap_free(&s);
    for (size_t i = 0; i < sizeof ways / sizeof *ways; i++)
        run_way(&ways[i], data, size);
    return 0;
}
