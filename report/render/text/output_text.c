/* Human-readable report of one snapshot, modelled on valgrind's leak report
 * and heaptrack_print: a header, a SUMMARY block, one paragraph per leak
 * group (exact bytes, human units, when and where it was allocated), what
 * allocator caches hold, a LEAK SUMMARY, each device's peak, then the
 * timeline and fragmentation sections (text_sections.c), and the LEDGER of
 * each device's used memory (ledger.c). */
#include "render/text/output_text.h"

#include "render/report.h"
#include "render/text/bad_frees.h"
#include "render/text/calls.h"
#include "render/text/leaks.h"
#include "render/text/ledger.h"
#include "render/text/mapped.h"
#include "render/text/modules.h"
#include "render/text/oom.h"
#include "render/text/peaks.h"
#include "render/text/summary.h"
#include "render/text/teardown.h"
#include "render/text/phases.h"
#include "render/text/text_sections.h"
#include "render/text/torch.h"

/* Allocation sites shown by default: the few that matter. */
#define CALLS_SHOWN 5

void output_text(struct report_ctx *r)
{
    text_header(r);
    text_summary(r);
    if (r->sections & SEC_PEAK)
        text_oom(r);
    if (r->sections & SEC_LEAKS) {
        text_leaks(r);
        text_caches(r);
        text_torch(r);
        text_mapped(r);
        text_modules(r);
        text_bad_frees(r);
        text_torn(r, r->top);
        text_leak_summary(r);
    }
    if (r->sections & SEC_CALLS)
        text_calls(r, r->top ? r->top : CALLS_SHOWN);
    if (r->sections & SEC_PEAK) {
        text_peaks(r);
        text_phases(r);
    }
    if (r->sections & SEC_TIMELINE)
        text_timeline(r);
    if (r->sections & SEC_FRAG)
        text_fragmentation(r);
    if (r->sections & SEC_LEDGER)
        text_ledger(r);
}
