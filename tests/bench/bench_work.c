/* Workloads for `make bench` (scripts/bench.sh, docs/performance.md).
 *
 * Built like a user's CUDA program (-O0 -g, frame pointers, no inlining),
 * linked against the fake runtime; the same binary runs bare, under
 * libgpuleak, and under heaptrack, and always times only its own measured
 * loop (clock_gettime around it), so start-up and exit costs of the tools
 * never enter the per-pair figures.  Every result is one line
 * "RESULT key=value ..." on stdout.
 *
 *   bench_work pairs MODE DEPTH N [THREADS]
 *       MODE: cuda | async         cudaMalloc/cudaFree, cudaMallocAsync/cudaFreeAsync
 *             floor | floor-async  unw_backtrace(buf, DEPTH) + the same pair
 *             malloc               malloc/free of the same size (for heaptrack)
 *             driver               cuMemAlloc_v2/cuMemFree_v2 (through
 *                                  cudaGetDriverEntryPoint), in the primary
 *                                  context cudaSetDevice(0) makes current
 *       Each thread descends DEPTH frames once, then issues N pairs from
 *       there, so every pair has the same DEPTH-deep stack.
 *       -> ns_per_pair (per thread: wall time / N), pairs_per_s (all threads)
 *   bench_work snap NLIVE NSTACKS DIR
 *       (under libgpuleak) NLIVE live allocations spread over NSTACKS distinct
 *       stacks; times gpuleak_snapshot() into DIR, then takes a SIGUSR1
 *       snapshot while one thread keeps allocating and reports the longest
 *       single cudaMalloc+cudaFree that thread saw during it (and, for
 *       comparison, the longest in an equal quiet period before).
 *   bench_work serve DEPTH N
 *       A long-running process for section 8 (gpuleak attach/detach):
 *       prints "ready", then for each line "pairs" on stdin runs N
 *       cudaMalloc/cudaFree pairs at DEPTH, as `pairs cuda` does, and prints
 *       its RESULT line; exits 0 at "quit" or end of input.  The same process
 *       is measured before an attach, while attached and after the detach.
 *       It starts and joins a thread first (glibc's multi-threaded mode, as
 *       under a real CUDA runtime's threads).
 *   bench_work attach-ir LIB N DIR
 *       For section 8 under callgrind (instructions per pair, which the
 *       machine's load cannot move): N pairs in pairs_before_attach, then
 *       `dlopen(LIB)` and gpuleak_attach_begin on a thread of its own (as
 *       gdb's call starts one under `gpuleak attach`), N in
 *       pairs_while_attached, gpuleak_attach_end on its own thread, N in
 *       pairs_after_detach.  Each phase is its own function, so that
 *       callgrind_annotate --inclusive gives each its instructions.  The
 *       detach snapshot goes to DIR.
 *   bench_work mem NLIVE NSTACKS
 *       RSS growth (/proc/self/statm) from making NLIVE live allocations over
 *       NSTACKS stacks, after a warm-up that fills the history ring.
 */
#define __CUDA_API_VERSION_INTERNAL
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dirent.h>
#include <dlfcn.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define PAIR_SIZE 4096 /* below fakecuda's 64 KiB madvise threshold */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_work: %s\n", what);
    exit(2);
}

static void check(cudaError_t rc, const char *what)
{
    if (rc != cudaSuccess) {
        fprintf(stderr, "bench_work: %s failed: %d\n", what, (int)rc);
        exit(1);
    }
}

/* ---- pairs -------------------------------------------------------------- */

enum mode { M_CUDA, M_ASYNC, M_FLOOR, M_FLOOR_ASYNC, M_MALLOC, M_DRIVER };

/* The driver pair's entry points, asked of the runtime once (the program
 * links only the runtime, as a PyTorch extension does). */
static CUresult (*drv_alloc)(CUdeviceptr *, size_t);
static CUresult (*drv_free)(CUdeviceptr);

static void *driver_entry(const char *name)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult status;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &status) != cudaSuccess || fn == NULL)
        die(name);
    return fn;
}

