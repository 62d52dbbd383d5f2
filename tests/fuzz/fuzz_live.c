/* Fuzz target: the live-file reader of gpuleak-top (tools/top/live_read.c,
 * docs/live.md).  Properties: no crash, no leak, no undefined behaviour; a
 * rejected file gets a one-line reason; an accepted one has every count
 * within the reader's bounds and every module range ordered. */
#include <string.h>

#include "../../tools/top/live_read.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
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
        for (size_t i = 0; i < l.nmods; i++)
            FUZZ_CHECK(l.mods[i].start <= l.mods[i].end && l.mods[i].path.s != NULL &&
                           strlen(l.mods[i].path.s) == l.mods[i].path.len,
                       "module %zu", i);
    }
    live_free(&l);
    free(text);
    return 0;
}
