/* Per-thread event rings (interpose/state/events.h): every event a thread
 * recorded is in the next snapshot, numbered in order, whatever became of
 * the thread; tests/t_event_rings.sh checks the files.
 *   event_rings exit DIR          main makes a pair (so it has a lane of its
 *                                 own, and the thread's is not handed on to
 *                                 it); a thread makes 5 blocks (kept) and 3
 *                                 pairs, then exits; main writes DIR/exit.snap
 *   event_rings fork DIR          main makes 4 pairs and keeps 1, forks; the
 *                                 child makes 1 (kept) and writes
 *                                 DIR/child.snap; the parent then DIR/parent.snap
 *   event_rings storm DIR T N S   T threads make N pairs each, every 16th
 *                                 block kept until the end, while main writes
 *                                 S snapshots DIR/storm.K.snap; then
 *                                 DIR/storm.end.snap
 *   event_rings detach LIB DIR    not preloaded: attaches in-process (LIB),
 *                                 makes 3 pairs and keeps 1, detaches (its
 *                                 snapshot), attaches again, makes 1 pair and
 *                                 detaches: the second detach's snapshot
 * The blocks are 4 KiB; fakecuda hands freed addresses out again, so
 * threads reuse each other's addresses. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

int gpuleak_snapshot(const char *path) __attribute__((weak));

static void must(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "event_rings: %s failed\n", what);
        exit(1);
    }
}

static void *alloc_block(void)
{
    void *p = NULL;
    must(cudaMalloc(&p, 4096) == cudaSuccess, "cudaMalloc");
    return p;
}

static void pairs(long n)
{
    for (long i = 0; i < n; i++)
        must(cudaFree(alloc_block()) == cudaSuccess, "cudaFree");
}

static void snapshot(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    must(gpuleak_snapshot != NULL && gpuleak_snapshot(path) == 0, "gpuleak_snapshot");
}

static void *exiting_thread(void *arg)
{
    for (int i = 0; i < 5; i++)
        alloc_block();
    pairs(3);
    return arg;
}

static int run_exit(const char *dir)
{
    pairs(1);
    pthread_t t;
    must(pthread_create(&t, NULL, exiting_thread, NULL) == 0, "pthread_create");
    pthread_join(t, NULL);
    snapshot(dir, "exit.snap");
    return 0;
}

static int run_fork(const char *dir)
{
    pairs(4);
    alloc_block();
    pid_t pid = fork();
    must(pid >= 0, "fork");
    if (pid == 0) {
        alloc_block();
        snapshot(dir, "child.snap");
        _exit(0);
    }
    int status;
    must(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "child");
    snapshot(dir, "parent.snap");
    return 0;
}

static long storm_n;
static atomic_int storm_done;

static void *storm_thread(void *arg)
{
    void **kept = calloc((size_t)storm_n / 16 + 1, sizeof *kept);
    long k = 0;
    for (long i = 0; i < storm_n; i++) {
        void *p = alloc_block();
        if (i % 16 == 0 && kept != NULL)
            kept[k++] = p;
        else
            must(cudaFree(p) == cudaSuccess, "cudaFree");
    }
    atomic_fetch_add(&storm_done, 1);
    while (atomic_load(&storm_done) >= 0) /* keep them until main says */
        usleep(1000);
    for (long i = 0; i < k; i++)
        must(cudaFree(kept[i]) == cudaSuccess, "cudaFree kept");
    free(kept);
    return arg;
}

static int run_storm(const char *dir, int threads, long n, int snaps)
{
    storm_n = n;
    pthread_t t[64];
    must(threads > 0 && threads <= 64, "thread count");
    for (int i = 0; i < threads; i++)
        must(pthread_create(&t[i], NULL, storm_thread, NULL) == 0, "pthread_create");
    char name[64];
    for (int s = 0; s < snaps; s++) {
        snprintf(name, sizeof name, "storm.%d.snap", s);
        snapshot(dir, name);
        usleep(2000);
    }
    while (atomic_load(&storm_done) < threads)
        usleep(1000);
    snapshot(dir, "storm.held.snap"); /* every thread's kept blocks live */
    atomic_store(&storm_done, -1);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    snapshot(dir, "storm.end.snap");
    return 0;
}

static int run_detach(const char *lib, const char *dir)
{
    void *h = dlopen(lib, RTLD_NOW);
    must(h != NULL, "dlopen");
    int (*begin)(const char *) = (int (*)(const char *))dlsym(h, "gpuleak_attach_begin");
    int (*end)(void) = (int (*)(void))dlsym(h, "gpuleak_attach_end");
    must(begin != NULL && end != NULL, "dlsym");
    char config[4200];
    snprintf(config, sizeof config, "GPULEAK_OUTPUT=%s/\n", dir);
    must(begin(config) == 0, "attach");
    pairs(3);
    alloc_block();
    must(end() == 0, "detach");
    must(begin(config) == 0, "attach again");
    pairs(1);
    must(end() == 0, "detach again");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "exit"))
        return run_exit(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "fork"))
        return run_fork(argv[2]);
    if (argc == 6 && !strcmp(argv[1], "storm"))
        return run_storm(argv[2], atoi(argv[3]), atol(argv[4]), atoi(argv[5]));
    if (argc == 4 && !strcmp(argv[1], "detach"))
        return run_detach(argv[2], argv[3]);
    fprintf(stderr, "usage: event_rings exit|fork|storm|detach ...\n");
    return 2;
}
