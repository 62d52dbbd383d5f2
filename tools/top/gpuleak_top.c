/* gpuleak-top: the live view of a running job (`gpuleak top PID`).
 *
 * Reads the live file libgpuleak rewrites once a second (interpose/control/watch.c,
 * docs/live.md), symbolizes its stacks with the reporter's symbolizer, and
 * redraws: live and peak per device, the stacks whose live bytes grow
 * fastest while we watch, and the last out-of-memory errors.  --once prints
 * one plain frame and exits (scripts, tests).  The file is read with bounds
 * on everything: a hostile or truncated one gives one line and status 2. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "live_read.h"
#include "model/fold.h"
#include "model/symbolize.h"
#include "model/user_frame.h"
#include "util/fmt.h"
#include "version.h"

/* ---- growth between reads ---------------------------------------------- */

/* The live bytes of each (stack, device) over the last GROWTH_WINDOW reads
 * and at the first one: growth is measured while we watch. */
struct trend {
    uint32_t stack;
    int device;
    uint64_t first;
    uint64_t ring[GROWTH_WINDOW];
    unsigned seen; /* reads that had it */
    unsigned last_read;
};
static struct trend *trends;
static size_t ntrends, trends_cap;
static unsigned reads;

static struct trend *trend_of(uint32_t stack, int device)
{
    for (size_t i = 0; i < ntrends; i++)
        if (trends[i].stack == stack && trends[i].device == device)
            return &trends[i];
    if (ntrends == trends_cap) {
        size_t cap = trends_cap ? trends_cap * 2 : 64;
        if (cap > 1u << 20)
            return NULL;
        struct trend *more = realloc(trends, cap * sizeof *more);
        if (more == NULL)
            return NULL;
        trends = more;
        trends_cap = cap;
    }
    struct trend *t = &trends[ntrends++];
    memset(t, 0, sizeof *t);
    t->stack = stack;
    t->device = device;
    return t;
}

static void note_read(const struct live *l)
{
    reads++;
    for (size_t i = 0; i < l->nsites; i++) {
        struct trend *t = trend_of(l->sites[i].stack, l->sites[i].device);
        if (t == NULL)
            continue;
        if (t->seen == 0)
            t->first = reads == 1 ? l->sites[i].bytes : 0; /* appeared while watching: all of it grew */
        t->ring[reads % GROWTH_WINDOW] = l->sites[i].bytes;
        t->seen++;
        t->last_read = reads;
    }
    /* sites gone since: freed, live 0 */
    for (size_t i = 0; i < ntrends; i++)
        if (trends[i].last_read != reads) {
            trends[i].ring[reads % GROWTH_WINDOW] = 0;
            trends[i].last_read = reads;
        }
}

/* Growth over the window: now minus the oldest read still in the ring. */
static int64_t window_growth(const struct trend *t)
{
    unsigned span = reads < GROWTH_WINDOW ? reads - 1 : GROWTH_WINDOW - 1;
    uint64_t now = t->ring[reads % GROWTH_WINDOW], then = t->ring[(reads - span) % GROWTH_WINDOW];
    if (t->seen <= span && reads > 1 && t->first == 0)
        then = 0;
    return (int64_t)(now - then);
}

/* ---- drawing ------------------------------------------------------------- */

/* The labelling options: --alloc-fn's globs, the program's own allocation
 * wrappers, skipped as the reporter skips them (report/model/user_frame.h). */
static struct sdb_opts label_opts;

/* Sizes as the reporter writes them (util/fmt.c), bytes below 1 KiB. */
static void human(char *buf, size_t size, uint64_t n)
{
    if (n < 1024)
        snprintf(buf, size, "%" PRIu64 " B", n);
    else
        fmt_human(buf, size, n);
}

static void signed_human(char *buf, size_t size, int64_t n)
{
    if (size < 2)
        return;
    buf[0] = n < 0 ? '-' : '+';
    human(buf + 1, size - 1, n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n);
}

