/* A running process for `gpuleak snapshot PID` to act on
 * (tests/t_launcher_snapshot.sh).  Each mode leaks 1000 bytes with its first
 * CUDA call, prints "ready" on stdout, then:
 *   sleep MS        one nanosleep of MS, not restarted: exits 3 (printing
 *                   "interrupted") if a signal cut it short, else 0
 *   dfl MS          sets SIGUSR1 back to SIG_DFL first, then sleeps MS
 *   own MS          has its own SIGUSR1 handler from before the CUDA call
 *                   (gpuleak leaves the signal to it), then sleeps MS
 *   chdir DIR MS    changes to DIR first, then sleeps MS
 *   exit-after DIR  exits (0) as soon as a new entry appears in DIR */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

static void own_usr1(int sig)
{
    (void)sig;
    static const char msg[] = "own handler ran\n";
    if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0) /* async-signal-safe */
        return;
}

static struct timespec ms_to_ts(long ms) { return (struct timespec){ms / 1000, (ms % 1000) * 1000000L}; }

static void ready(void)
{
    printf("ready\n");
    fflush(stdout);
}

static void sleep_all(long ms)
{
    struct timespec ts = ms_to_ts(ms);
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: snapshot_target sleep MS | dfl MS | own MS | chdir DIR MS | exit-after DIR\n");
        return 2;
    }
    const char *mode = argv[1];
    if (!strcmp(mode, "own"))
        signal(SIGUSR1, own_usr1);
    void *p;
    if (cudaMalloc(&p, 1000) != cudaSuccess) /* LEAK-SITE: snapshot_target */
        return 1;
    if (!strcmp(mode, "sleep")) {
        ready();
        struct timespec ts = ms_to_ts(atol(argv[2]));
        if (nanosleep(&ts, NULL) != 0) {
            printf("interrupted (%s)\n", strerror(errno));
            return 3;
        }
        return 0;
    }
    if (!strcmp(mode, "dfl") || !strcmp(mode, "own")) {
        if (!strcmp(mode, "dfl"))
            signal(SIGUSR1, SIG_DFL);
        ready();
        sleep_all(atol(argv[2]));
        return 0;
    }
    if (!strcmp(mode, "chdir") && argc > 3) {
        if (chdir(argv[2]) != 0)
            return 1;
        ready();
        sleep_all(atol(argv[3]));
        return 0;
    }
    if (!strcmp(mode, "exit-after")) {
        int before = entries(argv[2]);
        ready();
        while (entries(argv[2]) == before)
            sleep_all(1);
        return 0;
    }
    fprintf(stderr, "snapshot_target: unknown mode %s\n", mode);
    return 2;
}
