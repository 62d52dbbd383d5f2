/* A CUDA program that does unfriendly things to its environment before it
 * exits, one per command-line word (tests/t_hostile_*.sh, t_robust_*.sh).
 * Each mode leaks exactly one 1 MiB cudaMalloc (LEAK-SITE) unless it says
 * otherwise, prints one line on stdout and exits with status 3, so that the
 * tests can check that the exit status and the output are the program's own. */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#define MiB (1024u * 1024u)

static void check(cudaError_t rc, const char *what)
{
    if (rc != cudaSuccess) {
        fprintf(stderr, "%s failed: %d\n", what, (int)rc);
        exit(1);
    }
}

__attribute__((noinline)) static void *leak(void)
{
    void *p = NULL;
    check(cudaMalloc(&p, MiB), "cudaMalloc"); /* LEAK-SITE: leak */
    return p;
}

static void done(const char *what)
{
    printf("hostile %s done\n", what);
    fflush(stdout);
    exit(3);
}

/* ---- calls before main ---------------------------------------------- */
static void *ctor_ptr;
__attribute__((constructor)) static void early(void)
{
    if (getenv("HOSTILE_CTOR") != NULL)
        ctor_ptr = leak(); /* before main, maybe before libgpuleak's own constructor */
}

/* ---- a frame without unwind information ------------------------------ */
/* nocfi_call(fn, fp): calls fn() with the frame pointer set to fp, from code
 * that has no CFI (no .eh_frame entry): libunwind has nothing to go on for
 * this frame and must give up (or follow a garbage frame pointer) safely. */
__asm__(".text\n"
        ".globl nocfi_call\n"
        ".type nocfi_call, @function\n"
        "nocfi_call:\n"
        "    push %rbp\n"
        "    mov %rsi, %rbp\n"
        "    call *%rdi\n"
        "    pop %rbp\n"
        "    ret\n");
void nocfi_call(void (*fn)(void), void *fp);
static void leak_void(void) { (void)leak(); }

/* ---- threads: cancelled mid-call, still running at exit ---------------- */
static int (*api_snapshot)(const char *);
static void *churn_thread(void *arg)
{
    int with_snapshots = arg != NULL;
    for (;;) {
        void *p;
        if (cudaMalloc(&p, 4096) == cudaSuccess)
            cudaFree(p);
        if (with_snapshots && api_snapshot != NULL)
            api_snapshot(NULL); /* write() inside: a cancellation point */
        pthread_testcancel();
    }
    return NULL;
}

/* A thread whose cancellation is pending before its first CUDA call makes
 * every kind of call gpuleak records (the process's first tracked one, a
 * thread's first, pairs, stream-ordered pairs, a failure for lack of memory
 * with its snapshot, a bad free, a leak): a cancellation point reached
 * inside any of them would end the thread there.  None may be: gpuleak
 * disables cancellation only around its own cancellation points (hooks run
 * with the program's cancellation state; docs/reliability.md), and
 * fakecuda's calls have none.  The thread ends at its pthread_testcancel. */
static atomic_int pending_survived;
/* Everything but the last cancellation point, in a frame of its own: the
 * thread frame that the cancellation unwinds has no addressable local,
 * whose ASan redzone would stay poisoned under the thread's exit. */
__attribute__((noinline)) static void pending_calls(void)
{
    int state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
    pthread_cancel(pthread_self());
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &state); /* deferred: pending */
    for (int i = 0; i < 200; i++) {
        void *p = NULL;
        check(cudaMalloc(&p, 4096), "cudaMalloc");
        check(cudaFree(p), "cudaFree");
        check(cudaMallocAsync(&p, 4096, 0), "cudaMallocAsync");
        check(cudaFreeAsync(p, 0), "cudaFreeAsync");
    }
    void *big = NULL;
    if (cudaMalloc(&big, (size_t)1 << 50) != cudaErrorMemoryAllocation)
        return;
    if (cudaFree((void *)(uintptr_t)0x1000) == cudaSuccess)
        return;
    leak();
    atomic_store(&pending_survived, 1);
}

