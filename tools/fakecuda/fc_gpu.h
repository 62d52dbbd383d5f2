/* Card profiles (gpus.tsv, one row per card, turned into fc_gpus.h at build
 * time): FAKECUDA_GPU=NAME (set by fakecuda-run --gpu NAME) makes the
 * driver, the runtime that reads it and NVML answer as that card. */
#ifndef FC_GPU_H
#define FC_GPU_H

#include <stddef.h>

struct fc_gpu {
    const char *profile;     /* "h100-sxm-80gb" */
    const char *name;        /* "NVIDIA H100 80GB HBM3", as cuDeviceGetName */
    int cc_major, cc_minor;  /* compute capability */
    int sms;                 /* multiprocessors */
    int l2_bytes;            /* L2 cache */
    unsigned long long total_bytes; /* cuDeviceTotalMem */
    unsigned long long ctx_bytes;   /* a context's own device memory */
};

/* The profile FAKECUDA_GPU names, or NULL (unset, or a name no row has:
 * fakecuda-run refuses those before the program starts). */
const struct fc_gpu *fc_gpu_profile(void);

#endif
