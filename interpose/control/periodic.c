#include "control/periodic.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/internal.h"
#include "base/log.h"
#include "control/take.h"
#include "snapshot_format.h"

#define MAX_INTERVAL_MS (30ull * 24 * 3600 * 1000) /* 30 days */
#define MIN_INTERVAL_MS 100ull
#define MAX_KEEP 10000

static uint64_t interval_ms; /* 0: off */
static long keep = GL_PERIODIC_DEFAULT_KEEP; /* 0: keep all */
static uint64_t due_ns;

/* The files of this series still on disk, oldest first; [0] is the first of
 * the series once written.  Only what this process wrote and still finds
 * unchanged (same device and inode) is ever removed. */
static struct gl_snapshot_file *kept;
static long nkept;

void gl_periodic_configure(void)
{
    static atomic_bool warned_interval, warned_keep;
    const char *iv = gl_getenv("GPULEAK_INTERVAL");
    interval_ms = 0;
    if (iv != NULL && *iv != '\0' && strcmp(iv, "0") != 0 &&
        !gl_parse_duration_ms(iv, MIN_INTERVAL_MS, MAX_INTERVAL_MS, &interval_ms)) {
        gl_warn_once(&warned_interval,
                     "ignoring GPULEAK_INTERVAL=%.40s: not a duration from 100ms to 30 days "
                     "(e.g. 90s, 10m, 2h); no periodic snapshots", iv);
        interval_ms = 0;
    }
    const char *kv = gl_getenv("GPULEAK_KEEP");
    long k;
    if (kv != NULL && *kv != '\0') {
        if (gl_parse_long(kv, 0, MAX_KEEP, &k) && k != 1)
            keep = k;
        else
            gl_warn_once(&warned_keep, "ignoring GPULEAK_KEEP=%.40s: not 0 (all) or 2 to %d; keeping %d",
                         kv, MAX_KEEP, GL_PERIODIC_DEFAULT_KEEP);
    }
    due_ns = interval_ms ? gl_mono_ns() + interval_ms * 1000000u : 0;
}

uint64_t gl_periodic_wait_ms(void)
{
    if (interval_ms == 0)
        return UINT64_MAX;
    uint64_t now = gl_mono_ns();
    return now >= due_ns ? 0 : (due_ns - now + 999999u) / 1000000u;
}

static void forget_oldest_but_first(void)
{
    struct gl_snapshot_file *f = &kept[1];
    struct stat st;
    /* Removed only if it is still the file we wrote: a file put there since
     * (renamed over it, or a link) is somebody else's. */
    if (fstatat(AT_FDCWD, f->path, &st, AT_SYMLINK_NOFOLLOW) == 0 && (uint64_t)st.st_dev == f->dev &&
        (uint64_t)st.st_ino == f->ino)
        unlink(f->path);
    memmove(&kept[1], &kept[2], (size_t)(nkept - 2) * sizeof *kept);
    nkept--;
}

void gl_periodic_run(void)
{
    if (interval_ms == 0)
        return;
    uint64_t step = interval_ms * 1000000u;
    due_ns += step;
    uint64_t now = gl_mono_ns();
    if (due_ns <= now) /* fell behind (a stopped process): no catch-up burst */
        due_ns = now + step;

    if (keep > 0 && kept == NULL && (kept = calloc((size_t)keep + 1, sizeof *kept)) == NULL)
        return; /* cannot promise the bound on disk: skip this one */
    struct gl_snapshot_file written;
    /* Only files this process created are counted and removed: a device
     * or FIFO written in place (GPULEAK_OUTPUT=/dev/null) is never removed. */
    if (gl_take_snapshot(GL_REASON_PERIODIC, 0, NULL, NULL, &written) != 0 || keep == 0 || !written.ours)
        return;
    kept[nkept++] = written;
    if (nkept > keep)
        forget_oldest_but_first();
}

void gl_periodic_postfork_child(void)
{
    nkept = 0; /* the parent's files are the parent's; the array is reused */
    due_ns = interval_ms ? gl_mono_ns() + interval_ms * 1000000u : 0;
}