static void *pending_thread(void *arg)
{
    (void)arg;
    pending_calls();
    pthread_testcancel();
    return NULL;
}

/* The process's first tracked allocation made by a thread whose
 * cancellation is already pending: gpuleak's first allocation waits for its
 * writer thread (driver_view.c), and that wait must not be where the
 * cancellation lands -- the thread would die holding the job lock, and exit
 * would wait for it forever. */
static atomic_int go;
static void *first_alloc_thread(void *arg)
{
    (void)arg;
    while (!atomic_load(&go)) /* no cancellation point until then */
        ;
    leak();
    pthread_testcancel();
    return NULL;
}

/* ---- memory freed in the last round of thread-exit destructors --------- */
/* The program's key is created after gpuleak's (which comes with the first
 * CUDA call), so in every round gpuleak's destructor runs first -- a key set
 * during a round is still seen in that round only if it comes later.  The
 * program's destructor puts its value back until the last round
 * (PTHREAD_DESTRUCTOR_ITERATIONS), long after gpuleak retired the thread's
 * lane, and frees then: the hook runs in a thread with no destructor round
 * left. */
static pthread_key_t late_key;
static __thread int late_round;

static void late_free(void *p)
{
    if (++late_round < PTHREAD_DESTRUCTOR_ITERATIONS) {
        pthread_setspecific(late_key, p);
        return;
    }
    check(cudaFree(p), "cudaFree");
}

static void *late_thread(void *arg)
{
    (void)arg;
    void *p = NULL;
    check(cudaMalloc(&p, 4096), "cudaMalloc");
    pthread_setspecific(late_key, p);
    return NULL;
}

