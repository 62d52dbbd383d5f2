/* The card profile FAKECUDA_GPU selects, from the table the build made of
 * gpus.tsv.  Read once; linked into libcuda.so.1 and libnvidia-ml.so.1,
 * which answer for the same card. */
#include "fc_gpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const struct fc_gpu fc_gpus[] = {
#define FC_GPU(profile, name, major, minor, sms, l2, total, ctx) {profile, name, major, minor, sms, l2, total, ctx},
#include "fc_gpus.h"
#undef FC_GPU
};

static const struct fc_gpu *chosen;
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;

static void choose(void)
{
    const char *want = getenv("FAKECUDA_GPU");
    if (!want || !*want)
        return;
    for (size_t i = 0; i < sizeof fc_gpus / sizeof fc_gpus[0]; i++)
        if (strcmp(fc_gpus[i].profile, want) == 0)
            chosen = &fc_gpus[i];
}

const struct fc_gpu *fc_gpu_profile(void)
{
    pthread_once(&chosen_once, choose);
    return chosen;
}
