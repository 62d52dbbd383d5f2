/* Runtime-API scenarios with known outcomes, one per command-line word.
 * Lines marked LEAK-SITE / PEAK-SITE are what the tests expect the reporter
 * to point at (tests find the line numbers by grepping for the marker). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <dirent.h>
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

__attribute__((noinline)) static void *leak_runtime(size_t bytes)
{
    void *p = NULL;
    check(cudaMalloc(&p, bytes), "cudaMalloc"); /* LEAK-SITE: leak_runtime */
    return p;
}

__attribute__((noinline)) static void *leak_async(size_t bytes, cudaStream_t s)
{
    void *p = NULL;
    check(cudaMallocAsync(&p, bytes, s), "cudaMallocAsync"); /* LEAK-SITE: leak_async */
    return p;
}

__attribute__((noinline)) static void balanced_work(void)
{
    void *a = NULL, *b = NULL;
    cudaStream_t s;
    check(cudaStreamCreate(&s), "cudaStreamCreate");
    for (int i = 0; i < 10; i++) {
        check(cudaMalloc(&a, 3 * MiB + 17), "cudaMalloc");
        check(cudaMallocAsync(&b, 4096, s), "cudaMallocAsync");
        check(cudaFreeAsync(b, s), "cudaFreeAsync");
        check(cudaFree(a), "cudaFree");
    }
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    check(cudaStreamDestroy(s), "cudaStreamDestroy");
}

__attribute__((noinline)) static void *peak_a(void)
{
    void *p;
    check(cudaMalloc(&p, 4 * MiB), "cudaMalloc"); /* PEAK-SITE: peak_a */
    return p;
}

__attribute__((noinline)) static void *peak_b(size_t bytes)
{
    void *p;
    check(cudaMalloc(&p, bytes), "cudaMalloc"); /* PEAK-SITE: peak_b */
    return p;
}

/* Peak is 4 MiB (a) + 2 x 1 MiB (b) = 6 MiB; afterwards usage never gets
 * back there: a is freed and only smaller allocations follow. */
static void peak(void)
{
    void *a = peak_a();
    void *b[3];
    for (int i = 0; i < 3; i++) {
        b[i] = peak_b(i < 2 ? MiB : 512 * 1024);
        if (i == 1)
            check(cudaFree(a), "cudaFree");
    }
    for (int i = 0; i < 3; i++)
        check(cudaFree(b[i]), "cudaFree");
}

/* Return codes of calls that fail or are odd; compared with and without the
 * interposer, so they must be printed exactly. */
static void errors(void)
{
    void *p = (void *)0x1;
    size_t freeb = 0, total = 0;
    printf("oom %d\n", (int)cudaMalloc(&p, (size_t)1 << 50));
    printf("oom-ptr-untouched %d\n", p == (void *)0x1);
    printf("oom-async %d\n", (int)cudaMallocAsync(&p, (size_t)1 << 50, 0));
    printf("bogus-free %d\n", (int)cudaFree((void *)0xdeadbeef000));
    printf("null-free %d\n", (int)cudaFree(NULL));
    printf("bogus-free-async %d\n", (int)cudaFreeAsync((void *)0xdeadbeef000, 0));
    check(cudaMalloc(&p, MiB), "cudaMalloc");
    printf("free %d\n", (int)cudaFree(p));
    printf("double-free %d\n", (int)cudaFree(p));
    printf("last-error %d\n", (int)cudaGetLastError());
    printf("meminfo %d\n", (int)cudaMemGetInfo(&freeb, &total));
}

static void own_usr1(int sig) { (void)sig; }

/* The highest n of the files "s.<n>.snap" in dir, or -1. */
static long newest_snapshot(const char *dir)
{
    long best = -1;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        long n;
        char tail[8];
        if (sscanf(e->d_name, "s.%ld.%7s", &n, tail) == 2 && !strcmp(tail, "snap") && n > best)
            best = n;
    }
    if (d != NULL)
        closedir(d);
    return best;
}

/* Waits (20 s at most) until a snapshot numbered above `after` exists. */
static long wait_snapshot_after(const char *dir, long after)
{
    for (int i = 0; i < 2000; i++) {
        long n = newest_snapshot(dir);
        if (n > after)
            return n;
        usleep(10000);
    }
    fprintf(stderr, "no snapshot after %ld in %s\n", after, dir);
    exit(3);
}

/* 3 MiB in use from the default pool, 2 MiB freed back to it (kept
 * reserved: no synchronization). */
static void pool_state(void)
{
    cudaStream_t s;
    check(cudaStreamCreate(&s), "cudaStreamCreate");
    void *p[5];
    for (int i = 0; i < 5; i++)
        p[i] = leak_async(MiB, s);
    check(cudaFreeAsync(p[3], s), "cudaFreeAsync");
    check(cudaFreeAsync(p[4], s), "cudaFreeAsync");
}

