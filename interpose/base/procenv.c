#include "base/procenv.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

const char *const gl_env_names[] = {
    "PYTORCH_NO_CUDA_MEMORY_CACHING", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF",
    "CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING", "CUPY_GPU_MEMORY_LIMIT", "CUPY_CUDA_PER_THREAD_DEFAULT_STREAM",
    "TF_FORCE_GPU_ALLOW_GROWTH", "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_ALLOCATOR",
};
#define NAMES (sizeof gl_env_names / sizeof gl_env_names[0])
_Static_assert(NAMES <= 16, "struct gl_env_set holds 16");

/* Two sets, each written once before it is published: a snapshot (possibly
 * from a signal handler) only ever sees a complete one. */
static struct gl_env_set at_start, at_first_alloc;
static _Atomic(const struct gl_env_set *) current = &at_start;
static atomic_bool first_alloc_seen;

static void capture(struct gl_env_set *set)
{
    set->count = NAMES;
    for (size_t i = 0; i < NAMES; i++) {
        /* getenv races only with a setenv running in another thread at this
         * very moment, the same race the program's own allocator runs now. */
        const char *v = getenv(gl_env_names[i]);
        set->present[i] = v != NULL;
        if (v != NULL)
            snprintf(set->values[i], sizeof set->values[i], "%s", v);
    }
}

void gl_env_capture_initial(void)
{
    capture(&at_start);
    atomic_store(&current, &at_start);
}

void gl_env_note_allocation(void)
{
    if (atomic_load_explicit(&first_alloc_seen, memory_order_relaxed) ||
        atomic_exchange(&first_alloc_seen, true))
        return;
    capture(&at_first_alloc);
    atomic_store(&current, &at_first_alloc);
}

const struct gl_env_set *gl_env_current(void) { return atomic_load(&current); }
