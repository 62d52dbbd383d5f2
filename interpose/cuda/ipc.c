#include "cuda/ipc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "base/internal.h"
#include "base/lock.h"
#include "base/ut.h"
#include "snapshot_format.h"
#include "state/track.h"

/* References beyond the first open, per mapped address.  Rare (a consumer
 * that opens the same handle twice), so a plain locked hash.  The lock also
 * serialises each open's "already mapped?" decision with its record, so two
 * threads opening the same handle at once make one record and one extra. */
struct extra {
    uint64_t ptr; /* key */
    uint64_t opens;
    UT_hash_handle hh;
};

static struct gl_lock ipc_lock = GL_LOCK_INIT(IPC);
static struct extra *extras;

static struct extra *find(uint64_t ptr)
{
    struct extra *e;
    HASH_FIND(hh, extras, &ptr, sizeof ptr, e);
    return e;
}

static void drop(struct extra *e)
{
    HASH_DEL(extras, e);
    free(e);
}

/* One more reference on ptr; false if memory ran out (then the mapping is
 * reported closed one close early: never a crash, never a wrong return). */
static bool add_ref(uint64_t ptr)
{
    struct extra *e = find(ptr);
    if (e == NULL) {
        e = calloc(1, sizeof *e);
        if (e == NULL)
            return false;
        e->ptr = ptr;
        gl_ut_oom = false;
        HASH_ADD(hh, extras, ptr, sizeof e->ptr, e);
        if (gl_ut_oom) {
            free(e);
            return false;
        }
    }
    e->opens++;
    return true;
}

void gl_ipc_opened(struct gl_where w, uint64_t ptr, uint16_t api)
{
    int saved = errno;
    uint64_t size = gl_where_mapping_size(ptr); /* a driver call: outside the lock */
    gl_lock(&ipc_lock);
    if (gl_track_kind_of(GL_SPACE_ADDR, ptr) == GL_KIND_IPC) {
        add_ref(ptr);
    } else {
        /* First open.  A count left from an earlier mapping at this address
         * is stale: that mapping went with its context, without a close. */
        struct extra *e = find(ptr);
        if (e != NULL)
            drop(e);
        gl_call_alloc(w, ptr, size, 0, GL_KIND_IPC, api, GL_SPACE_ADDR);
    }
    gl_unlock(&ipc_lock);
    errno = saved;
}

void gl_ipc_imported(struct gl_where w, uint64_t ptr, uint16_t api)
{
    int saved = errno;
    gl_call_alloc(w, ptr, gl_where_mapping_size(ptr), 0, GL_KIND_IPC, api, GL_SPACE_ADDR);
    errno = saved;
}

void gl_ipc_close_begin(struct gl_ipc_close *c, uint64_t ptr)
{
    int saved = errno;
    c->r = NULL;
    c->extra = false;
    gl_lock(&ipc_lock);
    struct extra *e = find(ptr);
    if (e != NULL && gl_track_kind_of(GL_SPACE_ADDR, ptr) == GL_KIND_IPC) {
        c->extra = true;
        if (--e->opens == 0)
            drop(e);
    } else {
        c->r = gl_call_free_begin(GL_SPACE_ADDR, ptr);
    }
    gl_unlock(&ipc_lock);
    errno = saved;
}

void gl_ipc_close_end(struct gl_ipc_close *c, uint64_t ptr, bool ok, int32_t device_if_unknown, uint16_t api)
{
    int saved = errno;
    if (c->extra) {
        if (!ok) { /* the reference was not used up after all */
            gl_lock(&ipc_lock);
            add_ref(ptr);
            gl_unlock(&ipc_lock);
        }
    } else {
        gl_call_free_end_api(c->r, ok, device_if_unknown, ptr, api);
    }
    errno = saved;
}

void gl_ipc_postfork_child(void)
{
    /* The parent's mappings are not the child's, and its lock may have been
     * held by a thread that does not exist here. */
    struct extra *e, *tmp;
    HASH_ITER(hh, extras, e, tmp) {
        HASH_DEL(extras, e);
        free(e);
    }
    gl_lock_init(&ipc_lock, GL_LOCK_IPC, 0);
}
