/* Per-device accounting: live bytes and count, the peak and its exact
 * composition by call site, and the event counters.
 *
 * Exactness without a shared lock per event: a device hands out *credit*,
 * bytes of headroom below its peak, to the lanes (lanes.h) of threads that
 * keep allocating.  While its allocations stay within its credit, a lane
 * accounts them in its own memory; the device's committed bytes plus all
 * credit handed out never exceed its peak, so while any credit is out no
 * allocation can set a new peak, and nothing is lost by not looking.  An
 * allocation that might set one takes the credit back from every lane first
 * (the exclusive section), so every new peak is seen with every lane's
 * accounting applied: the peak and its composition are exact, as with one
 * lock.  A program that keeps growing never gets credit (it has no headroom)
 * and pays the device lock per event, as before.  See docs/performance.md. */
#ifndef GL_ACCOUNT_H
#define GL_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "state/track.h"
#include "state/track_copy.h"

/* Net change of one call site's live bytes on the lane's device. */
struct gl_lane_site {
    const struct gl_stack *stack;
    int64_t bytes, count;
    bool used;
};

#define GL_LANE_SITES 32

/* A lane's local accounting: all zero (credit 0) when it has none. */
struct gl_lane_acct {
    uint64_t credit; /* bytes this lane may add beyond the device's committed */
    uint64_t want;   /* the credit it asked for last time */
    int32_t dev;     /* index in the device table the credit is for */
    uint32_t nsites;
    int64_t bytes, count; /* net live change, not yet in the device */
    uint64_t allocs, frees, alloc_bytes;
    struct gl_lane_site sites[GL_LANE_SITES];
};

/* One allocation or free, as the accounting sees it.  (An allocation's seq
 * and time are only known, and only read, by gl_acct_alloc_end.) */
struct gl_acct_event {
    const struct gl_stack *stack;
    uint64_t size, seq, time_ns;
    int32_t device; /* ordinal, GL_HOST_DEVICE for host memory */
    uint8_t kind;
};

enum gl_acct_mode {
    GL_ACCT_NONE,      /* nothing to account (another process's memory) */
    GL_ACCT_LOCAL,     /* within the lane's credit */
    GL_ACCT_LOCKED,    /* on the device, whose lock is now held */
    GL_ACCT_EXCLUSIVE, /* retry inside the exclusive section, after gl_acct_revoke_all() */
};

struct gl_lane_site;
struct gl_acct_ticket {
    enum gl_acct_mode mode;
    int32_t dev;               /* device table index */
    struct gl_lane_site *site; /* LOCAL: the allocation's slot in the lane */
};

/* In the caller's lane: how an allocation will be accounted.  LOCKED leaves
 * the device locked until gl_acct_alloc_end. */
struct gl_acct_ticket gl_acct_alloc_begin(struct gl_lane_acct *la, const struct gl_acct_event *ev);
/* Accounts ev (NULL: the allocation was not recorded after all) and, first,
 * the free of `stale` (a record the allocation replaced; NULL if none) when it
 * is on the same device as the ticket; otherwise the caller frees it with
 * gl_acct_free after this.  `is_new` false: a restored record (its free
 * failed), which undoes the free's count instead of counting an allocation. */
void gl_acct_alloc_end(struct gl_lane_acct *la, struct gl_acct_ticket t, const struct gl_acct_event *ev,
                       const struct gl_acct_event *stale, bool is_new);
/* True if stale's free is accounted by gl_acct_alloc_end under ticket t. */
bool gl_acct_same_device(struct gl_acct_ticket t, const struct gl_acct_event *stale);
void gl_acct_free(struct gl_lane_acct *la, const struct gl_acct_event *ev);

void gl_acct_unknown_free(int32_t device);
/* The device is listed in DEVICES from now on, with or without activity
 * (an attach measured memory made before it there). */
void gl_acct_touch(int32_t device);
void gl_acct_failed(int32_t device);

/* Applies the lane's local accounting to its device and gives its credit
 * back.  The caller holds the lane (or every lane). */
void gl_acct_flush(struct gl_lane_acct *la);
/* Inside the exclusive section: flushes every lane. */
void gl_acct_revoke_all(void);

/* Inside the exclusive section, after gl_acct_revoke_all. */
size_t gl_acct_site_count(void);
void gl_acct_copy(struct gl_state_copy *out, size_t peaks_room);
/* Device totals and the sites with live bytes, at most `room` (in the
 * exclusive section, after gl_acct_revoke_all, as gl_acct_copy). */
void gl_acct_watch_copy(struct gl_watch_copy *out, size_t room);

/* Detach (docs/attach.md): every device back to unused, in the exclusive
 * section after gl_acct_revoke_all. */
void gl_acct_reset(void);
/* fork child: every device starts empty. */
void gl_acct_postfork_child(void);

/* The merger (events.h): a device whose peak_seq is still an allocation's
 * stamp gets number_of(stamp) instead, when that is not 0. */
void gl_acct_number_peaks(uint64_t (*number_of)(uint64_t stamp, const void *arg), const void *arg);

#endif
