#include "control/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/lock.h"
#include "base/log.h"
#include "base/xfsz.h"
#include "base/modules.h"
#include "base/self.h"
#include "capture/pyframes.h"
#include "control/outfile.h"
#include "state/stack_table.h"
#include "state/track.h"
#include "state/track_copy.h"

#define LIVE_PERIOD_MS 1000
/* An idle job's file is still rewritten now and then, so that `gpuleak top`
 * can tell a quiet process from a dead one by the file's time. */
#define LIVE_IDLE_MS 5000
/* Sites written, largest live bytes first: what a terminal can show, and
 * the growth `gpuleak top` computes between two reads. */
#define LIVE_MAX_SITES 256
#define DIR_MAX 512

static bool live_on, metrics_on;
static char live_dir[DIR_MAX];
/* GPULEAK_METRICS made absolute once, at activation (a relative name is
 * not moved by the program's chdir), and expanded like GPULEAK_OUTPUT by
 * each process at its first write (a forked child has its own %p). */
static char metrics_pattern[GL_PATH_MAX];
static char metrics_path[GL_PATH_MAX]; /* "" until expanded in this process */
static atomic_bool warned_shared;      /* another process writes our file: said */
static mode_t metrics_mode = 0600;
/* The rank label, read here once: getenv on the writer thread every second
 * would race with a program thread's setenv (glibc may move environ). */
static uint32_t metrics_rank;
static uint64_t due_ns, last_write_ns;
static uint64_t last_fingerprint;
static char live_name[32];
static atomic_bool live_written; /* this process has a live file to remove */

/* ---- a growing text buffer ---------------------------------------------- */