static void driver_entries(void)
{
    drv_alloc = (CUresult(*)(CUdeviceptr *, size_t))driver_entry("cuMemAlloc");
    drv_free = (CUresult(*)(CUdeviceptr))driver_entry("cuMemFree");
}

static void check_driver(CUresult rc, const char *what)
{
    if (rc != CUDA_SUCCESS) {
        fprintf(stderr, "bench_work: %s failed: %d\n", what, (int)rc);
        exit(1);
    }
}

struct job {
    enum mode mode;
    int depth;
    long n;
    uint64_t t0, t1;
    pthread_barrier_t *barrier;
};

static void *volatile sink;

static NOINLINE void one_pair(enum mode mode, int depth)
{
    void *p = NULL;
    void *buf[256];
    switch (mode) {
    case M_FLOOR:
        unw_backtrace(buf, depth);
        /* fall through */
    case M_CUDA:
        check(cudaMalloc(&p, PAIR_SIZE), "cudaMalloc");
        check(cudaFree(p), "cudaFree");
        break;
    case M_FLOOR_ASYNC:
        unw_backtrace(buf, depth);
        /* fall through */
    case M_ASYNC:
        check(cudaMallocAsync(&p, PAIR_SIZE, 0), "cudaMallocAsync");
        check(cudaFreeAsync(p, 0), "cudaFreeAsync");
        break;
    case M_DRIVER: {
        CUdeviceptr d = 0;
        check_driver(drv_alloc(&d, PAIR_SIZE), "cuMemAlloc");
        check_driver(drv_free(d), "cuMemFree");
        break;
    }
    case M_MALLOC:
        p = malloc(PAIR_SIZE);
        sink = p;
        free(p);
        break;
    }
}

/* The bottom of the stack: one_pair is frame 1, this frame 2, then depth-2
 * frames of descend() above, so the call site of each CUDA call is `depth`
 * frames deep counting from one_pair. */
static NOINLINE void pair_loop(struct job *j)
{
    /* Warm up: activation, first-call resolution, the stack's interning
     * (BENCH_WARMUP pairs, default 1000; heaptrack needs far more before its
     * interpreter process keeps pace: scripts/bench.sh), and for 20 ms at
     * least: gpuleak fits its clock to the TSC 10 ms after activation
     * (interpose/base/clock.h), and a job that runs for hours runs on that. */
    const char *w = getenv("BENCH_WARMUP");
    long warm = w ? atol(w) : 1000;
    uint64_t warm_until = now_ns() + 20000000u;
    for (long i = 0; i < warm || now_ns() < warm_until; i++)
        one_pair(j->mode, j->depth);
    if (j->barrier)
        pthread_barrier_wait(j->barrier);
    j->t0 = now_ns();
    for (long i = 0; i < j->n; i++)
        one_pair(j->mode, j->depth);
    j->t1 = now_ns();
}

static NOINLINE void descend(struct job *j, int left)
{
    if (left <= 2)
        pair_loop(j);
    else
        descend(j, left - 1);
}

static void *pair_thread(void *arg)
{
    struct job *j = arg;
    if (j->mode == M_DRIVER)
        check(cudaSetDevice(0), "cudaSetDevice"); /* a context on this thread */
    descend(j, j->depth);
    return NULL;
}

