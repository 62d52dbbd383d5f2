/* One rank of a job whose ranks differ (tests/t_html_merge.sh):
 * `rank_leaks LEAKY_RANKS`, its rank from RANK (as torchrun sets it), on
 * device LOCAL_RANK.  Rank r:
 *   - keeps 1 MiB at keep_all(): one site, even across the ranks;
 *   - allocates and frees (r + 1) MiB at work(): a peak of (r + 2) MiB;
 *   - on each rank listed in LEAKY_RANKS (comma-separated), keeps 2 MiB
 *     more at leak_some(): the leak that is on some ranks only.
 * It exits without freeing: its exit snapshot holds what it kept. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v ? atoi(v) : 0;
}

static int must(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "rank_leaks: %s failed\n", what);
        exit(1);
    }
    return 0;
}

__attribute__((noinline)) static void *keep_all(void)
{
    void *p = NULL;
    must(cudaMalloc(&p, MiB), "keep_all"); /* RANK-SITE: keep_all */
    return p;
}

__attribute__((noinline)) static void work(int rank)
{
    void *p = NULL;
    must(cudaMalloc(&p, (size_t)(rank + 1) * MiB), "work");
    must(cudaFree(p), "free");
}

__attribute__((noinline)) static void *leak_some(void)
{
    void *p = NULL;
    must(cudaMalloc(&p, 2 * MiB), "leak_some"); /* RANK-SITE: leak_some */
    return p;
}

/* Whether rank is in the comma-separated list. */
static int listed(const char *list, int rank)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (atoi(t) == rank)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: rank_leaks LEAKY_RANKS\n", stderr);
        return 2;
    }
    int rank = env_int("RANK");
    must(cudaSetDevice(env_int("LOCAL_RANK")), "cudaSetDevice");
    volatile void *kept = keep_all();
    work(rank);
    volatile void *leaked = listed(argv[1], rank) ? leak_some() : NULL;
    (void)kept;
    (void)leaked;
    return 0;
}
