#include "state/track_reset.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/lock.h"
#include "state/account.h"
#include "state/events.h"
#include "state/history.h"
#include "state/lanes.h"
#include "state/stack_table.h"
#include "state/track_shards.h"

static void free_slabs(struct gl_track_slab *sl)
{
    for (struct gl_track_slab *next; sl != NULL; sl = next) {
        next = sl->next;
        free(sl);
    }
}

/* Empties a shard, keeping its memory: its slabs go to the spare list,
 * its buckets are cleared.  Freeing them would leave holes in the
 * program's heap that its own small allocations are then carved from,
 * slower (docs/attach.md "Cost").  The caller holds the shard's lock. */
static void shard_empty_keep(struct gl_track_shard *sh)
{
    while (sh->slabs != NULL) {
        struct gl_track_slab *sl = sh->slabs;
        sh->slabs = sl->next;
        sl->used = 0;
        sl->next = sh->spare;
        sh->spare = sl;
    }
    if (sh->buckets != NULL)
        memset(sh->buckets, 0, sh->nbuckets * sizeof *sh->buckets);
    sh->count = 0;
    sh->free_list = NULL;
}

void gl_track_reset(void)
{
    /* Every lane held: no event is between its lane's enter and leave, and
     * nothing reads a slab, a bucket, a site or the ring outside a lane
     * except gl_track_kind_of (and the unit test's shape), which hold the
     * shard's lock: taken here too.  A hook in flight (it passed gl_enter
     * before tracking turned off) meets empty tables after: its record is
     * a copy (taken), its stack is never freed.  Nothing is freed. */
    gl_exclusive_enter();
    gl_acct_revoke_all();
    gl_lanes_flush_tallies();
    gl_stacks_zero_counts();
    gl_acct_reset();
    for (int i = 0; i < GL_TRACK_SHARDS; i++) {
        gl_lock(&gl_track_shards[i].lock);
        shard_empty_keep(&gl_track_shards[i]);
        gl_unlock(&gl_track_shards[i].lock);
    }
    gl_events_forget();
    atomic_store(&gl_track_oom_next, 0);
    gl_exclusive_leave();
}

void gl_track_prefork(void)
{
    gl_lanes_prefork();
    gl_events_merge_held(gl_track_number_records); /* the parent keeps its events; the child starts empty */
    gl_stacks_lock();
}

void gl_track_postfork_parent(void)
{
    gl_stacks_unlock();
    gl_lanes_postfork_parent();
}

void gl_track_postfork_child(void)
{
    /* Only this thread exists now, so nothing else can touch the tables
     * while they are emptied.  The parent's device memory is not ours. */
    for (int i = 0; i < GL_TRACK_SHARDS; i++) {
        struct gl_track_shard *sh = &gl_track_shards[i];
        free_slabs(sh->slabs);
        free_slabs(sh->spare);
        free(sh->buckets);
        sh->slabs = sh->spare = NULL;
        sh->buckets = NULL;
        sh->nbuckets = sh->count = 0;
        sh->free_list = NULL;
        gl_lock_init(&sh->lock, GL_LOCK_SHARD, 0);
    }
    gl_acct_postfork_child();
    atomic_store(&gl_track_oom_next, 0);
    gl_stacks_reinit_lock();
    gl_events_postfork_child();
    gl_lanes_postfork_child();
}