static int run_pairs(int argc, char **argv)
{
    if (argc < 5)
        die("usage: pairs MODE DEPTH N [THREADS]");
    enum mode mode;
    if (!strcmp(argv[2], "cuda")) mode = M_CUDA;
    else if (!strcmp(argv[2], "async")) mode = M_ASYNC;
    else if (!strcmp(argv[2], "floor")) mode = M_FLOOR;
    else if (!strcmp(argv[2], "floor-async")) mode = M_FLOOR_ASYNC;
    else if (!strcmp(argv[2], "malloc")) mode = M_MALLOC;
    else if (!strcmp(argv[2], "driver")) mode = M_DRIVER;
    else die("unknown mode");
    int depth = atoi(argv[3]);
    long n = atol(argv[4]);
    int threads = argc > 5 ? atoi(argv[5]) : 1;
    if (depth < 3 || depth > 256 || n < 1 || threads < 1 || threads > 256)
        die("bad DEPTH (3..256), N or THREADS");
    if (mode != M_MALLOC) {
        void *p;
        check(cudaMalloc(&p, 512), "cudaMalloc"); /* initialise the runtime */
        check(cudaFree(p), "cudaFree");
        if (mode == M_DRIVER)
            driver_entries();
    }

    struct job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)threads);
    for (int t = 0; t < threads; t++) {
        jobs[t] = (struct job){.mode = mode, .depth = depth, .n = n,
                               .barrier = threads > 1 ? &barrier : NULL};
        if (threads == 1)
            pair_thread(&jobs[t]);
        else if (pthread_create(&tids[t], NULL, pair_thread, &jobs[t]) != 0)
            die("pthread_create");
    }
    uint64_t first = UINT64_MAX, last = 0;
    for (int t = 0; t < threads; t++) {
        if (threads > 1)
            pthread_join(tids[t], NULL);
        if (jobs[t].t0 < first) first = jobs[t].t0;
        if (jobs[t].t1 > last) last = jobs[t].t1;
    }
    double wall = (double)(last - first);
    printf("RESULT ns_per_pair=%.1f pairs_per_s=%.0f\n", wall / (double)n,
           (double)n * threads / (wall / 1e9));
    return 0;
}

static void *no_op(void *arg)
{
    return arg;
}

/* glibc runs a process in single-threaded mode (no atomic operations in
 * malloc, in mutexes) until its first pthread_create, and never returns to
 * it: a CUDA runtime's own threads, or gpuleak's writer thread during an
 * attach, end it for good.  serve ends it at start, as a CUDA runtime
 * would: otherwise the first attach would leave the program slower than
 * before it by glibc's multi-threaded paths (scripts/bench.sh section 8). */
static void start_and_join_a_thread(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, no_op, NULL) != 0)
        die("pthread_create");
    pthread_join(t, NULL);
}

/* One measured loop in a process that keeps running between loops: an
 * attach or a detach happens between two "pairs" commands (scripts/bench.sh
 * section 8). */
static int run_serve(int argc, char **argv)
{
    if (argc < 4)
        die("usage: serve DEPTH N");
    int depth = atoi(argv[2]);
    long n = atol(argv[3]);
    if (depth < 3 || depth > 256 || n < 1)
        die("bad DEPTH (3..256) or N");
    void *p;
    check(cudaMalloc(&p, 512), "cudaMalloc"); /* initialise the runtime */
    check(cudaFree(p), "cudaFree");
    start_and_join_a_thread();
    printf("ready\n");
    char line[64];
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (!strncmp(line, "quit", 4))
            break;
        if (strncmp(line, "pairs", 5) != 0)
            continue;
        struct job j = {.mode = M_CUDA, .depth = depth, .n = n};
        pair_thread(&j);
        printf("RESULT ns_per_pair=%.1f\n", (double)(j.t1 - j.t0) / (double)n);
    }
    return 0;
}

/* ---- many distinct stacks ----------------------------------------------- */

/* 10^levels distinct call stacks: each level has ten functions with the same
 * body but different return addresses; allocation i goes down the path given
 * by the decimal digits of (i mod nstacks), then PAD more frames. */
#define LEVELS 6
#define PAD 16

struct many {
    int levels;
    void (*leaf)(struct many *);
    void *ptr;
};

static NOINLINE void pad(struct many *m, int left)
{
    if (left == 0)
        m->leaf(m);
    else
        pad(m, left - 1);
}

typedef void (*level_fn)(struct many *, unsigned, int);
static level_fn level_table[10];
static NOINLINE void down(struct many *m, unsigned path, int level)
{
    if (level == m->levels)
        pad(m, PAD);
    else
        level_table[path % 10](m, path / 10, level + 1);
}
#define LEVEL_FN(d) \
    static NOINLINE void level_##d(struct many *m, unsigned path, int level) { down(m, path, level); }
