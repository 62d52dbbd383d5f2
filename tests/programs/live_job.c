/* A long job for the live view (tests/t_live_top.sh): keeps a steady
 * buffer, then grows by 1 MiB from grow_step() each time it reads a line on
 * stdin ("grow"), makes one allocation CUDA refuses ("oom"), frees the
 * steady buffer ("free"), and exits at end of input.  Each step prints a
 * line when done, so the test knows where the job is without sleeping. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

static void *kept[64];
static int nkept;

static void *steady(void)
{
    void *p = NULL;
    cudaMalloc(&p, 4 * MiB); /* LIVE-SITE: steady */
    return p;
}

static void grow_step(void)
{
    if (nkept < 64)
        cudaMalloc(&kept[nkept++], MiB); /* LIVE-SITE: grow */
}

static void refused(void)
{
    void *p;
    cudaMalloc(&p, (size_t)1 << 50); /* LIVE-SITE: oom */
}

int main(void)
{
    void *s = steady();
    char line[64];
    printf("ready\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (!strncmp(line, "grow", 4))
            grow_step();
        else if (!strncmp(line, "oom", 3))
            refused();
        else if (!strncmp(line, "free", 4) && s != NULL) {
            cudaFree(s);
            s = NULL;
        }
        printf("done %s", line);
        fflush(stdout);
    }
    return 0;
}
