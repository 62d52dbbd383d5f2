/* gpuleak-report: reads snapshots written by libgpuleak.so.
 *
 *   gpuleak-report [options] SNAP          every analysis of one snapshot
 *   gpuleak-report [options] diff A B [C...]   what changed between them
 *   gpuleak-report [options] merge S1 S2 ...   the ranks of one job
 *
 * diff (and --html of several snapshots) takes the snapshots of one process
 * only: those of different processes are refused (status 2), as growth
 * across them would compare one rank or run with another; merge compares them.
 *
 * Exit status: 0 report written; 1 the report could not be written (output
 * file, out of memory); 2 bad usage or a snapshot that cannot be read or is
 * invalid (then exactly one line on stderr); --error-exitcode's N: the report
 * was written and found leaks. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/torch_steps.h"
#include "cli/run.h"
#include "model/program.h"
#include "model/snap_read.h"
#include "model/stackdb.h"
#include "model/suppress.h"
#include "render/report.h"
#include "render/sections.h"

#include "util/atomic_file.h"
#include "size_parse.h"
#include "util/sort.h"
#include "util/xalloc.h"
#include "version.h"

static void usage(FILE *f)
{
    fputs("usage: gpuleak-report [options] SNAPSHOT\n"
          "       gpuleak-report [options] diff A.snap B.snap [C.snap ...]\n"
          "       gpuleak-report [options] merge S1.snap S2.snap ...\n"
          "       gpuleak-report [options] --html OUT.html SNAP [SNAP ...]\n"
          "       gpuleak-report [options] --html OUT.html merge S1.snap S2.snap ...\n"
          "       gpuleak-report [options] --torch-snapshot OUT.pickle SNAP\n"
          "       gpuleak-report [options] --pprof OUT.pb.gz SNAP\n"
          "Report leaks, allocator caches, peaks, the timeline and fragmentation of\n"
          "a gpuleak snapshot; diff: how live memory per stack changed between\n"
          "snapshots; merge: several ranks or processes of one job.\n"
          "Documentation: docs/reporter.md.\n"
          "\n"
          "  --json                write JSON (schema: docs/json-output.md)\n"
          "  --output FILE         write the report to FILE instead of stdout\n"
          "  --top N               show only the N largest groups of each list\n"
          "  --min-bytes N         do not show groups smaller than N bytes (100M, 1.5G,\n"
          "                        '1 MiB': units K, M, G, T are powers of 1024)\n"
          "  --growth-steps N      PyTorch: a line whose live tensors grew at each of\n"
          "                        the last N optimizer steps (default 3, 1-64), by\n"
          "                        --min-bytes in all, is a leak by growth\n"
          "  --group-depth N       group stacks on their innermost N frames\n"
          "  --suppressions FILE   suppression rules (docs/reporter.md)\n"
          "  --categories FILE     category rules for the memory by phase, in the\n"
          "                        suppression syntax (docs/reporter.md)\n"
          "  --no-default-suppressions\n"
          "                        report allocator caches (PyTorch, CuPy, RMM,\n"
          "                        cuBLAS, cuDNN) as leaks\n"
          "  --list-default-suppressions\n"
          "                        print the built-in rules and exit\n"
          "  --check-suppressions FILE\n"
          "                        read FILE's rules and exit: 0, or 2 with its\n"
          "                        first error (gpuleak check runs it first)\n"
          "  --all-frames          keep CUDA-library and gpuleak frames\n"
          "  --full-stacks         show each frame in PyTorch's libraries, not one\n"
          "                        \"PyTorch internals, N frames\" line a run\n"
          "  --alloc-fn NAME       a function of the program that wraps allocation\n"
          "                        (a glob; repeatable): rows are named by the\n"
          "                        frame that called it, not by it\n"
          "  --native              show and group by the whole mixed stack of\n"
          "                        allocations made from Python (default: the\n"
          "                        Python frames only)\n"
          "  --sections LIST       comma-separated (default: all):\n", f);
    fprintf(f, "                        %s\n", sections_names());
    fputs("  --list-sections       print those names, one a line, and exit\n"
          "  --folded leaks|peak   folded stacks (flamegraph.pl, inferno, speedscope),\n"
          "                        weights in bytes\n"
          "  --html FILE           a self-contained HTML page (timeline, flame graphs,\n"
          "                        address map, tables; several snapshots of one\n"
          "                        process: growth; merge: the ranks side by side)\n"
          "  --torch-snapshot FILE a pickle for PyTorch's memory_viz\n"
          "  --pprof FILE          a gzipped pprof profile (go tool pprof, Pyroscope,\n"
          "                        Parca)\n"
          "  --color auto|always|never\n"
          "                        colour the text report (auto: on a terminal)\n"
          "  --across-runs         diff: compare snapshots of different runs of one\n"
          "                        program, stack by stack (by function, file and\n"
          "                        line: addresses differ between runs)\n"
          "  --error-exitcode N    exit with N (1-255) when the report finds leaks\n"
          "                        (PyTorch: leaks by growth too, --growth-steps)\n"
          "                        or frees CUDA refused (diff: a stack that grew,\n"
          "                        new refused frees; merge: a snapshot with leaks\n"
          "                        or refused frees), as valgrind does: for CI\n"
          "  --verdict FILE        also write what --error-exitcode counts, as one line\n"
          "                        of JSON (one snapshot; what `gpuleak check` reads)\n"
          "  --help, --version\n"
          "\n"
          "Exit status: 0 ok, 1 the report could not be written,\n"
          "2 bad usage or an unreadable/invalid snapshot, N (--error-exitcode)\n"
          "the report was written and found leaks.\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fputs("gpuleak-report: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (try --help)\n", stderr);
    return 2;
}

/* --list-sections: the names --sections takes, one a line, in output
 * order, from the registry as --help's list: what the bash completion
 * offers and the build writes into the man page, so neither is a copy. */