LEVEL_FN(0) LEVEL_FN(1) LEVEL_FN(2) LEVEL_FN(3) LEVEL_FN(4)
LEVEL_FN(5) LEVEL_FN(6) LEVEL_FN(7) LEVEL_FN(8) LEVEL_FN(9)
static level_fn level_table[10] = {level_0, level_1, level_2, level_3, level_4,
                                   level_5, level_6, level_7, level_8, level_9};

static NOINLINE void leaf_alloc(struct many *m)
{
    check(cudaMalloc(&m->ptr, 512), "cudaMalloc");
}

static int levels_for(long nstacks)
{
    int levels = 0;
    for (long s = 1; s < nstacks; s *= 10)
        levels++;
    if (levels > LEVELS)
        die("NSTACKS above 10^6");
    return levels;
}

/* NLIVE allocations, allocation i on stack (i mod nstacks). */
static void make_live(long nlive, long nstacks)
{
    struct many m = {.levels = levels_for(nstacks), .leaf = leaf_alloc};
    for (long i = 0; i < nlive; i++)
        down(&m, (unsigned)(i % nstacks), 0);
}

static long rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (f == NULL || fscanf(f, "%ld %ld", &size, &resident) != 2)
        die("cannot read /proc/self/statm");
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

static void warm_up(void)
{
    /* Activation, and enough events to fill the history ring (65536 by
     * default), whose pages are touched on first use. */
    for (int i = 0; i < 40000; i++) {
        void *p;
        check(cudaMalloc(&p, 512), "cudaMalloc");
        check(cudaFree(p), "cudaFree");
    }
}

static int run_mem(int argc, char **argv)
{
    if (argc < 4)
        die("usage: mem NLIVE NSTACKS");
    long nlive = atol(argv[2]), nstacks = atol(argv[3]);
    warm_up();
    long before = rss_bytes();
    make_live(nlive, nstacks);
    long after = rss_bytes();
    printf("RESULT rss_delta=%ld\n", after - before);
    fflush(stdout);
    _exit(0); /* no final snapshot: only the growth is measured */
}

/* ---- snapshot ----------------------------------------------------------- */

static atomic_bool stop_churn;
static _Atomic uint64_t churn_max_ns, churn_pairs;

static void *churn(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_churn)) {
        void *p;
        uint64_t t0 = now_ns();
        check(cudaMalloc(&p, 512), "cudaMalloc");
        check(cudaFree(p), "cudaFree");
        uint64_t dt = now_ns() - t0;
        if (dt > atomic_load(&churn_max_ns))
            atomic_store(&churn_max_ns, dt);
        atomic_fetch_add(&churn_pairs, 1);
    }
    return NULL;
}

static int count_snaps(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".snap") && e->d_name[0] != '.')
            n++;
    if (d)
        closedir(d);
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int run_snap(int argc, char **argv)
{
    if (argc < 5)
        die("usage: snap NLIVE NSTACKS DIR");
    long nlive = atol(argv[2]), nstacks = atol(argv[3]);
    const char *dir = argv[4];
    int (*snapshot)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "gpuleak_snapshot");
    if (snapshot == NULL)
        die("snap needs libgpuleak.so preloaded");
    warm_up();
    uint64_t t0 = now_ns();
    make_live(nlive, nstacks);
    uint64_t t1 = now_ns();

    char path[4096];
    snprintf(path, sizeof path, "%s/api.snap", dir);
    uint64_t s0 = now_ns();
    if (snapshot(path) != 0)
        die("gpuleak_snapshot failed");
    uint64_t s1 = now_ns();
    struct stat st;
    if (stat(path, &st) != 0)
        die("no snapshot file");

    /* A signal-triggered snapshot with an allocating thread running. */
    pthread_t t;
    if (pthread_create(&t, NULL, churn, NULL) != 0)
        die("pthread_create");
    sleep_ms(100);
    /* Quiet period as long as the snapshot will take, for comparison. */
    long quiet_ms = (long)((s1 - s0) / 1000000) + 50;
    atomic_store(&churn_max_ns, 0);
    sleep_ms(quiet_ms);
    uint64_t quiet_max = atomic_load(&churn_max_ns);
    int before = count_snaps(dir);
    atomic_store(&churn_max_ns, 0);
    uint64_t k0 = now_ns();
    kill(getpid(), SIGUSR1);
    while (count_snaps(dir) == before && now_ns() - k0 < 60ull * 1000000000u)
        sleep_ms(1);
    uint64_t k1 = now_ns();
    uint64_t during_max = atomic_load(&churn_max_ns);
    atomic_store(&stop_churn, true);
    pthread_join(t, NULL);
    printf("RESULT build_ms=%.1f write_ms=%.1f size=%lld signal_ms=%.1f blocked_max_ms=%.2f "
           "quiet_max_ms=%.2f churn_pairs=%llu\n",
           (double)(t1 - t0) / 1e6, (double)(s1 - s0) / 1e6, (long long)st.st_size,
           (double)(k1 - k0) / 1e6, (double)during_max / 1e6, (double)quiet_max / 1e6,
           (unsigned long long)atomic_load(&churn_pairs));
    fflush(stdout);
    _exit(0); /* skip the exit snapshot: the files are already there */
}