static const struct live_stack *find_stack(const struct live *l, uint32_t id)
{
    for (size_t i = 0; i < l->nstacks; i++)
        if (l->stacks[i].id == id)
            return &l->stacks[i];
    return NULL;
}

static bool has_python(const struct live_stack *st)
{
    for (uint32_t k = 0; st != NULL && k < st->depth; k++)
        if (gl_pc_is_pyframe(st->pcs[k]))
            return true;
    return false;
}

/* "function file:line <- caller file:line" into buf, at most two frames,
 * from the stack's label frame on: the first outside known allocator
 * wrappers (CUDA's, PyTorch's own code: the reporter's rule,
 * report/model/user_frame.h), start frames left out.  A stack with Python
 * frames is shown by them alone, as the reporter shows it: that is the
 * user's code.  Functions named by --alloc-fn count as wrappers, as in
 * the reporter.  skip_wrappers false: a stack of wrappers only, shown from
 * its innermost frame.  The number of frames written. */
static int site_frames(struct symbolizer *sy, const struct live_stack *st, bool skip_wrappers, char *buf,
                       size_t size)
{
    bool python_only = has_python(st);
    bool at_label = !skip_wrappers;
    size_t used = 0;
    int shown = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; st != NULL && k < st->depth && shown < 2; k++) {
        if (python_only && !gl_pc_is_pyframe(st->pcs[k]))
            continue;
        size_t nf;
        const struct sym_frame *f = sym_pc(sy, st->pcs[k], &nf);
        for (size_t j = 0; j < nf && shown < 2; j++) {
            if (fold_is_cuda_frame(&f[j]) || fold_is_start_frame(&f[j]))
                continue;
            if (!at_label && frame_is_alloc_wrapper(&label_opts, &f[j]))
                continue;
            at_label = true;
            const char *file = f[j].file ? strrchr(f[j].file, '/') : NULL;
            file = file ? file + 1 : f[j].file;
            int w;
            if (f[j].function && file)
                w = snprintf(buf + used, size - used, "%s%s %s:%u", shown ? " <- " : "", f[j].function, file,
                             f[j].line);
            else if (f[j].function)
                w = snprintf(buf + used, size - used, "%s%s", shown ? " <- " : "", f[j].function);
            else
                w = snprintf(buf + used, size - used, "%s%s+0x%" PRIx64, shown ? " <- " : "",
                             f[j].module ? f[j].module : "??", f[j].offset);
            if (w < 0 || (size_t)w >= size - used)
                return shown;
            used += (size_t)w;
            shown++;
        }
    }
    return shown;
}

static void site_text(struct symbolizer *sy, const struct live *l, uint32_t id, char *buf, size_t size)
{
    const struct live_stack *st = find_stack(l, id);
    if (site_frames(sy, st, true, buf, size) == 0 && site_frames(sy, st, false, buf, size) == 0)
        snprintf(buf, size, id ? "(stack %u: no frame of the program)" : "(no stack captured)", id);
}

struct row {
    const struct live_site *site;
    int64_t growth;
};

static int by_growth(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->growth != y->growth)
        return x->growth < y->growth ? 1 : -1;
    if (x->site->bytes != y->site->bytes)
        return x->site->bytes < y->site->bytes ? 1 : -1;
    return x->site->stack < y->site->stack ? -1 : x->site->stack > y->site->stack;
}

/* A sampled process (GPULEAK_MODE=light): each site's live bytes and count
 * become what its sampled allocations stand for (scaled by the weight of
 * their average size, as gpuleak-report scales PEAK and CALLS), so growth
 * is measured on estimates; the site of the allocations not sampled leaves
 * the list, its bytes and count kept in unsampled[0] and [1]. */