static int list_sections(void)
{
    for (size_t i = 0; i < sections_count(); i++)
        if (section_row(i)->name)
            puts(section_row(i)->name);
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "gpuleak-report: --list-sections: cannot write: %s\n", strerror(errno));
    return 1;
}

static int bad_sections(const char *arg)
{
    fprintf(stderr, "gpuleak-report: --sections takes %s, not '%s' (try --help)\n", sections_names(),
            arg);
    return 2;
}

/* Whole-string unsigned decimal; no sign, no junk, no overflow. */
static int parse_u64(const char *s, unsigned long long *v)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    *v = strtoull(s, &end, 10);
    return errno || *end ? -1 : 0;
}

static int load(struct msnap *m, const char *path, struct stackdb *db,
                const struct suppressions *sup)
{
    char err[512];
    memset(m, 0, sizeof *m);
    m->path = path;
    if (snap_load_file(path, &m->s, err, sizeof err) != 0) {
        fprintf(stderr, "gpuleak-report: %s: %s\n", path, err);
        return 2;
    }
    return report_attach(m, db, sup, true);
}

/* Snapshots of one process are compared in the order they were taken: a
 * shell glob sorts gpuleak.PID.10.snap before gpuleak.PID.2.snap, which
 * would make growth look like shrinkage.  Stable, so a snapshot given twice
 * stays twice.  Returns whether the order changed.  The structs move, so
 * what points at a snapshot is pointed at it again. */
static bool order_by_index(struct msnap *m, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (!msnap_same_process(&m[0].s.proc, &m[i].s.proc))
            return false;
    bool moved = false;
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && m[k - 1].s.proc.index > m[k].s.proc.index; k--) {
            struct msnap t = m[k - 1];
            m[k - 1] = m[k];
            m[k] = t;
            moved = true;
        }
    for (size_t i = 0; moved && i < n; i++) {
        m[i].v.s = &m[i].s;
        sym_rebind(m[i].sy, &m[i].s);
    }
    return moved;
}

