/* Human-readable report of one snapshot, modelled on valgrind's leak report
 * and heaptrack_print: a header, a SUMMARY block, one paragraph per leak
 * group (exact bytes, human units, when and where it was allocated), what
 * allocator caches hold, a LEAK SUMMARY, each device's peak, then the
 * timeline and fragmentation sections (text_sections.c), and the LEDGER of
 * each device's used memory (ledger.c). */
#include "render/text/output_text.h"

#include "render/report.h"
#include "render/sections.h"
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
#include "render/text/torch_steps.h"

/* Allocation sites shown by default: the few that matter. */
#define CALLS_SHOWN 5

/* The blocks of render/sections.c's rows, in the order they are written. */
void text_oom_block(struct report_ctx *r) { text_oom(r); }

void text_leaks_block(struct report_ctx *r)
{
    text_leaks(r);
    text_caches(r);
}

void text_torch_block(struct report_ctx *r)
{
    text_torch(r);
    text_torch_steps(r);
}

void text_leaks_tail(struct report_ctx *r)
{
    text_mapped(r);
    text_modules(r);
    text_bad_frees(r);
    text_torn(r, r->top);
    text_leak_summary(r);
}

void text_calls_block(struct report_ctx *r) { text_calls(r, r->top ? r->top : CALLS_SHOWN); }

void text_peak_block(struct report_ctx *r)
{
    text_peaks(r);
    text_phases(r);
}

void text_timeline_block(struct report_ctx *r) { text_timeline(r); }
void text_fragmentation_block(struct report_ctx *r) { text_fragmentation(r); }
void text_ledger_block(struct report_ctx *r) { text_ledger(r); }

void output_text(struct report_ctx *r)
{
    text_header(r);
    text_summary(r);
    sections_text(r);
}
