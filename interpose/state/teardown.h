/* Allocations the program never freed that a context teardown released:
 * cudaDeviceReset, cuDevicePrimaryCtxReset, cuCtxDestroy free everything the
 * context owned, so those records leave the live table (track.c) -- but the
 * program leaked them until then.  compute-sanitizer's leak check reports
 * exactly these (allocations live at cudaDeviceReset); so does gpuleak, per
 * (stack, kind, API, device, teardown call), at most GL_TEARDOWN_MAX groups. */
#ifndef GL_TEARDOWN_H
#define GL_TEARDOWN_H

#include <stddef.h>
#include <stdint.h>

struct gl_teardown {
    uint64_t bytes, count, time_ns;
    uint32_t stack_id;
    int32_t device;
    uint16_t kind, api, teardown;
};

/* One record dropped by a teardown (`teardown`: its API code).  Called in
 * the exclusive section, which already excludes every other caller. */
void gl_teardown_note(uint32_t stack_id, int32_t device, uint16_t kind, uint16_t api, uint64_t bytes,
                      uint16_t teardown, uint64_t time_ns);

/* Copies the groups into a malloc'ed array (*n of them); NULL when there are
 * none or memory ran out. */
struct gl_teardown *gl_teardown_copy(size_t *n);

/* Detach: every note dropped (docs/attach.md). */
void gl_teardown_reset(void);
void gl_teardown_postfork_child(void);

#endif
