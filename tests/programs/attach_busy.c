/* A program that is busy while `gpuleak attach` and `detach` run on it
 * (tests/t_attach_busy.sh): its main thread allocates and frees in a tight
 * loop (so gdb stops it inside the runtime, or inside gpuleak's hooks),
 * handles SIGUSR2 (sent throughout), and forks a child every FORK_EVERY
 * pairs (default 2,000; 0: never) that allocates, frees and exits with
 * status 3.  Usage: attach_busy SECONDS EXIT [FORK_EVERY].  After SECONDS,
 * or once a file "stop" exists in its working directory, it prints
 * "usr2 N forks F bad B failed X" (bad: children that did not exit 3;
 * failed: CUDA calls that failed) and exits with EXIT.  It prints "ready"
 * once it has made its first allocation (1 MiB, kept). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

static volatile sig_atomic_t usr2;

static void on_usr2(int sig)
{
    (void)sig;
    usr2++;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int pair(void)
{
    void *p = NULL;
    return cudaMalloc(&p, 4096) == cudaSuccess && cudaFree(p) == cudaSuccess;
}

/* A child that uses CUDA and exits 3; 1 if it did not. */
static int fork_child(void)
{
    pid_t c = fork();
    if (c == 0)
        _exit(pair() ? 3 : 9);
    int st = 0;
    if (c < 0 || waitpid(c, &st, 0) != c)
        return 1;
    return !(WIFEXITED(st) && WEXITSTATUS(st) == 3);
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 2;
    int status = argc > 2 ? atoi(argv[2]) : 4;
    long fork_every = argc > 3 ? atol(argv[3]) : 2000; /* pairs between forks; 0: none */
    signal(SIGUSR2, on_usr2);
    void *kept = NULL;
    if (cudaMalloc(&kept, 1 << 20) != cudaSuccess)
        return 2;
    printf("ready\n");
    fflush(stdout);
    long forks = 0, bad = 0, failed = 0;
    double end = now_s() + secs;
    for (long i = 1; now_s() < end; i++) {
        failed += !pair();
        if (i % 1000 == 0 && access("stop", F_OK) == 0)
            break; /* the test is done with it */
        if (fork_every > 0 && i % fork_every == 0) {
            forks++;
            bad += fork_child();
        }
    }
    printf("usr2 %s forks %s bad %ld failed %ld\n", usr2 > 0 ? "some" : "none", forks > 0 ? "some" : "none",
           bad, failed);
    return status;
}