static void scale_sites(struct live *l, uint64_t unsampled[2])
{
    if (l->sample_bytes == 0)
        return;
    size_t n = 0;
    for (size_t i = 0; i < l->nsites; i++) {
        struct live_site *s = &l->sites[i];
        if (s->stack == l->unsampled_stack) {
            unsampled[0] += s->bytes;
            unsampled[1] += s->count;
            continue;
        }
        double w = s->count ? snap_sample_weight(l->sample_bytes, (double)s->bytes / (double)s->count) : 1;
        double b = w * (double)s->bytes, c = w * (double)s->count;
        s->bytes = b >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)(b + 0.5);
        s->count = c >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)(c + 0.5);
        l->sites[n++] = *s;
    }
    l->nsites = n;
}

static void draw(FILE *out, const struct live *l, struct symbolizer *sy, int top, bool once, const char *exe,
                 const uint64_t unsampled[2])
{
    char a[32], b[32], c[32], line[1024];
    fprintf(out, "gpuleak top: pid %d%s%s%s, up %.1f s\n", l->pid, exe ? " (" : "", exe ? exe : "",
            exe ? ")" : "", (double)l->uptime_ns / 1e9);
    fprintf(out, "\n%-8s %12s %12s %12s %10s\n", "device", "live", "allocations", "peak", "failed");
    for (size_t i = 0; i < l->ndevs; i++) {
        const struct live_dev *d = &l->devs[i];
        char name[16];
        if (d->device < 0)
            snprintf(name, sizeof name, "host");
        else
            snprintf(name, sizeof name, "%d", d->device);
        human(a, sizeof a, d->live);
        human(b, sizeof b, d->peak);
        fprintf(out, "%-8s %12s %12" PRIu64 " %12s %10" PRIu64 "\n", name, a, d->count, b, d->failed);
    }
    struct row *rows = calloc(l->nsites ? l->nsites : 1, sizeof *rows);
    if (rows != NULL) {
        for (size_t i = 0; i < l->nsites; i++) {
            rows[i].site = &l->sites[i];
            struct trend *t = once ? NULL : trend_of(l->sites[i].stack, l->sites[i].device);
            rows[i].growth = t ? window_growth(t) : 0;
        }
        qsort(rows, l->nsites, sizeof *rows, by_growth);
        if (l->sample_bytes) {
            human(a, sizeof a, l->sample_bytes);
            human(b, sizeof b, unsampled[0]);
            fprintf(out, "\nsampled (GPULEAK_MODE=light, a stack per %s on average): live and count by stack\n"
                    "are estimates; not sampled: %s in %" PRIu64 " allocations, in the estimates\n", a, b,
                    unsampled[1]);
        }
        if (once)
            fprintf(out, "\nlargest live stacks\n%10s %10s  %-6s %s\n", "live", "count", "device", "where");
        else
            fprintf(out, "\nfastest-growing stacks (last %d s)\n%10s %10s %10s  %-6s %s\n", GROWTH_WINDOW,
                    "growth", "live", "count", "device", "where");
        for (size_t i = 0; i < l->nsites && (int)i < top; i++) {
            const struct live_site *s = rows[i].site;
            human(a, sizeof a, s->bytes);
            signed_human(c, sizeof c, rows[i].growth);
            site_text(sy, l, s->stack, line, sizeof line);
            char dev[8];
            snprintf(dev, sizeof dev, "%d", s->device);
            if (once)
                fprintf(out, "%10s %10" PRIu64 "  %-6s %s\n", a, s->count, s->device < 0 ? "host" : dev, line);
            else
                fprintf(out, "%10s %10s %10" PRIu64 "  %-6s %s\n", c, a, s->count, s->device < 0 ? "host" : dev,
                        line);
        }
        if (l->left_out)
            fprintf(out, "(%" PRIu64 " smaller stacks not in the live file)\n", l->left_out);
        free(rows);
    }
    fprintf(out, "\nout-of-memory errors: %" PRIu64 "%s\n", l->oom_total, l->nooms ? ", the last:" : "");
    for (size_t i = 0; i < l->nooms; i++) {
        const struct live_oom *o = &l->ooms[i];
        human(a, sizeof a, o->size);
        site_text(sy, l, o->stack, line, sizeof line);
        fprintf(out, "  at %.1f s  device %d  %s  %s\n", (double)o->at_ns / 1e9, o->device, a, line);
    }
}

