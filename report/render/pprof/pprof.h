/* --pprof OUT.pb.gz: the snapshot as a gzipped profile.proto, the format of
 * Go's heap profiles that `go tool pprof`, Pyroscope and Parca read
 * (github.com/google/pprof, proto/profile.proto).  Four values a sample, as
 * Go names them: alloc_objects, alloc_space, inuse_objects, inuse_space;
 * samples by shown stack, device, kind and API, the last three as labels.
 * What each value counts is in docs/reporter.md ("pprof"). */
#ifndef GPULEAK_PPROF_H
#define GPULEAK_PPROF_H

struct report_ctx;
struct snapview;
struct pb;

/* The gzipped profile of one snapshot's view into gz (freed with pb_free;
 * empty on failure).  0, -1 when out of memory, -2 when zlib fails or the
 * profile is over 4 GiB.  What output_pprof writes; the fuzz harness
 * (tests/fuzz/fuzz_report.c) runs it on hostile snapshots. */
int pprof_encode(const struct snapview *v, struct pb *gz);

/* Writes the profile to path, atomically (util/atomic_file.h).  0, or 1
 * with one line printed. */
int output_pprof(const struct report_ctx *r, const char *path);

#endif