struct text {
    char *s;
    size_t len, cap;
    bool failed;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->s != NULL && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 16384;
        while (cap - t->len <= (size_t)n)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (s == NULL) {
            t->failed = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

/* The tick's buffers: reused from tick to tick (one thread ticks:
 * trigger.c's), and reachable from here while in use.  Neither exit() nor
 * exit() does not wait for that thread, so a leak checker that runs at exit
 * while it is mid-tick would otherwise call a buffer that only its stack held lost.
 * fork() does wait for a tick (tick_lock): a child forked mid-tick would
 * have the tick's heap and no thread to free it, and, in a program whose
 * allocator does not lock itself around fork (ASan's, before LLVM 17), an
 * allocator lock held by the tick's thread forever (t_fork, ASan phase). */
static struct gl_lock tick_lock = GL_LOCK_INIT(TICK);
static struct text live_buf, metrics_buf;
static struct gl_watch_copy watch_copy; /* its sites are malloc'ed straight into it */

static struct text *reuse(struct text *t)
{
    t->len = 0;
    t->failed = false;
    return t;
}

/* ---- configuration ------------------------------------------------------ */

static bool default_dir(char *buf, size_t size)
{
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    int n = snprintf(buf, size, "%s/gpuleak-%u", base, (unsigned)geteuid());
    return n > 0 && (size_t)n < size;
}

void gl_watch_configure(void)
{
    static atomic_bool warned_live, warned_dir, warned_metrics, warned_mode;
    live_on = gl_env_bool("GPULEAK_LIVE", true, &warned_live);
    const char *dir = gl_getenv("GPULEAK_LIVE_DIR");
    if (dir != NULL && *dir != '\0') {
        if (dir[0] != '/' || strlen(dir) >= sizeof live_dir) {
            gl_warn_once(&warned_dir, "ignoring GPULEAK_LIVE_DIR=%.40s: not an absolute path under %zu bytes",
                         dir, sizeof live_dir);
            dir = NULL;
        } else {
            memcpy(live_dir, dir, strlen(dir) + 1);
        }
    } else {
        dir = NULL;
    }
    if (dir == NULL && !default_dir(live_dir, sizeof live_dir))
        live_on = false;

    const char *m = gl_getenv("GPULEAK_METRICS");
    metrics_on = false;
    metrics_path[0] = '\0';
    if (m != NULL && *m != '\0') {
        const char *bad;
        if (strlen(m) >= sizeof metrics_pattern || !gl_outfile_absolute(m, metrics_pattern, sizeof metrics_pattern))
            gl_warn_once(&warned_metrics, "ignoring GPULEAK_METRICS: longer than %zu bytes with the working directory",
                         sizeof metrics_pattern - 1);
        else
            metrics_on = true;
        if (metrics_on && (bad = gl_output_unknown_conversion(m)) != NULL)
            gl_warn_once(&warned_metrics, "GPULEAK_METRICS=%.60s: unknown conversion '%%%.1s' kept as text "
                         "(known: %%p %%h %%r %%t %%%%)", m, bad + 1);
    }
    metrics_rank = gl_rank();
    const char *mode = gl_getenv("GPULEAK_METRICS_MODE");
    if (mode != NULL && *mode != '\0') {
        char *end;
        errno = 0;
        unsigned long v = strtoul(mode, &end, 8);
        if (errno == 0 && *end == '\0' && end != mode && v <= 0666 && (v & 0600) == 0600)
            metrics_mode = (mode_t)v;
        else
            gl_warn_once(&warned_mode, "ignoring GPULEAK_METRICS_MODE=%.40s: expected an octal mode "
                         "from 0600 to 0666, using 0600", mode);
    }
    snprintf(live_name, sizeof live_name, "%d.live", (int)getpid());
    due_ns = gl_mono_ns();
}

uint64_t gl_watch_wait_ms(void)
{
    if (!live_on && !metrics_on)
        return UINT64_MAX;
    uint64_t now = gl_mono_ns();
    return now >= due_ns ? 0 : (due_ns - now + 999999u) / 1000000u;
}

/* ---- safe atomic replacement ------------------------------------------- */

/* The live directory, ours alone: created 0700 if missing, refused (and
 * the live file turned off, with one warning) if it is a symlink, somebody
 * else's, or open to others -- another user could otherwise replace our file
 * or read what the job allocates.  Opened anew each time and closed after
 * use: a descriptor kept open could be closed by the program (closefrom)
 * and its number reused for a directory of the program's. */
static int open_live_dir(void)
{
    static atomic_bool warned;
    if (mkdir(live_dir, 0700) != 0 && errno != EEXIST)
        goto refuse;
    int fd = open(live_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        goto refuse;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        close(fd);
        errno = EPERM;
        goto refuse;
    }
    return fd;
refuse:
    /* Out of descriptors or memory is the moment's, and the snapshot that
     * fails with it says so: one line is the host's whole budget.  Retried
     * at the next tick. */
    if (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == EINTR)
        return -1;
    gl_warn_once(&warned, "live view off: %s is not a directory of this user's alone (%s)", live_dir,
                 strerror(errno));
    live_on = false;
    return -1;
}

static bool write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Writes text to dirfd/name through a temporary of our own (O_EXCL, no
 * symlink followed) renamed over it: a reader sees the old file or the new
 * one, never a part. */
static bool replace_file(int dirfd, const char *name, const struct text *t, mode_t mode)
{
    char tmp[96];
    snprintf(tmp, sizeof tmp, ".%.40s.%d.tmp", name, (int)getpid());
    unlinkat(dirfd, tmp, 0); /* left by a crash of an earlier process with our pid */
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return false;
    bool ok = fchmod(fd, mode) == 0 && write_all(fd, t->s, t->len);
    ok = close(fd) == 0 && ok;
    if (ok && renameat(dirfd, tmp, dirfd, name) == 0)
        return true;
    unlinkat(dirfd, tmp, 0);
    return false;
}

/* ---- the contents ------------------------------------------------------- */

static int by_bytes_desc(const void *a, const void *b)
{
    const struct gl_watch_site *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    uint32_t ix = x->stack ? x->stack->id : 0, iy = y->stack ? y->stack->id : 0;
    return ix < iy ? -1 : ix > iy;
}

static void put_path(struct text *t, const char *path)
{
    /* The last field of its line: only a newline would break the format. */
    for (const char *p = path; *p; p++)
        put(t, "%c", *p == '\n' ? '?' : *p);
}

/* The Python frames the stacks name (py:ID), collected for their pyframe
 * lines. */
struct pyids {
    uint32_t *ids;
    size_t n, cap;
};

static void note_pyid(struct text *t, struct pyids *py, uint32_t id)
{
    if (py->n == py->cap) {
        size_t cap = py->cap ? py->cap * 2 : 64;
        uint32_t *more = realloc(py->ids, cap * sizeof *more);
        if (more == NULL) {
            t->failed = true; /* a py:ID without its line: not written */
            return;
        }
        py->ids = more;
        py->cap = cap;
    }
    py->ids[py->n++] = id;
}

/* "stack ID FRAME...": a return address in hex, or py:ID for a Python
 * frame (docs/live.md, version 2). */
static void put_stack(struct text *t, const struct gl_stack *st, struct pyids *py)
{
    put(t, "stack %u", st->id);
    for (uint32_t k = 0; k < st->depth; k++) {
        uint64_t pc = st->pcs[k];
        if (gl_pc_is_pyframe(pc)) {
            put(t, " py:%u", (unsigned)(pc & 0xffffffffu));
            note_pyid(t, py, (uint32_t)(pc & 0xffffffffu));
        } else {
            put(t, " %llx", (unsigned long long)pc);
        }
    }
    put(t, "\n");
}

static int by_id_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void put_pyframe(uint32_t id, uint32_t line, const char *file, size_t file_len, const char *func,
                        size_t func_len, void *arg)
{
    (void)file_len;
    struct text *t = arg;
    /* One token: a name never has a space or a newline, but a recorded one
     * (PyTorch's) is text from elsewhere. */
    put(t, "pyframe %u %u ", id, line);
    if (func_len == 0)
        put(t, "?");
    for (size_t i = 0; i < func_len; i++)
        put(t, "%c", func[i] == ' ' || func[i] == '\n' ? '?' : func[i]);
    put(t, " ");
    put_path(t, file); /* NUL-terminated at file_len (pyframes.c's key) */
    put(t, "\n");
}

/* "pyframe ID LINE FUNCTION FILE" for each Python frame the stacks named. */
static void put_pyframes(struct text *t, struct pyids *py)
{
    if (py->n > 1) /* (qsort takes no NULL array, even empty) */
        qsort(py->ids, py->n, sizeof *py->ids, by_id_desc);
    size_t n = 0;
    for (size_t i = 0; i < py->n; i++)
        if (n == 0 || py->ids[n - 1] != py->ids[i])
            py->ids[n++] = py->ids[i];
    if (n > 0)
        gl_py_for_ids(py->ids, n, put_pyframe, t);
}

/* live_text's own heap scratch, reachable from here for the same reason as
 * the tick's buffers above. */
static struct {
    uint32_t *seen;
    struct pyids py;
    struct gl_module_list mods;
} scratch;

static void scratch_free(void)
{
    free(scratch.seen);
    free(scratch.py.ids);
    gl_modules_free(&scratch.mods);
    memset(&scratch, 0, sizeof scratch);
}

static void live_text(struct text *t, const struct gl_watch_copy *c)
{
    put(t, "gpuleak-live 2\npid %d\ntime_ns %llu\nuptime_ns %llu\n", (int)getpid(),
        (unsigned long long)gl_unix_ns(),
        (unsigned long long)(gl_mono_ns() - atomic_load(&gl_start_mono_ns)));
    if (gl_config.mode == GL_MODE_LIGHT) { /* sites are sampled stacks: top scales them */
        const struct gl_stack *u = gl_stack_unsampled();
        put(t, "sampling %llu %u\n", (unsigned long long)gl_config.sample_bytes, u != NULL ? u->id : 0u);
    }
    for (size_t i = 0; i < c->ndevices; i++) {
        const struct gl_device_copy *d = &c->devices[i];
        put(t,
            "device %d live_bytes %llu live_count %llu peak_bytes %llu peak_time_ns %llu "
            "alloc_count %llu free_count %llu failed_count %llu\n",
            (int)d->device, (unsigned long long)d->live_bytes, (unsigned long long)d->live_count,
            (unsigned long long)d->peak_bytes, (unsigned long long)d->peak_time_ns,
            (unsigned long long)d->alloc_count, (unsigned long long)d->free_count,
            (unsigned long long)d->failed_count);
    }
    size_t nsites = c->nsites < LIVE_MAX_SITES ? c->nsites : LIVE_MAX_SITES;
    for (size_t i = 0; i < nsites; i++) {
        const struct gl_watch_site *s = &c->sites[i];
        put(t, "site %u %d %llu %llu\n", s->stack ? s->stack->id : 0u, (int)s->device,
            (unsigned long long)s->bytes, (unsigned long long)s->count);
    }
    if (c->sites_truncated || c->nsites > nsites)
        put(t, "sites_left_out %zu\n", c->nsites - nsites);
    for (size_t i = 0; i < c->nooms; i++) {
        const struct gl_watch_oom *o = &c->ooms[i];
        put(t, "oom %llu %d %llu %u\n", (unsigned long long)o->time_ns, (int)o->device,
            (unsigned long long)o->size, o->stack ? o->stack->id : 0u);
    }
    put(t, "oom_total %llu\n", (unsigned long long)c->oom_total);
    /* The stacks named above, each once (ids are unique; a site per device
     * may repeat one), then the Python frames and the modules their frames
     * are in. */
    uint32_t *seen = scratch.seen = calloc(nsites + c->nooms + 1, sizeof *seen);
    struct pyids *py = &scratch.py;
    size_t nseen = 0;
    for (size_t i = 0; i < nsites + c->nooms; i++) {
        const struct gl_stack *st = i < nsites ? c->sites[i].stack : c->ooms[i - nsites].stack;
        if (st == NULL || seen == NULL)
            continue;
        bool dup = false;
        for (size_t k = 0; k < nseen && !dup; k++)
            dup = seen[k] == st->id;
        if (dup)
            continue;
        seen[nseen++] = st->id;
        put_stack(t, st, py);
    }
    put_pyframes(t, py);
    struct gl_module_list *mods = &scratch.mods;
    if (gl_modules_collect(mods) == 0) {
        for (size_t i = 0; i < mods->count; i++) {
            const struct gl_module *m = &mods->items[i];
            put(t, "module %llx %llx %llx ", (unsigned long long)m->start, (unsigned long long)m->end,
                (unsigned long long)m->bias);
            if (m->build_id_len == 0)
                put(t, "-");
            for (uint32_t k = 0; k < m->build_id_len; k++)
                put(t, "%02x", m->build_id[k]);
            put(t, " ");
            put_path(t, m->path ? m->path : "");
            put(t, "\n");
        }
    }
    scratch_free();
    put(t, "end\n");
}

/* The labels every sample of this process carries: pid, rank (%r's rule,
 * as configured) and host (gethostname, as snapshots record it, so that a
 * query names the host merge names), as "pid=\"N\",rank=\"R\",host=\"H\"".
 * The host is escaped as the text format wants (\\, \", \n). */
static void process_labels(char *buf, size_t size)
{
    char host[256], esc[2 * sizeof host];
    if (gethostname(host, sizeof host) != 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    size_t n = 0;
    for (const char *c = host; *c; c++) {
        if (*c == '\\' || *c == '"' || *c == '\n')
            esc[n++] = '\\';
        esc[n++] = *c == '\n' ? 'n' : *c;
    }
    esc[n] = '\0';
    snprintf(buf, size, "pid=\"%d\",rank=\"%u\",host=\"%s\"", (int)getpid(), metrics_rank, esc);
}

/* Prometheus' text format (version 0.0.4), which node-exporter's textfile
 * collector reads: HELP and TYPE name each family as its samples are
 * named, a counter's with _total.  (OpenMetrics' "# TYPE x counter" over
 * samples "x_total", written before issue 38, left that collector with
 * untyped families that had lost their help.)  One sample per device
 * (host memory is device "host"). */
static void metrics_text(struct text *t, const struct gl_watch_copy *c)
{
    static const struct {
        const char *name, *type, *help;
        size_t field; /* offset in gl_device_copy */
    } fams[] = {
        {"gpuleak_live_bytes", "gauge", "Memory allocated through CUDA and not freed yet",
         offsetof(struct gl_device_copy, live_bytes)},
        {"gpuleak_live_allocations", "gauge", "Allocations not freed yet",
         offsetof(struct gl_device_copy, live_count)},
        {"gpuleak_peak_bytes", "gauge", "Highest gpuleak_live_bytes so far",
         offsetof(struct gl_device_copy, peak_bytes)},
        {"gpuleak_allocations_total", "counter", "Allocations made",
         offsetof(struct gl_device_copy, alloc_count)},
        {"gpuleak_frees_total", "counter", "Allocations freed",
         offsetof(struct gl_device_copy, free_count)},
        {"gpuleak_failed_allocations_total", "counter", "Allocations CUDA refused (out of memory)",
         offsetof(struct gl_device_copy, failed_count)},
    };
    char labels[640];
    process_labels(labels, sizeof labels);
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        put(t, "# HELP %s %s.\n", fams[f].name, fams[f].help);
        put(t, "# TYPE %s %s\n", fams[f].name, fams[f].type);
        for (size_t i = 0; i < c->ndevices; i++) {
            const struct gl_device_copy *d = &c->devices[i];
            uint64_t v;
            memcpy(&v, (const char *)d + fams[f].field, sizeof v);
            char dev[16];
            if (d->device < 0)
                snprintf(dev, sizeof dev, "host");
            else
                snprintf(dev, sizeof dev, "%d", (int)d->device);
            put(t, "%s{device=\"%s\",%s} %llu\n", fams[f].name, dev, labels, (unsigned long long)v);
        }
    }
}

static uint64_t fingerprint(const struct gl_watch_copy *c)
{
    uint64_t h = c->oom_total;
    for (size_t i = 0; i < c->ndevices; i++)
        h = h * 1000003u ^ (c->devices[i].alloc_count * 31u + c->devices[i].free_count + c->devices[i].live_bytes);
    return h;
}

/* This process's metrics file name: the pattern expanded (%n is 0, %t the
 * time of the process's first write); false, with one warning, when it
 * expands to no file name. */
static bool metrics_name(void)
{
    static atomic_bool warned;
    if (metrics_path[0] != '\0')
        return true;
    if (gl_outfile_expand_pattern(metrics_pattern, 0, metrics_path, sizeof metrics_path))
        return true;
    metrics_path[0] = '\0';
    gl_warn_once(&warned, "ignoring GPULEAK_METRICS=%.200s: it names no file", metrics_pattern);
    metrics_on = false;
    return false;
}

/* The pid in the samples of the metrics file dirfd/name when another live
 * process wrote it (its pid label), else 0.  Read without following a
 * symlink or blocking on a FIFO, at most 4 KiB: the first sample is there. */
static int other_writer(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096];
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof buf - 1) : -1;
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *label = strstr(buf, ",pid=\"");
    long pid = label ? strtol(label + 6, NULL, 10) : 0;
    if (pid <= 0 || pid > INT32_MAX || pid == (long)getpid())
        return 0;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM ? (int)pid : 0;
}

