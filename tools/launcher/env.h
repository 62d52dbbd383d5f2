/* The environment a tracked command gets: the preload, the Python
 * helper's directory, the NVTX injection, and --torch-per-tensor's
 * PyTorch backend; and the rank the library reads for %r. */
#ifndef GL_LAUNCHER_ENV_H
#define GL_LAUNCHER_ENV_H

#include <stdbool.h>

/* LD_PRELOAD gets libgpuleak.so first; PYTHONPATH ../lib/python last (the
 * user's modules still come first); NVTX_INJECTION64_PATH the NVTX
 * library beside libgpuleak.so unless set (even empty: none at all). */
void setup_env(void);

/* PYTORCH_CUDA_ALLOC_CONF gets backend:cudaMallocAsync merged in; dies
 * naming `what` when the user set another backend there or in
 * PYTORCH_ALLOC_CONF. */
void torch_per_tensor(const char *what);

/* The rank the library reads for %r (outfile.c): the first of RANK,
 * OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID, LOCAL_RANK that
 * is a number from 0 to 2^31-1, as digits; NULL when none is. */
char *env_rank(void);

/* The digits of a rank variable's value, or NULL when it is not one. */
char *rank_value(const char *v);

#endif