/* ---- main ------------------------------------------------------------------ */

static volatile sig_atomic_t stop;
static void on_stop(int sig)
{
    (void)sig;
    stop = 1;
}

static void usage(FILE *f)
{
    fputs("usage: gpuleak-top [--once] [--interval SECONDS] [--top N] [--alloc-fn NAME] PID|FILE\n"
          "The live view of a process running under gpuleak: device memory, the\n"
          "fastest-growing stacks and out-of-memory errors, from the live file the\n"
          "library rewrites each second (GPULEAK_LIVE_DIR, default /dev/shm/gpuleak-UID;\n"
          "docs/live.md).  q or Ctrl-C quits.\n"
          "  --once          print one frame, without screen control, and exit\n"
          "  --interval S    seconds between redraws (default 1)\n"
          "  --top N         stacks shown (default 15)\n"
          "  --alloc-fn NAME a function of the program that wraps allocation (a glob,\n"
          "                  repeatable): a stack is named from its caller on, as\n"
          "                  gpuleak-report's option of the same name\n",
          f);
}

static bool live_path(const char *target, char *buf, size_t size)
{
    for (const char *p = target; *p; p++)
        if (*p < '0' || *p > '9')
            return snprintf(buf, size, "%s", target) < (int)size;
    const char *dir = getenv("GPULEAK_LIVE_DIR");
    if (dir != NULL && *dir != '\0')
        return snprintf(buf, size, "%s/%s.live", dir, target) < (int)size;
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    return snprintf(buf, size, "%s/gpuleak-%u/%s.live", base, (unsigned)geteuid(), target) < (int)size;
}

#define ALLOC_FN_NEEDS_NAME "gpuleak-top: --alloc-fn needs a function name (a glob: 'my_alloc', 'Arena::*') (try --help)\n"

/* --alloc-fn NAME, validated as gpuleak-report validates it. */
static bool add_alloc_fn(const char *name)
{
    if (name[0] == '\0') {
        fputs(ALLOC_FN_NEEDS_NAME, stderr);
        return false;
    }
    const char **more = realloc((void *)label_opts.alloc_fns, (label_opts.nalloc_fns + 1) * sizeof *more);
    if (more == NULL) {
        fputs("gpuleak-top: out of memory\n", stderr);
        return false;
    }
    more[label_opts.nalloc_fns++] = name;
    label_opts.alloc_fns = more;
    return true;
}

