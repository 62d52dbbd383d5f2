/* Fuzz target: the live-file reader of gpuleak-top (tools/top/live_read.c,
 * docs/live.md).  Properties: no crash, no leak, no undefined behaviour; a
 * rejected file gets a one-line reason; an accepted one has every count
 * within the reader's bounds, every module range ordered, and every Python
 * frame of a stack explained by a pyframe line (version 2). */
#include <string.h>

#include "../../tools/top/live_read.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    struct live l;
    char whybuf[128];
    const char *why = NULL;
    if (!live_parse(text, size, &l, whybuf, sizeof whybuf, &why)) {
        FUZZ_CHECK(why != NULL && why[0] != '\0' && strchr(why, '\n') == NULL, "bad reason '%s'",
                   why ? why : "(null)");
    } else {
        FUZZ_CHECK(l.ndevs <= MAX_DEVICES && l.nsites <= MAX_SITES && l.nstacks <= MAX_STACKS &&
                       l.nmods <= MAX_MODULES && l.nooms <= MAX_OOMS,
                   "counts out of bounds");
        for (size_t i = 0; i < l.nstacks; i++)
            FUZZ_CHECK(l.stacks[i].depth <= MAX_DEPTH && l.stacks[i].id != 0, "stack %zu", i);
        for (size_t i = 0; i < l.npyframes; i++)
            FUZZ_CHECK(l.pyframes[i].id != 0 && l.pyframes[i].file.s != NULL && l.pyframes[i].function.s != NULL &&
                           l.pyframes[i].function.len > 0 && (i == 0 || l.pyframes[i - 1].id <= l.pyframes[i].id),
                       "pyframe %zu", i);
        /* every Python frame a stack names has its text */
        for (size_t i = 0; i < l.nstacks; i++)
            for (uint32_t k = 0; k < l.stacks[i].depth; k++) {
                uint64_t pc = l.stacks[i].pcs[k];
                bool found = !gl_pc_is_pyframe(pc);
                for (size_t j = 0; j < l.npyframes && !found; j++)
                    found = l.pyframes[j].id == (uint32_t)pc;
                FUZZ_CHECK(found, "stack %zu frame %u: no pyframe", i, k);
            }
        for (size_t i = 0; i < l.nmods; i++)
            FUZZ_CHECK(l.mods[i].start <= l.mods[i].end && l.mods[i].path.s != NULL &&
                           strlen(l.mods[i].path.s) == l.mods[i].path.len,
                       "module %zu", i);
    }
    live_free(&l);
    free(text);
    return 0;
}