/* Whether snapshot b of a process was taken after a of the same process:
 * its exit (final) snapshot is the latest, then the higher index. */
static bool taken_later(const struct snap_process *a, const struct snap_process *b)
{
    bool fa = a->flags & GL_SNAP_F_FINAL, fb = b->flags & GL_SNAP_F_FINAL;
    return fa != fb ? fb : b->index > a->index;
}

/* merge's order: by rank, processes without one after those with one,
 * then host, pid, start time; -1, 0 or 1. */
static int cmp_rank_order(const struct snap_process *a, const struct snap_process *b)
{
    bool na = a->flags & GL_SNAP_F_NO_RANK, nb = b->flags & GL_SNAP_F_NO_RANK;
    if (na != nb)
        return na ? 1 : -1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    size_t len = a->host.len < b->host.len ? a->host.len : b->host.len;
    int c = len ? memcmp(a->host.s, b->host.s, len) : 0;
    if (c != 0 || a->host.len != b->host.len)
        return c != 0 ? (c < 0 ? -1 : 1) : (a->host.len < b->host.len ? -1 : 1);
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->start_unix_ns != b->start_unix_ns)
        return a->start_unix_ns < b->start_unix_ns ? -1 : 1;
    return 0;
}

/* merge's sort of snapshot indexes: rank order (cmp_rank_order), one
 * process's snapshots together, its latest first, then as given. */
static int cmp_merge_pick(const void *pa, const void *pb, void *ctx)
{
    const struct msnap *m = ctx;
    size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    const struct snap_process *a = &m[ia].s.proc, *b = &m[ib].s.proc;
    int c = cmp_rank_order(a, b);
    if (c != 0)
        return c;
    if (msnap_same_process(a, b) && (taken_later(a, b) || taken_later(b, a)))
        return taken_later(a, b) ? 1 : -1;
    return ia < ib ? -1 : ia > ib;
}

/* merge compares processes: one snapshot of each, its latest (summing a
 * rank's snapshots would count its memory several times; the same file
 * given twice is one), in rank order whatever the order given (a glob or a
 * host list gives 3,0,1,2).  The kept snapshots come first, sorted; the
 * left-out ones after them, still loaded (to be unloaded).  Returns how
 * many are kept; a note on stderr names the left-out ones. */
static size_t keep_latest_in_rank_order(struct msnap *m, size_t n)
{
    size_t *idx = xcalloc(n ? n : 1, sizeof *idx), *order = xcalloc(n ? n : 1, sizeof *order);
    struct msnap *moved = xcalloc(n ? n : 1, sizeof *moved);
    if (!idx || !order || !moved) {
        free(idx);
        free(order);
        free(moved);
        return n; /* out of memory: merged as given */
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_array_r(idx, n, sizeof *idx, cmp_merge_pick, m);
    /* a process's latest is the first of its run in idx */
    size_t kept = 0, nout = n;
    for (size_t i = 0; i < n; i++) {
        bool again = i > 0 && msnap_same_process(&m[idx[i - 1]].s.proc, &m[idx[i]].s.proc);
        if (!again)
            order[kept++] = idx[i];
        else
            order[--nout] = idx[i];
    }
    for (size_t i = n; i-- > kept;) /* left out: as sorted, named once */
        fprintf(stderr, i == n - 1 ? "gpuleak-report: note: merge takes one snapshot per process, its "
                                     "latest; left out: %s%s" : "%s%s",
                m[order[i]].path, i == kept ? "\n" : ", ");
    for (size_t i = 0; i < n; i++)
        moved[i] = m[order[i]];
    memcpy(m, moved, n * sizeof *m);
    for (size_t i = 0; i < n; i++) {
        m[i].v.s = &m[i].s;
        sym_rebind(m[i].sy, &m[i].s);
    }
    free(idx);
    free(order);
    free(moved);
    return kept;
}

static int finish_output(FILE *out, const char *output)
{
    int rc = 0;
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "gpuleak-report: %s: write error: %s\n",
                output ? output : "stdout", strerror(errno));
        rc = 1;
    }
    if (out != stdout && fclose(out) != 0 && rc == 0) {
        fprintf(stderr, "gpuleak-report: %s: write error: %s\n", output, strerror(errno));
        rc = 1;
    }
    return rc;
}

