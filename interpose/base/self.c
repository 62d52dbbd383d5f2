/* This library and this thread, as every layer needs them: the start
 * times, the thread id, and libgpuleak's own address range (the hook depth
 * and busy counts are base/busy.c's, which the loader walk this file uses
 * needs).  Definitions only; when tracking starts is control/lifecycle.c's
 * business. */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/modules.h"
#include "base/self.h"

_Atomic uint64_t gl_start_mono_ns; /* written once, before or at activation; atomic so no thread reads it torn (TSan) */
_Atomic uint64_t gl_start_unix_ns;

/* libgpuleak's own address range.  Found by the constructor, or on demand by
 * whichever thread needs it first (dlsym before our constructor, a thread
 * racing it): atomics, start stored before end, so a reader that sees the end
 * sees the start, and two finders write the same values without a data race. */
static _Atomic uintptr_t own_start, own_end;

static void find_own_range(uintptr_t probe)
{
    uintptr_t start, end;
    if (gl_module_range_of(probe, &start, &end) != 0)
        return;
    atomic_store(&own_start, start);
    atomic_store(&own_end, end);
}

static GL_TLS uint32_t cached_tid;
static GL_TLS pid_t cached_tid_pid;

uint32_t gl_gettid(void)
{
    /* Cached per thread; re-read after fork, where the child's only thread
     * keeps the TLS of the forking thread but has a new id. */
    pid_t pid = getpid();
    if (cached_tid == 0 || cached_tid_pid != pid) {
        cached_tid = (uint32_t)syscall(SYS_gettid);
        cached_tid_pid = pid;
    }
    return cached_tid;
}

void gl_own_range(uintptr_t *start, uintptr_t *end)
{
    /* dlsym can be called before our constructor has run (by the
     * constructor of a library loaded earlier): find the range on demand. */
    if (atomic_load(&own_end) == 0)
        find_own_range((uintptr_t)&gl_own_range);
    *end = atomic_load(&own_end);
    *start = *end != 0 ? atomic_load(&own_start) : 0;
}

bool gl_is_own_address(uintptr_t addr)
{
    uintptr_t start, end;
    gl_own_range(&start, &end);
    return addr - start < end - start; /* start <= addr < end; empty: never */
}

void gl_self_init(void)
{
    if (gl_start_mono_ns == 0) { /* called before our constructor ran */
        gl_start_mono_ns = gl_mono_ns();
        gl_start_unix_ns = gl_unix_ns();
    }
    if (atomic_load(&own_end) == 0)
        find_own_range((uintptr_t)&gl_self_init);
}

__attribute__((constructor)) static void gl_on_load(void)
{
    gl_start_mono_ns = gl_mono_ns();
    gl_start_unix_ns = gl_unix_ns();
    /* Our own address range is needed before any hook can resolve or unwind;
     * finding it touches no CUDA state and allocates nothing. */
    find_own_range((uintptr_t)&gl_on_load);
}
