/* How a tracked process ends: forked children exiting while the parent's
 * writer thread writes snapshots, two threads calling exit(), fatal signals
 * inside a CUDA call and on an alternate stack, an ignored snapshot signal
 * (tests/t_process_end.sh).
 *
 *   fork-exit SECONDS   fork children that exit at once (4 at a time), for
 *                       SECONDS, while a thread keeps the writer busy with
 *                       SIGUSR1; prints "forks N"; exit 1 if a child did
 *                       not exit within 5 s ("... hung after N forks")
 *   exit-race DELAY_US  main exit(5); a worker exit(6) DELAY_US later
 *   return-race DELAY_US  the same with main returning 5
 *   term-in-free        a thread frees inside cudaFree (run it with
 *                       FAKECUDA_FREE_DELAY_MS) while main sends it SIGTERM
 *   overflow            sigaltstack, then unbounded recursion
 *   loop-async          a 1 MiB leak, "ready", then cudaMallocAsync and
 *                       cudaFreeAsync of 4 KiB until killed
 *   loop-driver         the same through cuMemAlloc and cuMemFree
 *   stuck-in-walk       a thread holds the loader's lock for 20 s; main
 *                       prints "ready" and asks gpuleak for a snapshot,
 *                       whose walk of the loader's list waits for it
 *   ignored-usr1        SIGUSR1 ignored before the first CUDA call; prints
 *                       what it is after, then whether an exec'ed child
 *                       that sends itself SIGUSR1 survives */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *leak(size_t n)
{
    void *p = NULL;
    if (cudaMalloc(&p, n) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        exit(2);
    }
    return p;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static atomic_bool storm_stop;

static void *storm(void *arg)
{
    (void)arg;
    struct timespec gap = {0, 200 * 1000}; /* 0.2 ms */
    while (!atomic_load(&storm_stop)) {
        kill(getpid(), SIGUSR1);
        nanosleep(&gap, NULL);
    }
    return NULL;
}

/* Children in flight at once: more forks per second, so more of them land
 * while the writer is inside a snapshot. */
#define IN_FLIGHT 4
#define CHILD_DEADLINE_S 5.0

struct child {
    pid_t pid;
    double born;
};

/* Reaps what has exited; returns the index of a child older than the
 * deadline, or -1. */
static int reap_some(struct child *kids, int n)
{
    for (;;) {
        pid_t r = waitpid(-1, NULL, WNOHANG);
        if (r <= 0)
            break;
        for (int i = 0; i < n; i++)
            if (kids[i].pid == r)
                kids[i].pid = 0;
    }
    double now = now_s();
    for (int i = 0; i < n; i++)
        if (kids[i].pid != 0 && now - kids[i].born > CHILD_DEADLINE_S)
            return i;
    return -1;
}

static int fork_exit(double seconds)
{
    leak(1 << 20);
    printf("parent %d\n", (int)getpid());
    pthread_t t;
    pthread_create(&t, NULL, storm, NULL);
    double end = now_s() + seconds;
    struct child kids[IN_FLIGHT] = {{0, 0}};
    long forks = 0;
    int rc = 0, hung = -1;
    for (;;) {
        bool forking = now_s() < end;
        int free_slot = -1, live = 0;
        for (int i = 0; i < IN_FLIGHT; i++) {
            if (kids[i].pid == 0 && free_slot < 0)
                free_slot = i;
            live += kids[i].pid != 0;
        }
        if (!forking && live == 0)
            break;
        if (forking && free_slot >= 0) {
            pid_t pid = fork();
            if (pid == 0)
                exit(0); /* no CUDA call in the child */
            if (pid < 0) {
                perror("fork");
                rc = 2;
                break;
            }
            kids[free_slot] = (struct child){pid, now_s()};
            forks++;
            continue;
        }
        if ((hung = reap_some(kids, IN_FLIGHT)) >= 0) {
            printf("child %d still there after %.0f s; hung after %ld forks\n", (int)kids[hung].pid,
                   CHILD_DEADLINE_S, forks);
            rc = 1;
            break;
        }
        struct timespec ms = {0, 1000 * 1000}; /* the storm's signals cut it short */
        nanosleep(&ms, NULL);
    }
    for (int i = 0; i < IN_FLIGHT; i++)
        if (kids[i].pid != 0) {
            kill(kids[i].pid, SIGKILL);
            waitpid(kids[i].pid, NULL, 0);
        }
    atomic_store(&storm_stop, true);
    pthread_join(t, NULL);
    if (rc == 0)
        printf("forks %ld\n", forks);
    return rc;
}

static atomic_bool go;
static long race_delay_us;

static void *second_exit(void *arg)
{
    (void)arg;
    while (!atomic_load(&go))
        ;
    struct timespec d = {0, race_delay_us * 1000};
    nanosleep(&d, NULL);
    exit(6);
}

static void start_second_exit(long delay_us)
{
    leak(1 << 20);
    race_delay_us = delay_us;
    pthread_t t;
    pthread_create(&t, NULL, second_exit, NULL);
    atomic_store(&go, true);
}

static void *p_free;
static atomic_bool freeing;

static void *free_it(void *arg)
{
    (void)arg;
    atomic_store(&freeing, true);
    cudaFree(p_free);
    return NULL;
}

static void term_in_free(void)
{
    leak(1 << 20);
    p_free = leak(4096);
    pthread_t t;
    pthread_create(&t, NULL, free_it, NULL);
    while (!atomic_load(&freeing))
        ;
    struct timespec d = {0, 200 * 1000 * 1000}; /* well inside the free */
    nanosleep(&d, NULL);
    pthread_kill(t, SIGTERM);
    pthread_join(t, NULL);
    printf("survived SIGTERM\n");
}

static volatile int depth_limit = 1 << 30; /* never reached: 1 GiB of frames */

static int recurse(int n)
{
    volatile char pad[1024];
    pad[0] = (char)n;
    if (n >= depth_limit)
        return pad[0];
    return recurse(n + 1) + pad[0];
}

static void overflow(void)
{
    leak(1 << 20);
    stack_t ss;
    ss.ss_size = 64 * 1024;
    ss.ss_sp = malloc(ss.ss_size);
    ss.ss_flags = 0;
    if (ss.ss_sp == NULL || sigaltstack(&ss, NULL) != 0) {
        perror("sigaltstack");
        exit(2);
    }
    printf("%d\n", recurse(0));
}

/* Tight loops through two hook families, for a SIGTERM sent by another
 * process at a random instant: most of the time is spent inside gpuleak's
 * own recording, holding its locks (tests/t_fatal_snapshot.sh). */
static void loop_async(void)
{
    leak(1 << 20);
    printf("ready\n");
    for (;;) {
        void *p = NULL;
        if (cudaMallocAsync(&p, 4096, 0) != cudaSuccess || cudaFreeAsync(p, 0) != cudaSuccess)
            exit(3);
    }
}

static void loop_driver(void)
{
    leak(1 << 20); /* the runtime makes the primary context current */
    printf("ready\n");
    for (;;) {
        CUdeviceptr p = 0;
        if (cuMemAlloc(&p, 4096) != CUDA_SUCCESS || cuMemFree(p) != CUDA_SUCCESS)
            exit(3);
    }
}

int gpuleak_snapshot(const char *path) __attribute__((weak));

static atomic_bool in_walk;

static int hold_loader(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size, (void)data;
    atomic_store(&in_walk, true);
    struct timespec d = {20, 0};
    nanosleep(&d, NULL);
    return 1;
}

static void *walk_slowly(void *arg)
{
    (void)arg;
    dl_iterate_phdr(hold_loader, NULL);
    return NULL;
}

/* gpuleak's snapshot on main is busy (its locks, then a walk of the loader's
 * list) for as long as the other thread holds the loader's lock. */
static void stuck_in_walk(void)
{
    leak(1 << 20);
    pthread_t t;
    pthread_create(&t, NULL, walk_slowly, NULL);
    while (!atomic_load(&in_walk))
        ;
    printf("ready\n");
    if (gpuleak_snapshot)
        gpuleak_snapshot(NULL);
    printf("snapshot taken\n");
}

static void ignored_usr1(void)
{
    signal(SIGUSR1, SIG_IGN);
    leak(1 << 20);
    struct sigaction cur;
    sigaction(SIGUSR1, NULL, &cur);
    printf("usr1 %s\n", cur.sa_handler == SIG_IGN ? "ignored" : cur.sa_handler == SIG_DFL ? "default" : "handled");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", "kill -USR1 $$; echo child survived", (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st))
        printf("child killed by signal %d\n", WTERMSIG(st));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(mode, "fork-exit") && argc > 2)
        return fork_exit(atof(argv[2]));
    if (!strcmp(mode, "exit-race") && argc > 2) {
        start_second_exit(atol(argv[2]));
        exit(5);
    }
    if (!strcmp(mode, "return-race") && argc > 2) {
        start_second_exit(atol(argv[2]));
        return 5; /* libc's own call to exit: not through the hook */
    }
    if (!strcmp(mode, "term-in-free")) {
        term_in_free();
        return 0;
    }
    if (!strcmp(mode, "overflow")) {
        overflow();
        return 0;
    }
    if (!strcmp(mode, "loop-async"))
        loop_async();
    if (!strcmp(mode, "loop-driver"))
        loop_driver();
    if (!strcmp(mode, "stuck-in-walk")) {
        stuck_in_walk();
        return 0;
    }
    if (!strcmp(mode, "ignored-usr1")) {
        ignored_usr1();
        return 0;
    }
    fprintf(stderr, "usage: %s fork-exit SECONDS|exit-race DELAY_US|return-race DELAY_US|term-in-free|overflow|loop-async|loop-driver|stuck-in-walk|ignored-usr1\n", argv[0]);
    return 2;
}
