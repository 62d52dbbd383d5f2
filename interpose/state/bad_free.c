#include "state/bad_free.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "base/lock.h"
#include "capture/stacks.h"
#include "snapshot_format.h"
#include "state/stack_table.h"

/* A rare path (a bug in the program, or memory gpuleak could not see), so a
 * plain array under a mutex; never taken in a signal handler (snapshots are
 * written on the writer thread). */
static struct gl_lock lock = GL_LOCK_INIT(BAD_FREE);
static struct gl_bad_free table[GL_BAD_FREE_MAX];
static size_t used;

void gl_bad_free_note(int32_t device, uint64_t key, uint16_t api, bool rejected, const struct gl_stack *st)
{
    int saved = errno;
    if (st == NULL) {
        struct gl_capture cap;
        gl_stack_capture(&cap);
        st = gl_stack_intern(&cap);
    }
    uint32_t stack_id = st ? st->id : 0;
    uint64_t now = gl_mono_ns() - gl_start_mono_ns;
    gl_lock(&lock);
    size_t i = 0;
    while (i < used && !(table[i].stack_id == stack_id && table[i].api == api &&
                         table[i].rejected == rejected && table[i].device == device))
        i++;
    if (i < used) {
        table[i].count++;
    } else if (used < GL_BAD_FREE_MAX) {
        table[used++] = (struct gl_bad_free){.ptr = key, .count = 1, .time_ns = now, .stack_id = stack_id,
                                             .device = device, .api = api, .rejected = rejected};
    }
    gl_unlock(&lock);
    errno = saved;
}

struct gl_bad_free *gl_bad_free_copy(size_t *n)
{
    gl_lock(&lock);
    *n = used;
    struct gl_bad_free *out = used ? malloc(used * sizeof *out) : NULL;
    if (out != NULL)
        memcpy(out, table, used * sizeof *out);
    else
        *n = 0;
    gl_unlock(&lock);
    return out;
}

void gl_bad_free_reset(void)
{
    gl_lock(&lock);
    used = 0;
    gl_unlock(&lock);
}

void gl_bad_free_postfork_child(void)
{
    /* Another thread may have held it at fork: the child starts over with
     * the entries it inherited. */
    gl_lock_init(&lock, GL_LOCK_BAD_FREE, 0);
}