int main(int argc, char **argv)
{
    bool once = false;
    double interval = 1.0;
    int top = 15;
    static const struct option opts[] = {
        {"once", no_argument, NULL, 'o'},     {"interval", required_argument, NULL, 'i'},
        {"top", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},  {"alloc-fn", required_argument, NULL, 'F'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'o': once = true; break;
        case 'i':
            interval = strtod(optarg, &end);
            if (*end != '\0' || !(interval >= 0.1 && interval <= 3600)) {
                fprintf(stderr, "gpuleak-top: --interval takes seconds from 0.1 to 3600, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 't': {
            long v = strtol(optarg, &end, 10);
            if (*end != '\0' || v < 1 || v > 10000) {
                fprintf(stderr, "gpuleak-top: --top takes a number from 1 to 10000, not '%s'\n", optarg);
                return 2;
            }
            top = (int)v;
            break;
        }
        case 'F':
            if (!add_alloc_fn(optarg))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("gpuleak-top %s\n", GPULEAK_VERSION); return 0;
        default:
            if (optopt == 'F') {
                fputs(ALLOC_FN_NEEDS_NAME, stderr);
                return 2;
            }
            fprintf(stderr, "gpuleak-top: unknown option '%s' (see --help)\n", argv[optind - 1]);
            return 2;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    char path[4096];
    if (!live_path(argv[optind], path, sizeof path)) {
        fprintf(stderr, "gpuleak-top: %s: name too long\n", argv[optind]);
        return 2;
    }
    bool tty = !once && isatty(STDOUT_FILENO);
    struct termios saved;
    bool raw = tty && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
    if (raw) {
        struct termios t = saved;
        t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        t.c_cc[VMIN] = 0;
        t.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSANOW, &t);
    }
    signal(SIGINT, on_stop);
    signal(SIGTERM, on_stop);
    int status = 0, last_pid = -1;
    struct symbolizer *sy = NULL;
    struct snapshot snap;
    struct live kept = {0}; /* only its modules: the symbolizer points into them */
    while (!stop) {
        size_t len;
        const char *why = NULL;
        char whybuf[128];
        char *text = live_slurp(path, &len, &why);
        struct live l;
        if (text == NULL) {
            if (last_pid > 0 && errno == ENOENT) { /* removed at exit */
                if (tty)
                    fputs("\033[H\033[2J", stdout);
                printf("gpuleak top: pid %d has ended\n", last_pid);
                break;
            }
            fprintf(stderr, "gpuleak-top: %s: %s%s\n", path, why,
                    errno == ENOENT ? " (is the process running under gpuleak, with GPULEAK_LIVE on?)" : "");
            status = 2;
            break;
        }
        bool ok = live_parse(text, len, &l, whybuf, sizeof whybuf, &why);
        free(text);
        if (!ok) {
            live_free(&l);
            fprintf(stderr, "gpuleak-top: %s: %s\n", path, why);
            status = 2;
            break;
        }
        last_pid = l.pid;
        uint64_t unsampled[2] = {0, 0};
        scale_sites(&l, unsampled);
        /* A new symbolizer only when the process loaded or unloaded
         * something: it caches what it read from each module. */
        bool same = sy != NULL && kept.nmods == l.nmods;
        for (size_t i = 0; same && i < l.nmods; i++)
            same = kept.mods[i].start == l.mods[i].start && !strcmp(kept.mods[i].path.s, l.mods[i].path.s);
        if (!same) {
            if (sy != NULL)
                sym_free(sy);
            live_free(&kept);
            kept.mods = l.mods;
            kept.nmods = l.nmods;
            l.mods = NULL;
            l.nmods = 0;
            memset(&snap, 0, sizeof snap);
            snap.modules = kept.mods;
            snap.nmodules = kept.nmods;
            sy = sym_new(&snap, true);
        }
        note_read(&l);
        if (tty)
            fputs("\033[H\033[2J", stdout);
        /* This read's Python frames, for the symbolizer (which copies the
         * text of those it resolves: an id's text never changes). */
        snap.pyframes = l.pyframes;
        snap.npyframes = l.npyframes;
        draw(stdout, &l, sy, top, once, kept.nmods && kept.mods[0].path.s[0] ? kept.mods[0].path.s : NULL, unsampled);
        fflush(stdout);
        snap.pyframes = NULL;
        snap.npyframes = 0;
        live_free(&l);
        if (once)
            break;
        for (double waited = 0; waited < interval && !stop; waited += 0.1) {
            struct timespec tick = {0, 100 * 1000 * 1000};
            nanosleep(&tick, NULL);
            char key;
            if (raw && read(STDIN_FILENO, &key, 1) == 1 && (key == 'q' || key == 'Q'))
                stop = 1;
        }
    }
    if (raw)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    if (sy != NULL)
        sym_free(sy);
    live_free(&kept);
    free(trends);
    free((void *)label_opts.alloc_fns);
    return status;
}
