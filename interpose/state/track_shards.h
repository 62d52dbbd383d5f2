/* The live table's storage: 64 shards of records, each behind its lock,
 * defined in track.c (which inserts, finds and removes records), read whole
 * in the exclusive section by track_copy.c and emptied by track_reset.c.
 * Private to those three files: everything else goes through track.h,
 * track_copy.h and track_reset.h. */
#ifndef GL_TRACK_SHARDS_H
#define GL_TRACK_SHARDS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/lock.h"
#include "state/track.h"
#include "state/track_copy.h" /* struct gl_watch_oom */

#define GL_TRACK_SHARDS 64

/* A record's state (struct gl_live's state). */
enum { GL_REC_FREE = 0, GL_REC_LIVE = 1, GL_REC_TAKEN = 2 };

/* Records are carved from 64 KiB slabs (no per-record malloc header) and
 * recycled through the shard's free list; slabs are kept for reuse.  Each
 * shard's table chains records through ->next from a power-of-two bucket
 * array kept between 1 and 2 records per bucket: 4 to 8 bytes per record. */
#define GL_TRACK_SLAB_RECORDS ((65536 - 16) / sizeof(struct gl_live))
struct gl_track_slab {
    struct gl_track_slab *next;
    size_t used; /* records carved so far */
    struct gl_live recs[GL_TRACK_SLAB_RECORDS];
};

struct gl_track_shard {
    struct gl_lock lock;
    struct gl_live **buckets;
    size_t nbuckets; /* 0 or a power of two */
    size_t count;
    struct gl_live *free_list;
    struct gl_track_slab *slabs; /* newest first; only the first has room left */
    struct gl_track_slab *spare; /* emptied by a detach, kept for reuse (gl_track_reset) */
    uint64_t last_tick; /* the tick of its last event's stamp (events.h) */
} __attribute__((aligned(64))); /* one cache line each: no false sharing */

extern struct gl_track_shard gl_track_shards[GL_TRACK_SHARDS];
/* The last out-of-memory errors, for the live view (gl_track_watch_copy):
 * gl_track_oom_next counts them all, the ring keeps the last few. */
extern struct gl_watch_oom gl_track_oom_ring[GL_WATCH_OOMS];
extern _Atomic uint64_t gl_track_oom_next;

#endif
