/* Fuzz target: the snapshot reader (report/model/snap_read.c, snap_parse), which
 * gpuleak-report runs on files people pass around.  Properties: no crash, no
 * leak, no undefined behaviour; a rejected input gets exactly one line of
 * error ending in "(at offset N)"; an accepted one can be walked (every
 * stack and label an entry refers to is looked up). */
#include <string.h>

#include "model/snap_read.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct snapshot s;
    char err[512];
    if (snap_parse(data, size, &s, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0] != '\0' && strchr(err, '\n') == NULL && strstr(err, "(at offset ") != NULL,
                   "bad error message '%s'", err);
        return 0;
    }
    /* Walk what the reporter walks. */
    uint64_t sum = 0;
    for (size_t i = 0; i < s.nallocs; i++) {
        const struct snap_stack *st = snap_find_stack(&s, s.allocs[i].stack_id);
        if (st != NULL) {
            FUZZ_CHECK(st->pc_off + st->depth <= s.npcs, "stack %u out of range", st->id);
            const uint64_t *pcs = snap_stack_pcs(&s, st);
            for (uint32_t d = 0; d < st->depth; d++)
                sum += pcs[d];
        }
    }
    for (size_t i = 0; i < s.nevents; i++) {
        if (s.events[i].type == GL_EV_ANNOTATION) {
            const struct snap_label *l = snap_find_label(&s, (uint32_t)s.events[i].ptr);
            if (l != NULL)
                sum += strlen(l->text.s);
        }
        (void)snap_find_stack(&s, s.events[i].stack_id);
    }
    for (size_t i = 0; i < s.npeaks; i++)
        (void)snap_find_stack(&s, s.peaks[i].stack_id);
    for (uint32_t i = 0; i < s.proc.argc; i++)
        sum += strlen(s.proc.argv[i].s);
    for (size_t i = 0; i < s.nmodules; i++)
        sum += strlen(s.modules[i].path.s) + s.modules[i].build_id_len;
    (void)sum;
    snap_free(&s);
    return 0;
}