/* --check-suppressions FILE: the rules read as --suppressions would, so
 * that a bad file is found before a long run, not in its report.  0 with
 * the count on stdout, or 2 with the file's first error. */
static int check_suppressions_file(const char *path)
{
    struct suppressions sup = {0};
    char err[512];
    int rc = 0;
    if (supp_load_file(&sup, path, err, sizeof err) != 0) {
        fprintf(stderr, "gpuleak-report: %s: %s\n", path, err);
        rc = 2;
    } else {
        printf("%s: %zu rule%s\n", path, sup.n, sup.n == 1 ? "" : "s");
    }
    supp_free(&sup);
    return rc;
}

/* What the command line says: the options, the mode and the snapshot files. */
struct args {
    struct cli c;
    const char *cat_file;
    enum mode mode;
    char **files;
    size_t nfiles;
    const char **alloc_fns; /* --alloc-fn, in order (c.so points at them) */
    size_t nalloc_fns;
    bool across_runs; /* --across-runs: diff compares different processes */
};

/* parse_option's "go on": every other value is main's exit status. */
#define GO_ON (-1)

static int parse_option(int o, struct args *a, char **argv)
{
    struct cli *c = &a->c;
    unsigned long long v;
    uint64_t size;
    switch (o) {
    case 'j': c->json = true; break;
    case 'o': c->output = optarg; break;
    case 't':
        if (parse_u64(optarg, &v) || v == 0 || v > SIZE_MAX)
            return bad_usage("--top needs a positive number, not '%s'", optarg);
        c->an.top = (size_t)v;
        break;
    case 'm':
        if (gl_parse_size(optarg, &size))
            return bad_usage("--min-bytes needs a size in bytes (" GL_SIZE_EXAMPLES "), not '%s'", optarg);
        c->an.min_bytes = size;
        break;
    case 'G':
        if (parse_u64(optarg, &v) || v == 0 || v > GROWTH_STEPS_MAX)
            return bad_usage("--growth-steps needs a number of steps (1-64), not '%s'", optarg);
        c->an.growth_steps = (unsigned)v;
        break;
    case 'g':
        if (parse_u64(optarg, &v) || v == 0 || v > GL_SNAP_MAX_DEPTH)
            return bad_usage("--group-depth needs a number of frames (1-1024), not '%s'", optarg);
        c->so.group_depth = (unsigned)v;
        break;
    case 's':
        if (c->supp_file)
            return bad_usage("%s", "--suppressions given twice");
        c->supp_file = optarg;
        break;
    case 'C':
        if (a->cat_file)
            return bad_usage("%s", "--categories given twice");
        a->cat_file = optarg;
        break;
    case 'N': c->no_defaults = true; break;
    case 'L': fputs(supp_default_text(), stdout); return 0;
    case 'l': return list_sections();
    case 'F':
        if (optarg[0] == '\0')
            return bad_usage("%s", "--alloc-fn needs a function name (a glob: 'my_alloc', 'Arena::*')");
        a->alloc_fns = xrealloc(a->alloc_fns, (a->nalloc_fns + 1) * sizeof *a->alloc_fns);
        a->alloc_fns[a->nalloc_fns++] = optarg;
        c->so.alloc_fns = a->alloc_fns;
        c->so.nalloc_fns = a->nalloc_fns;
        break;
    case 'K': return check_suppressions_file(optarg);
    case 'R': a->across_runs = true; break;
    case 'a': c->so.all_frames = true; break;
    case 'n': c->so.native = true; break;
    case 'X': c->so.full_stacks = true; break;
    case 'S':
        if (sections_parse(optarg, &c->sections))
            return bad_sections(optarg);
        break;
    case 'f':
        if (strcmp(optarg, "leaks") == 0)
            c->folded = 1;
        else if (strcmp(optarg, "peak") == 0)
            c->folded = 2;
        else
            return bad_usage("--folded takes 'leaks' or 'peak', not '%s'", optarg);
        break;
    case 'E':
        if (parse_u64(optarg, &v) || v == 0 || v > 255)
            return bad_usage("--error-exitcode needs a status from 1 to 255, not '%s'", optarg);
        c->error_exitcode = (int)v;
        break;
    case 'H': c->html = optarg; break;
    case 'T': c->torch = optarg; break;
    case 'P': c->pprof = optarg; break;
    case 'v': c->verdict = optarg; break;
    case 'c':
        if (strcmp(optarg, "never") == 0)
            c->color = 0;
        else if (strcmp(optarg, "always") == 0)
            c->color = 1;
        else if (strcmp(optarg, "auto") == 0)
            c->color = 2;
        else
            return bad_usage("--color takes auto, always or never, not '%s'", optarg);
        break;
    case 'h': usage(stdout); return 0;
    case 'V': printf("gpuleak-report " GPULEAK_VERSION " (snapshot format v%u)\n", GL_SNAP_VERSION); return 0;
    case ':': return bad_usage("option '%s' needs an argument", argv[optind - 1]);
    default: return bad_usage("unknown option '%s'", argv[optind - 1]);
    }
    return GO_ON;
}