static void *exit_from_thread(void *arg)
{
    (void)arg;
    leak_runtime(MiB);
    exit(7); /* the process exits from here, not from main */
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "leak-runtime")) {
        for (int i = 0; i < 2; i++)
            leak_runtime(MiB);
        balanced_work();
    } else if (!strcmp(what, "leak-async")) {
        cudaStream_t s;
        check(cudaStreamCreate(&s), "cudaStreamCreate");
        for (int i = 0; i < 3; i++)
            leak_async(65536, s);
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    } else if (!strcmp(what, "balanced")) {
        balanced_work();
    } else if (!strcmp(what, "peak")) {
        peak();
    } else if (!strcmp(what, "errors")) {
        errors();
    } else if (!strcmp(what, "exit-thread")) {
        pthread_t t;
        pthread_create(&t, NULL, exit_from_thread, NULL);
        pthread_join(t, NULL);
        return 0; /* never reached */
    } else if (!strcmp(what, "segv")) {
        leak_runtime(MiB);
        volatile int *bad = (volatile int *)16;
        *bad = 1;
    } else if (!strcmp(what, "abort")) {
        leak_runtime(MiB);
        abort();
    } else if (!strcmp(what, "pool-wait")) {
        /* The pool state, then wait to be signalled. */
        pool_state();
        printf("ready\n");
        fflush(stdout);
        for (;;)
            pause();
    } else if (!strcmp(what, "pool-exit")) {
        /* The pool state plus 1 MiB from cudaMalloc, then a normal exit:
         * the exit snapshot's driver's view is sampled when exit() begins. */
        pool_state();
        leak_runtime(MiB);
    } else if (!strcmp(what, "wait")) {
        /* Leak, say so, then wait to be signalled. */
        leak_runtime(MiB);
        printf("ready\n");
        fflush(stdout);
        for (;;)
            pause();
    } else if (!strcmp(what, "handler-first")) {
        /* The program owns SIGUSR1 before its first CUDA call. */
        signal(SIGUSR1, own_usr1);
        leak_runtime(MiB);
    } else if (!strcmp(what, "handler-later")) {
        /* ... or takes it over afterwards, then works for 3 seconds
         * whatever signals arrive. */
        leak_runtime(MiB);
        signal(SIGUSR1, own_usr1);
        printf("ready\n");
        fflush(stdout);
        unsigned left = 3;
        while ((left = sleep(left)) > 0)
            ;
    } else if (!strcmp(what, "fork") || !strcmp(what, "fork-reset")) {
        /* Parent and child each own exactly their own leaks.  fork-reset:
         * the parent's leak is released by cudaDeviceReset before the fork
         * (a leak until that teardown, the parent's alone). */
        leak_runtime(MiB);
        if (!strcmp(what, "fork-reset"))
            check(cudaDeviceReset(), "cudaDeviceReset");
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            for (int i = 0; i < 2; i++)
                leak_async(65536, 0);
            exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
    } else if (!strcmp(what, "periodic") && argc == 4) {
        /* Under GPULEAK_OUTPUT=DIR/s.%n.snap and GPULEAK_INTERVAL: snapshot 0
         * is written before the first leak, and after each of the N leaks a
         * newer snapshot is written (so one holds all of them). */
        const char *dir = argv[2];
        check(cudaFree(NULL), "cudaFree"); /* CUDA starts: so does tracking */
        long seen = wait_snapshot_after(dir, -1);
        for (int i = 0; i < atoi(argv[3]); i++) {
            leak_runtime(MiB);
            seen = wait_snapshot_after(dir, newest_snapshot(dir));
        }
        printf("newest %ld\n", seen);
    } else if (!strcmp(what, "oom")) {
        /* 1 MiB live, then an allocation that cannot succeed. */
        leak_runtime(MiB);
        void *p;
        printf("oom %d\n", (int)cudaMalloc(&p, (size_t)1 << 50));
        void *q = leak_runtime(MiB);
        check(cudaFree(q), "cudaFree");
    } else if (!strcmp(what, "oom-kinds")) {
        /* On a 64 MiB device (FAKECUDA_MEM_BYTES): 20 MiB live and 30 MiB
         * held, then 30 MiB asked with 14 MiB free (16 MiB short); the held
         * 30 MiB is freed and the same call tried again, as caching
         * allocators do, and succeeds; then more than the device has. */
        leak_runtime(20 * MiB);
        void *held = leak_runtime(30 * MiB), *p = NULL;
        for (int attempt = 0; attempt < 2; attempt++) {
            cudaError_t rc = cudaMalloc(&p, 30 * MiB); /* OOM-SITE: retried */
            printf("attempt %d %d\n", attempt, (int)rc);
            if (rc == cudaSuccess)
                break;
            check(cudaFree(held), "cudaFree");
        }
        printf("too-big %d\n", (int)cudaMalloc(&p, 128 * MiB)); /* OOM-SITE: too-big */
    } else {
        fprintf(stderr, "usage: %s leak-runtime|leak-async|balanced|peak|errors|fork|fork-reset|oom|oom-kinds|periodic DIR N|exit-thread|segv|abort|pool-wait|pool-exit|wait|handler-first|handler-later\n", argv[0]);
        return 2;
    }
    return 0;
}
