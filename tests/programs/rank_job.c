/* One rank of a job started by a real launcher (tests/t_cluster_mpirun.sh,
 * tests/t_cluster_metrics.sh): `rank_job LEAKY [HOLD_FILE]`.
 * It reads its rank as the launcher gave it (Open MPI's
 * OMPI_COMM_WORLD_RANK, else torchrun's RANK) and its local rank as a job
 * script sets it (LOCAL_RANK, else OMPI_COMM_WORLD_LOCAL_RANK), works on
 * device LOCAL_RANK, as a training rank does, and:
 *   - frees a 2 MiB work buffer (no leak);
 *   - keeps 1 MiB per kept buffer: one on every rank, four on rank LEAKY,
 *     all from keep_buffer() (one site, uneven across the ranks).
 * With HOLD_FILE it prints "ready RANK PID DEVICE" once everything is
 * allocated, then waits (at most 60 s) for HOLD_FILE to exist before it
 * exits, so that a test can read its figures while they hold still.
 * It does not link MPI: only the launcher's environment matters here. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)

/* The first of the variables $1, $2 that is set, as a number; else 0. */
static int env_int(const char *first, const char *second)
{
    const char *v = getenv(first);
    if (v == NULL)
        v = getenv(second);
    return v ? atoi(v) : 0;
}

static void *keep_buffer(void)
{
    void *p = NULL;
    cudaMalloc(&p, MiB); /* RANK-SITE: keep_buffer */
    return p;
}

static void work(void)
{
    void *p = NULL;
    if (cudaMalloc(&p, 2 * MiB) == cudaSuccess)
        cudaFree(p);
}

/* Up to 60 s for PATH to exist: a test that dies never leaves ranks behind
 * for long. */
static void hold_until(const char *path)
{
    const struct timespec tick = {0, 20 * 1000 * 1000};
    for (int i = 0; i < 3000 && access(path, F_OK) != 0; i++)
        nanosleep(&tick, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: rank_job LEAKY [HOLD_FILE]\n");
        return 2;
    }
    int rank = env_int("OMPI_COMM_WORLD_RANK", "RANK");
    int local = env_int("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK");
    if (cudaSetDevice(local) != cudaSuccess) {
        fprintf(stderr, "rank %d: no device %d\n", rank, local);
        return 1;
    }
    work();
    int kept = rank == atoi(argv[1]) ? 4 : 1;
    for (int i = 0; i < kept; i++)
        keep_buffer();
    if (argc > 2) {
        printf("ready %d %d %d\n", rank, (int)getpid(), local);
        fflush(stdout);
        hold_until(argv[2]);
    }
    return 0;
}