/* An operand: the subcommand when it comes first, else a snapshot file. */
static void take_operand(struct args *a, char *arg)
{
    if (a->nfiles == 0 && a->mode == M_REPORT && strcmp(arg, "diff") == 0)
        a->mode = M_DIFF;
    else if (a->nfiles == 0 && a->mode == M_REPORT && strcmp(arg, "merge") == 0)
        a->mode = M_MERGE;
    else
        a->files[a->nfiles++] = arg;
}

/* GO_ON, or the exit status (--help, --version, a usage error). */
static int parse_command_line(int argc, char **argv, struct args *a)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"output", required_argument, NULL, 'o'},
        {"top", required_argument, NULL, 't'},
        {"min-bytes", required_argument, NULL, 'm'},
        {"group-depth", required_argument, NULL, 'g'},
        {"growth-steps", required_argument, NULL, 'G'},
        {"suppressions", required_argument, NULL, 's'},
        {"categories", required_argument, NULL, 'C'},
        {"no-default-suppressions", no_argument, NULL, 'N'},
        {"list-default-suppressions", no_argument, NULL, 'L'},
        {"check-suppressions", required_argument, NULL, 'K'},
        {"all-frames", no_argument, NULL, 'a'},
        {"alloc-fn", required_argument, NULL, 'F'},
        {"across-runs", no_argument, NULL, 'R'},
        {"native", no_argument, NULL, 'n'},
        {"full-stacks", no_argument, NULL, 'X'},
        {"sections", required_argument, NULL, 'S'},
        {"list-sections", no_argument, NULL, 'l'},
        {"folded", required_argument, NULL, 'f'},
        {"color", required_argument, NULL, 'c'},
        {"html", required_argument, NULL, 'H'},
        {"torch-snapshot", required_argument, NULL, 'T'},
        {"pprof", required_argument, NULL, 'P'},
        {"colour", required_argument, NULL, 'c'},
        {"error-exitcode", required_argument, NULL, 'E'},
        {"verdict", required_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0; /* we word the errors ourselves, on one line */
    /* options may come before and after the subcommand; with "+" getopt
     * stops at each operand, which is collected before going on */
    for (;;) {
        int o = getopt_long(argc, argv, "+:", longopts, NULL);
        if (o == -1) {
            if (optind >= argc)
                return GO_ON;
            take_operand(a, argv[optind++]);
            continue;
        }
        int rc = parse_option(o, a, argv);
        if (rc != GO_ON)
            return rc;
    }
}