static void write_metrics(const struct text *t)
{
    static atomic_bool warned;
    if (!metrics_name())
        return;
    /* The temporary beside the file, so that the rename stays in one
     * filesystem and the collector never reads half a file. */
    char dir[GL_PATH_MAX];
    const char *slash = strrchr(metrics_path, '/');
    const char *name = slash ? slash + 1 : metrics_path;
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == metrics_path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - metrics_path), metrics_path);
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    /* Without %p, ranks and workers that inherited the name overwrite each
     * other's figures: the file holds one pid.  Said once per process. */
    int other;
    if (dirfd >= 0 && !atomic_load(&warned_shared) && !gl_outfile_pattern_has(metrics_pattern, 'p') &&
        (other = other_writer(dirfd, name)) != 0) {
        gl_warn_once(&warned_shared, "GPULEAK_METRICS=%.200s: process %d writes this file too; put %%p in the name for a file "
                "per process", metrics_path, other);
    }
    if (dirfd < 0 || *name == '\0' || !replace_file(dirfd, name, t, metrics_mode))
        gl_warn_once(&warned, "cannot write GPULEAK_METRICS=%.200s: %s", metrics_path, strerror(errno));
    if (dirfd >= 0)
        close(dirfd);
}

static void watch_tick(void);

void gl_watch_run(void)
{
    if ((!live_on && !metrics_on) || gl_watch_wait_ms() != 0)
        return;
    gl_lock(&tick_lock);
    watch_tick();
    gl_unlock(&tick_lock);
}

