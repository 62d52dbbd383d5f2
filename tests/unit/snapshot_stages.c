/* Unit test of the snapshot writer's table (interpose/control/
 * snapshot_stages.h) against the format's list of records, the one the
 * reader and the docs are made from (GL_RECORD_LIST, common/
 * snapshot_fields.h):
 *   1. every record type the list names has exactly one writer stage, and
 *      every stage writes a type the list names (a failure names the type);
 *   2. PROCESS is the first stage and END the last, as the format requires;
 *   3. PyTorch's records follow the ones they depend on: its frames
 *      (PYFRAME) before STACK, TORCH before TORCH_BLOCKS, TORCH_SETTINGS and
 *      TORCH_OOM, EVENTS before LABEL.
 * The library's build checks 1 too (static assertions in
 * snapshot_stages.c); this test says which row is missing.  The table is a
 * macro list: nothing is linked. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "control/snapshot_stages.h"
#include "snapshot_format.h"

static int failures;

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "FAIL: " __VA_ARGS__);                                 \
        fputc('\n', stderr);                                                   \
        failures++;                                                            \
    } while (0)

struct row {
    const char *name;
    uint32_t type;
};

static const struct row listed[] = {
#define LISTED_ROW(NAME, occurs, shape, what) {#NAME, GL_REC_##NAME},
    GL_RECORD_LIST(LISTED_ROW)
#undef LISTED_ROW
};
static const struct row staged[] = {
#define STAGED_ROW(RECORD, stage) {#RECORD, GL_REC_##RECORD},
    GL_SNAPSHOT_STAGES(STAGED_ROW)
#undef STAGED_ROW
};
#define NLISTED (sizeof listed / sizeof listed[0])
#define NSTAGED (sizeof staged / sizeof staged[0])

/* Where type is in the writer's table; -1: nowhere. */
static int stage_of(uint32_t type)
{
    for (size_t i = 0; i < NSTAGED; i++)
        if (staged[i].type == type)
            return (int)i;
    return -1;
}

static size_t times_staged(uint32_t type)
{
    size_t n = 0;
    for (size_t i = 0; i < NSTAGED; i++)
        n += staged[i].type == type;
    return n;
}

static void every_record_written_once(void)
{
    for (size_t i = 0; i < NLISTED; i++) {
        size_t n = times_staged(listed[i].type);
        if (n == 0)
            FAIL("the reader knows record %s (type %u), the writer has no stage for it", listed[i].name,
                 listed[i].type);
        else if (n > 1)
            FAIL("record %s has %zu writer stages", listed[i].name, n);
    }
    for (size_t i = 0; i < NSTAGED; i++) {
        size_t found = 0;
        for (size_t k = 0; k < NLISTED; k++)
            found += listed[k].type == staged[i].type;
        if (found == 0)
            FAIL("the writer's stage %s writes a record the format does not list", staged[i].name);
    }
}

static void before(uint32_t first, uint32_t then, const char *what)
{
    int a = stage_of(first), b = stage_of(then);
    if (a < 0 || b < 0 || a >= b)
        FAIL("%s: stage %d must come before stage %d", what, a, b);
}

static void stages_in_file_order(void)
{
    if (NSTAGED == 0 || staged[0].type != GL_REC_PROCESS)
        FAIL("the first stage is %s, not PROCESS", NSTAGED ? staged[0].name : "none");
    if (NSTAGED == 0 || staged[NSTAGED - 1].type != GL_REC_END)
        FAIL("the last stage is %s, not END", NSTAGED ? staged[NSTAGED - 1].name : "none");
    before(GL_REC_PYFRAME, GL_REC_STACK, "stacks name frames written before them");
    before(GL_REC_EVENTS, GL_REC_LABEL, "labels follow the history");
    before(GL_REC_TORCH, GL_REC_TORCH_BLOCKS, "TORCH_BLOCKS after TORCH");
    before(GL_REC_TORCH, GL_REC_TORCH_SETTINGS, "TORCH_SETTINGS after TORCH");
    before(GL_REC_TORCH, GL_REC_TORCH_OOM, "TORCH_OOM after TORCH");
}

int main(void)
{
    every_record_written_once();
    stages_in_file_order();
    if (failures == 0)
        printf("ok: %zu record types, %zu writer stages\n", NLISTED, NSTAGED);
    return failures != 0;
}