/* --html and --torch-snapshot: which snapshots and options go with them.
 * GO_ON, or 2 (a usage error). */
static int check_page_outputs(struct args *a)
{
    struct cli *c = &a->c;
    if (c->html && c->torch)
        return bad_usage("%s", "--html and --torch-snapshot: one at a time");
    if (c->json || c->folded || c->output)
        return bad_usage("%s", "--html and --torch-snapshot name their output file: "
                               "not with --json, --folded or --output");
    if (c->torch && a->mode != M_REPORT)
        return bad_usage("%s", "--torch-snapshot takes one snapshot, not diff or merge");
    if (c->torch && a->nfiles != 1)
        return bad_usage("%s", a->nfiles ? "--torch-snapshot takes one snapshot"
                                         : "no snapshot file given");
    if (a->nfiles == 0 || (a->mode == M_DIFF && a->nfiles < 2))
        return bad_usage("%s", "no snapshot file given");
    c->output = c->html ? c->html : c->torch;
    if (a->nfiles > 1 && a->mode == M_REPORT)
        a->mode = M_DIFF; /* handled below: the page with growth */
    return GO_ON;
}

/* The number of snapshots each mode takes, and what --folded goes with.
 * GO_ON, or 2 (a usage error). */
static int check_mode(struct args *a)
{
    struct cli *c = &a->c;
    if (c->pprof && (c->html || c->torch || c->json || c->folded || c->output || a->mode != M_REPORT || a->nfiles != 1))
        return bad_usage("%s", "--pprof writes one snapshot's profile to its file: one snapshot, "
                               "no diff or merge, no other output");
    if (a->c.html || a->c.torch) {
        int rc = check_page_outputs(a);
        if (rc != GO_ON)
            return rc;
    }
    if (a->mode == M_REPORT && a->nfiles != 1)
        return bad_usage("%s", a->nfiles ? "expected one snapshot file, got more (diff and merge "
                                           "take several)"
                                         : "no snapshot file given");
    if (a->mode == M_DIFF && a->nfiles < 2)
        return bad_usage("%s", "diff needs at least two snapshot files");
    if (a->mode == M_MERGE && a->nfiles < 1)
        return bad_usage("%s", "merge needs snapshot files");
    if (a->c.verdict && (a->mode != M_REPORT || a->c.html || a->c.torch))
        return bad_usage("%s", "--verdict takes one snapshot, not diff, merge, --html or --torch-snapshot");
    if (a->c.folded && (a->c.json || a->mode != M_REPORT))
        return bad_usage("%s", "--folded writes its own format: not with --json, diff or merge");
    if (a->across_runs && (a->mode != M_DIFF || a->c.html))
        return bad_usage("%s", "--across-runs goes with diff (text or --json): two runs of one program "
                               "compared stack by stack");
    return GO_ON;
}

/* The suppression rules (the file's, then the built-in ones) and the
 * category rules.  0, or 2 with the file's error printed and nothing held. */
static int load_rules(const struct args *a, struct suppressions *sup, struct categories *cat)
{
    char err[512];
    memset(sup, 0, sizeof *sup);
    if (a->c.supp_file && supp_load_file(sup, a->c.supp_file, err, sizeof err) != 0) {
        fprintf(stderr, "gpuleak-report: %s: %s\n", a->c.supp_file, err);
        supp_free(sup);
        return 2;
    }
    if (!a->c.no_defaults)
        supp_add_defaults(sup);
    if (cat_init(cat, a->cat_file, err, sizeof err) != 0) {
        fprintf(stderr, "gpuleak-report: %s\n", err);
        supp_free(sup);
        return 2;
    }
    return 0;
}