void gl_watch_prefork(void)
{
    gl_lock(&tick_lock);
}

void gl_watch_postfork_parent(void)
{
    gl_unlock(&tick_lock);
}

/* One tick: the figures copied, and the files written when they changed or
 * are due again. */
static void watch_tick(void)
{
    uint64_t now = gl_mono_ns();
    due_ns = now + LIVE_PERIOD_MS * 1000000ull;
    struct gl_watch_copy *c = &watch_copy;
    if (!gl_track_watch_copy(c))
        return;
    uint64_t fp = fingerprint(c);
    if (fp == last_fingerprint && last_write_ns != 0 && now - last_write_ns < LIVE_IDLE_MS * 1000000ull) {
        free(c->sites);
        c->sites = NULL;
        return;
    }
    qsort(c->sites, c->nsites, sizeof *c->sites, by_bytes_desc);
    bool wrote = false;
    struct gl_xfsz xfsz; /* a file past RLIMIT_FSIZE fails, never kills the host */
    gl_xfsz_block(&xfsz);
    int dirfd = live_on ? open_live_dir() : -1;
    if (dirfd >= 0) {
        struct text *t = reuse(&live_buf);
        live_text(t, c);
        wrote = !t->failed && replace_file(dirfd, live_name, t, 0600);
        close(dirfd);
        if (wrote)
            atomic_store(&live_written, true);
    }
    if (metrics_on) {
        struct text *t = reuse(&metrics_buf);
        metrics_text(t, c);
        if (!t->failed)
            write_metrics(t);
        wrote = true;
    }
    gl_xfsz_restore(&xfsz);
    free(c->sites);
    c->sites = NULL;
    if (wrote) {
        last_fingerprint = fp;
        last_write_ns = now;
    }
}

void gl_watch_remove(void)
{
    if (!atomic_load(&live_written))
        return;
    int dirfd = open(live_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dirfd >= 0) {
        unlinkat(dirfd, live_name, 0);
        close(dirfd);
    }
}

void gl_watch_postfork_child(void)
{
    gl_lock_init(&tick_lock, GL_LOCK_TICK, 0);
    /* The parent's file stays the parent's: the child writes its own. */
    snprintf(live_name, sizeof live_name, "%d.live", (int)getpid());
    metrics_path[0] = '\0'; /* expanded again: %p is the child's */
    atomic_store(&warned_shared, false);
    atomic_store(&live_written, false);
    last_fingerprint = 0;
    last_write_ns = 0;
    due_ns = gl_mono_ns();
}
