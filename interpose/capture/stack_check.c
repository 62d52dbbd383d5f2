#include "capture/stack_check.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/xfsz.h"

/* Process-wide and shared by threads: only counted in check mode, which
 * walks every stack twice anyway. */
static _Atomic uint64_t hits, misses, uncached, plain, fallbacks, checks, mismatches;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A child's counts start at zero: its parent reports its own. */
static void reset_in_child(void)
{
    atomic_store(&hits, 0);
    atomic_store(&misses, 0);
    atomic_store(&uncached, 0);
    atomic_store(&plain, 0);
    atomic_store(&fallbacks, 0);
    atomic_store(&checks, 0);
    atomic_store(&mismatches, 0);
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, reset_in_child);
}

/* One line, O_APPEND: lines of concurrent processes do not interleave.  A
 * write past the host's RLIMIT_FSIZE fails instead of killing it. */
static void append_line(const char *line, size_t len)
{
    struct gl_xfsz xfsz;
    gl_nocancel_begin(); /* open, write, close, xfsz's sigtimedwait: cancellation points */
    gl_xfsz_block(&xfsz);
    int fd = open(gl_config.stack_check, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, line, len);
        (void)w;
        close(fd);
    }
    gl_xfsz_restore(&xfsz);
    gl_nocancel_end();
}

void gl_stack_check_count(enum gl_stack_walk_kind kind, int fell_back)
{
    pthread_once(&atfork_once, register_atfork);
    if (fell_back && kind == GL_WALK_PLAIN)
        atomic_fetch_add_explicit(&plain, 1, memory_order_relaxed);
    else if (fell_back)
        atomic_fetch_add_explicit(&fallbacks, 1, memory_order_relaxed);
    else if (kind == GL_WALK_HIT)
        atomic_fetch_add_explicit(&hits, 1, memory_order_relaxed);
    else if (kind == GL_WALK_MISS)
        atomic_fetch_add_explicit(&misses, 1, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&uncached, 1, memory_order_relaxed);
}

static const char *kind_name(enum gl_stack_walk_kind kind)
{
    return kind == GL_WALK_HIT ? "hit" : kind == GL_WALK_MISS ? "miss" : "uncached";
}

void gl_stack_check_compare(enum gl_stack_walk_kind kind, const uintptr_t *got, uint32_t ngot,
                            const uintptr_t *want, uint32_t nwant)
{
    atomic_fetch_add_explicit(&checks, 1, memory_order_relaxed);
    uint32_t i = 0;
    while (i < ngot && i < nwant && got[i] == want[i])
        i++;
    if (i == ngot && i == nwant)
        return;
    atomic_fetch_add_explicit(&mismatches, 1, memory_order_relaxed);
    char line[256];
    int len = snprintf(line, sizeof line,
                       "mismatch pid=%d kind=%s depth=%u/%u frame=%u cached=%#lx walked=%#lx\n",
                       (int)getpid(), kind_name(kind), ngot, nwant, i,
                       i < ngot ? (unsigned long)got[i] : 0ul, i < nwant ? (unsigned long)want[i] : 0ul);
    if (len > 0)
        append_line(line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
}

/* At exit, whatever else runs then: the process's counts, one line. */
__attribute__((destructor)) static void report_counts(void)
{
    if (gl_config.stack_check[0] == '\0')
        return;
    char line[256];
    int len = snprintf(line, sizeof line,
                       "stats pid=%d hits=%llu misses=%llu uncached=%llu plain=%llu fallbacks=%llu "
                       "checks=%llu mismatches=%llu\n",
                       (int)getpid(), (unsigned long long)atomic_load(&hits),
                       (unsigned long long)atomic_load(&misses), (unsigned long long)atomic_load(&uncached),
                       (unsigned long long)atomic_load(&plain),
                       (unsigned long long)atomic_load(&fallbacks), (unsigned long long)atomic_load(&checks),
                       (unsigned long long)atomic_load(&mismatches));
    if (len > 0)
        append_line(line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
}