static void run_late_threads(int n)
{
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, late_thread, NULL) != 0 || pthread_join(t, NULL) != 0) {
            fprintf(stderr, "thread %d failed\n", i);
            exit(1);
        }
    }
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(mode, "plain")) {
        leak();
        done(mode);
    } else if (!strcmp(mode, "closefds")) {
        /* Closes everything, stdout and stderr included, then exits. */
        leak();
        printf("hostile %s done\n", mode);
        fflush(stdout);
        for (int fd = 0; fd < 1024; fd++)
            close(fd);
        exit(3);
    } else if (!strcmp(mode, "chdir")) {
        leak();
        if (chdir("/") != 0)
            return 1;
        done(mode);
    } else if (!strcmp(mode, "nofile")) {
        leak();
        struct rlimit rl = {3, 3}; /* stdin, stdout, stderr: nothing more */
        setrlimit(RLIMIT_NOFILE, &rl);
        done(mode);
    } else if (!strcmp(mode, "fsize")) {
        leak();
        printf("hostile %s done\n", mode); /* stdout may be a file: print first */
        fflush(stdout);
        struct rlimit rl = {1, 1}; /* 1 byte: the write fails (EFBIG, SIGXFSZ) */
        setrlimit(RLIMIT_FSIZE, &rl);
        exit(3);
    } else if (!strcmp(mode, "as")) {
        leak();
        struct rlimit rl = {1 << 20, 1 << 20}; /* no new mapping can be made */
        setrlimit(RLIMIT_AS, &rl);
        done(mode);
    } else if (!strcmp(mode, "ctor")) {
        /* HOSTILE_CTOR=1: the leak happened in a constructor. */
        done(mode);
    } else if (!strcmp(mode, "nocfi")) {
        static void *garbage[64];
        for (int i = 0; i < 64; i++)
            garbage[i] = (void *)(uintptr_t)(0xdead0000u + 8u * (unsigned)i);
        nocfi_call(leak_void, (void *)0x10);  /* frame pointer into page 0 */
        nocfi_call(leak_void, garbage);       /* pointing at garbage */
        nocfi_call(leak_void, garbage + 63);
        done(mode);
    } else if (!strcmp(mode, "tsd-late") && argc == 3) {
        /* argv[2] threads, each allocating 4 KiB and freeing it in the last
         * round of its destructors; the resident memory this costs. */
        int n = atoi(argv[2]);
        void *first = NULL;
        check(cudaMalloc(&first, 4096), "cudaMalloc");
        check(cudaFree(first), "cudaFree");
        pthread_key_create(&late_key, late_free);
        run_late_threads(n / 10); /* settle thread stacks and malloc arenas */
        long before = rss_kib();
        run_late_threads(n);
        printf("rss_growth_kib %ld\n", rss_kib() - before);
        done(mode);
    } else if (!strcmp(mode, "cancel-first")) {
        check(cudaFree(NULL), "cudaFree"); /* the runtime is up; nothing allocated yet */
        pthread_t t;
        pthread_create(&t, NULL, first_alloc_thread, NULL);
        pthread_cancel(t);
        atomic_store(&go, 1);
        void *res;
        pthread_join(t, &res);
        printf("thread %s\n", res == PTHREAD_CANCELED ? "cancelled" : "finished");
        done(mode);
    } else if (!strcmp(mode, "cancel-pending")) {
        int n = 0;
        check(cudaGetDeviceCount(&n), "cudaGetDeviceCount"); /* the runtime is up; gpuleak not yet */
        pthread_t t;
        void *res;
        pthread_create(&t, NULL, pending_thread, NULL);
        pthread_join(t, &res);
        printf("survived %d, thread %s\n", atomic_load(&pending_survived),
               res == PTHREAD_CANCELED ? "cancelled" : "finished");
        done(mode);
    } else if (!strcmp(mode, "cancel")) {
        /* A thread cancelled while it allocates and takes snapshots: the
         * process must still allocate, snapshot and exit normally. */
        api_snapshot = (int (*)(const char *))dlsym(RTLD_DEFAULT, "gpuleak_snapshot");
        for (int round = 0; round < 20; round++) {
            pthread_t t;
            pthread_create(&t, NULL, churn_thread, (void *)1);
            usleep(2000 + 500 * round);
            pthread_cancel(t);
            pthread_join(t, NULL);
        }
        leak();
        done(mode);
    } else if (!strcmp(mode, "exit-race")) {
        /* Threads still allocating while exit() runs the destructors. */
        pthread_t t[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, churn_thread, NULL);
        usleep(20000);
        leak();
        done(mode);
    } else if (!strcmp(mode, "dlclose")) {
        /* The runtime loaded RTLD_LOCAL, used through the hooks, unloaded,
         * loaded again (maybe elsewhere) and used again. */
        for (int round = 0; round < 3; round++) {
            void *h = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
            if (h == NULL) {
                fprintf(stderr, "dlopen: %s\n", dlerror());
                return 1;
            }
            /* Something else in between, so the next load lands elsewhere. */
            void *filler = round == 1 ? dlopen("libm.so.6", RTLD_NOW) : NULL;
            cudaError_t (*m)(void **, size_t) = (cudaError_t(*)(void **, size_t))dlsym(h, "cudaMalloc");
            cudaError_t (*f)(void *) = (cudaError_t(*)(void *))dlsym(h, "cudaFree");
            void *p;
            if (m == NULL || f == NULL || m(&p, MiB) != cudaSuccess || f(p) != cudaSuccess)
                return 1;
            if (round == 2 && m(&p, MiB) != cudaSuccess) /* LEAK-SITE: dlclose */
                return 1;
            dlclose(h);
            (void)filler;
        }
        done(mode);
    } else if (!strcmp(mode, "forkexec")) {
        /* Not a CUDA program at all: a hundred children, each exec'ing. */
        int bad = 0;
        for (int i = 0; i < 100; i++) {
            pid_t pid = fork();
            if (pid == 0) {
                execl("/bin/true", "true", (char *)NULL);
                _exit(127);
            }
            int st;
            if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                bad++;
        }
        printf("forkexec %d failures\n", bad);
        return bad ? 1 : 3;
    }
    fprintf(stderr, "unknown mode '%s'\n", mode);
    return 2;
}