/* A host name from a snapshot on the one-line message: printable ASCII,
 * at most 64 characters. */
static void put_host(const struct snap_process *p)
{
    for (size_t i = 0; i < p->host.len && i < 64; i++) {
        unsigned char c = (unsigned char)p->host.s[i];
        fputc(c >= 0x20 && c < 0x7f ? c : '?', stderr);
    }
}

/* diff and --html of several snapshots draw a series: growth over time in
 * one process.  Snapshots of different processes (ranks, runs) share no
 * clock and no allocations, so a "growth" across them would compare one
 * rank with another: refused, with one line that names the processes and
 * says what compares them.  0; 2, the line printed; 1, out of memory. */
static int refuse_other_processes(const struct args *a, const struct msnap *m)
{
    size_t *first = xcalloc(a->nfiles, sizeof *first);
    if (!first) {
        fputs("gpuleak-report: out of memory\n", stderr);
        return 1;
    }
    size_t np = msnap_processes(m, a->nfiles, first);
    if (np > 1) {
        fprintf(stderr, "gpuleak-report: %s: the snapshots come from %zu different processes (",
                a->c.html ? "--html" : "diff", np);
        for (size_t i = 0; i < np && i < 4; i++) {
            const struct snap_process *p = &m[first[i]].s.proc;
            if (p->flags & GL_SNAP_F_NO_RANK) /* its rank field is a default 0 */
                fprintf(stderr, "%sno rank, pid %u on ", i ? ", " : "", p->pid);
            else
                fprintf(stderr, "%srank %u pid %u on ", i ? ", " : "", p->rank, p->pid);
            put_host(p);
        }
        if (np > 4)
            fprintf(stderr, " and %zu more", np - 4);
        fprintf(stderr, "); growth is measured between snapshots of one process: compare processes "
                        "with '%smerge'%s\n", a->c.html ? "--html OUT.html " : "",
                a->c.html ? "" : ", or two runs of one program stack by stack with 'diff --across-runs'");
    }
    free(first);
    return np > 1 ? 2 : 0;
}

/* s on the one-line message: printable ASCII, at most 200 characters. */
static void put_printable(const char *s)
{
    for (size_t i = 0; s[i] && i < 200; i++) {
        unsigned char c = (unsigned char)s[i];
        fputc(c >= 0x20 && c < 0x7f ? c : '?', stderr);
    }
}

/* diff --across-runs compares two runs of one program.  Runs of two
 * programs share no stacks but those of code they share (a library's,
 * Python's), so such a comparison says little, and is told: one line that
 * names the first snapshot of another program and what each ran; the
 * report is still made (JSON "same_program": false). */
static void warn_other_program(const struct msnap *m, size_t n)
{
    size_t k = msnap_other_program(m, n);
    if (k == 0)
        return;
    char first[256], other[256];
    snap_program(&m[0].s.proc, first, sizeof first);
    snap_program(&m[k].s.proc, other, sizeof other);
    fputs("gpuleak-report: warning: diff --across-runs: the runs are of different programs (", stderr);
    put_printable(m[0].path);
    fputs(" ran ", stderr);
    put_printable(first);
    fputs(", ", stderr);
    put_printable(m[k].path);
    fputs(" ran ", stderr);
    put_printable(other);
    fputs("); their stacks match only where the programs share code\n", stderr);
}

/* Reads every snapshot file into m; *loaded: how many to unload, the one
 * that failed included.  0, or the status of the first that failed. */