/* ---- attach-ir: the same pairs before, while and after an attach -------- */

static NOINLINE void plain_pairs(long n)
{
    for (long i = 0; i < n; i++) {
        void *p;
        check(cudaMalloc(&p, PAIR_SIZE), "cudaMalloc");
        check(cudaFree(p), "cudaFree");
    }
}
static NOINLINE void pairs_before_attach(long n) { plain_pairs(n); }
static NOINLINE void pairs_while_attached(long n) { plain_pairs(n); }
static NOINLINE void pairs_after_detach(long n) { plain_pairs(n); }

struct attach_call {
    int (*begin)(const char *);
    int (*end)(void);
    const char *config; /* begin's; NULL: end */
    int rc;
};

static void *attach_call_thread(void *arg)
{
    struct attach_call *c = arg;
    c->rc = c->config ? c->begin(c->config) : c->end();
    return NULL;
}

/* begin (config given) or end, on a thread of its own */
static void attach_call(struct attach_call *c, const char *what)
{
    pthread_t t;
    if (pthread_create(&t, NULL, attach_call_thread, c) != 0)
        die("pthread_create");
    pthread_join(t, NULL);
    if (c->rc != 0) {
        fprintf(stderr, "bench_work: %s returned %d\n", what, c->rc);
        exit(1);
    }
}

static int run_attach_ir(int argc, char **argv)
{
    if (argc < 5)
        die("usage: attach-ir LIB N DIR");
    long n = atol(argv[3]);
    if (n < 1)
        die("bad N");
    void *p;
    check(cudaMalloc(&p, 512), "cudaMalloc"); /* initialise the runtime */
    check(cudaFree(p), "cudaFree");
    start_and_join_a_thread(); /* multi-threaded glibc from the start, as serve */
    pairs_before_attach(n);
    void *h = dlopen(argv[2], RTLD_NOW);
    if (h == NULL)
        die(dlerror());
    char config[4200];
    if (snprintf(config, sizeof config, "GPULEAK_OUTPUT=%s/\n", argv[4]) >= (int)sizeof config)
        die("DIR too long");
    struct attach_call c = {.config = config};
    *(void **)&c.begin = dlsym(h, "gpuleak_attach_begin");
    *(void **)&c.end = dlsym(h, "gpuleak_attach_end");
    if (c.begin == NULL || c.end == NULL)
        die("no gpuleak_attach_begin/end in LIB");
    attach_call(&c, "gpuleak_attach_begin");
    pairs_while_attached(n);
    c.config = NULL;
    attach_call(&c, "gpuleak_attach_end");
    pairs_after_detach(n);
    printf("RESULT pairs=%ld\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 2 && !strcmp(argv[1], "pairs"))
        return run_pairs(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "serve"))
        return run_serve(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "attach-ir"))
        return run_attach_ir(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "mem"))
        return run_mem(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "snap"))
        return run_snap(argc, argv);
    die("usage: bench_work pairs|serve|attach-ir|mem|snap ...");
}
