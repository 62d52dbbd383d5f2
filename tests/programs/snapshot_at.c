/* Two snapshots at known steps of a process (tests/t_html_marks.sh):
 * `snapshot_at FIRST.snap SECOND.snap` allocates 1 MiB, sleeps 50 ms,
 * takes FIRST, allocates 1 MiB more, sleeps 30 ms, takes SECOND and exits
 * without freeing.  The page of SECOND shows both snapshots on its
 * timeline: each mark must say which snapshot it is and sit at the time
 * that snapshot was taken. */
#include <stdio.h>
#include <time.h>

#include <cuda_runtime_api.h>

int gpuleak_snapshot(const char *path) __attribute__((weak));

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    void *a = NULL, *b = NULL;
    if (argc != 3 || !gpuleak_snapshot) {
        fputs("usage: snapshot_at FIRST.snap SECOND.snap, under libgpuleak.so\n", stderr);
        return 2;
    }
    if (cudaMalloc(&a, 1 << 20) != cudaSuccess)
        return 1;
    sleep_ms(50);
    if (gpuleak_snapshot(argv[1]) != 0 || cudaMalloc(&b, 1 << 20) != cudaSuccess)
        return 1;
    sleep_ms(30);
    return gpuleak_snapshot(argv[2]) == 0 ? 0 : 1;
}
