/* The environment variables that decide how the program's allocators
 * behave (PyTorch's caching, CuPy's limit, XLA's preallocation, ...),
 * recorded in every snapshot so the reporter can tell a cache from a leak. */
#ifndef GL_PROCENV_H
#define GL_PROCENV_H

#include <stdbool.h>
#include <stddef.h>

#define GL_ENV_VALUE_MAX 512

struct gl_env_set {
    size_t count;                          /* of gl_env_names */
    bool present[16];
    char values[16][GL_ENV_VALUE_MAX];
};

extern const char *const gl_env_names[];

/* At activation: what the program was started with. */
void gl_env_capture_initial(void);
/* On every tracked allocation; reads the environment again on the first
 * one only.  Allocators read their configuration when they start, i.e. just
 * before their first allocation, and scripts commonly set it in code
 * (os.environ["PYTORCH_CUDA_ALLOC_CONF"] = ... before the first tensor), so
 * the values at the first allocation are the ones the allocator obeys. */
void gl_env_note_allocation(void);
/* The newest set; safe in a signal handler (an atomic pointer load). */
const struct gl_env_set *gl_env_current(void);

#endif
