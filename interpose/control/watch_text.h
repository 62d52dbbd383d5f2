/* The text of the live view's file (docs/live.md, "gpuleak-live 2") and of
 * the metrics file (Prometheus' text format), formatted from the live
 * view's copy of the counters (state/track_copy.h), and the fingerprint
 * that tells a tick whether anything changed since the last write.  The
 * files themselves are written by watch.c. */
#ifndef GL_WATCH_TEXT_H
#define GL_WATCH_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/track_copy.h"

/* A growing text buffer; failed: memory ran out, the text is not whole. */
struct gl_watch_text {
    char *s;
    size_t len, cap;
    bool failed;
};

/* Empties t for the next tick, keeping its memory; returns t. */
struct gl_watch_text *gl_watch_text_reuse(struct gl_watch_text *t);

/* Orders c's sites as the live file lists them: largest live bytes first,
 * then by stack id. */
void gl_watch_sort_sites(struct gl_watch_copy *c);

/* The live view's text: the devices, the largest sites, the last
 * out-of-memory errors, the stacks they name, their Python frames and the
 * loaded modules; "end" last. */
void gl_watch_live_text(struct gl_watch_text *t, const struct gl_watch_copy *c);

/* The metrics file's text: one family per device counter, each sample
 * labelled with the device, pid, rank and host. */
void gl_watch_metrics_text(struct gl_watch_text *t, const struct gl_watch_copy *c, uint32_t rank);

/* A hash of what the files show that changes with any allocation, free or
 * out-of-memory error. */
uint64_t gl_watch_fingerprint(const struct gl_watch_copy *c);

#endif