static int load_snapshots(struct args *a, struct msnap *m, struct stackdb *db,
                          const struct suppressions *sup, size_t *loaded)
{
    int rc = 0;
    *loaded = 0;
    while (rc == 0 && *loaded < a->nfiles) {
        rc = load(&m[*loaded], a->files[*loaded], db, sup);
        (*loaded)++; /* also on failure: unload what was partly set up */
    }
    if (rc == 0 && a->mode == M_DIFF && !a->across_runs)
        rc = refuse_other_processes(a, m);
    if (rc == 0 && a->mode == M_DIFF && a->across_runs)
        warn_other_program(m, a->nfiles);
    if (rc == 0 && a->mode == M_DIFF && order_by_index(m, a->nfiles))
        fputs("gpuleak-report: note: the snapshots, all of one process, are compared in the order they were "
              "taken\n", stderr);
    if (rc == 0 && a->mode == M_MERGE)
        a->nfiles = keep_latest_in_rank_order(m, a->nfiles);
    return rc;
}

/* --output's bytes, put in place whole (util/atomic_file.h: mode 0600, the
 * old file kept on failure; a device, FIFO or /dev/stdout written in place;
 * a symlink refused).  Takes mem. */
static int place_output(const char *path, char *mem, size_t len)
{
    char err[256];
    int rc = afile_write(path, mem, len, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "gpuleak-report: %s: %s\n", path, err);
    free(mem);
    return rc != 0;
}

/* The report on stdout or --output, then --error-exitcode's verdict. */
static int write_report(const struct args *a, struct msnap *m, struct stackdb *db,
                        const struct suppressions *sup)
{
    const struct cli *c = &a->c;
    FILE *out = stdout;
    char *mem = NULL;
    size_t memlen = 0;
    if (c->output && !(out = open_memstream(&mem, &memlen))) {
        fprintf(stderr, "gpuleak-report: %s: cannot write: %s\n", c->output, strerror(errno));
        return 1;
    }
    static char obuf[1 << 16];
    if (out == stdout)
        setvbuf(out, obuf, _IOFBF, sizeof obuf);
    bool found = false;
    int rc = report_run(c, a->mode, m, a->nfiles, db, sup, out, &found);
    int wrc = finish_output(out, c->output);
    if (c->output && wrc == 0 && rc == 0)
        wrc = place_output(c->output, mem, memlen);
    else if (c->output)
        free(mem); /* nothing placed: the old file stays as it was */
    if (rc == 0)
        rc = wrc;
    if (rc == 0 && found && c->error_exitcode)
        rc = c->error_exitcode;
    return rc;
}

/* Reads the snapshots and writes the report; the exit status. */
static int run(struct args *a)
{
    struct suppressions sup;
    struct categories cat;
    int rc = load_rules(a, &sup, &cat);
    if (rc)
        return rc;
    a->c.cat = &cat;
    struct stackdb *db = sdb_new(&a->c.so);
    struct msnap *m = xcalloc(a->nfiles, sizeof *m);
    size_t loaded = 0;
    if (!m) {
        fputs("gpuleak-report: out of memory\n", stderr);
        rc = 1;
    }
    if (rc == 0)
        rc = load_snapshots(a, m, db, &sup, &loaded);
    if (rc == 0)
        rc = write_report(a, m, db, &sup);
    for (size_t i = 0; i < loaded; i++)
        report_detach(&m[i]);
    free(m);
    sdb_free(db);
    cat_free(&cat);
    supp_free(&sup);
    return rc;
}

int main(int argc, char **argv)
{
    /* static: its files still reachable on the early usage-error returns */
    static struct args a;
    a = (struct args){.c = {.color = 2, .sections = sections_all()}, .mode = M_REPORT};
    a.files = xcalloc((size_t)argc + 1, sizeof *a.files);
    if (!a.files) {
        fputs("gpuleak-report: out of memory\n", stderr);
        return 1;
    }
    int rc = parse_command_line(argc, argv, &a);
    if (rc == GO_ON)
        rc = check_mode(&a);
    if (rc != GO_ON)
        return rc;
    rc = run(&a);
    free(a.files);
    free(a.alloc_fns);
    return rc;
}
