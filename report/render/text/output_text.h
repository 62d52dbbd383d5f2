/* The text report of one snapshot (docs/reporter.md). */
#ifndef GPULEAK_RENDER_TEXT_OUTPUT_TEXT_H
#define GPULEAK_RENDER_TEXT_OUTPUT_TEXT_H

struct report_ctx;

void output_text(struct report_ctx *r);

/* The blocks the rows of render/sections.c write. */
void text_oom_block(struct report_ctx *r);
void text_leaks_block(struct report_ctx *r);
void text_torch_block(struct report_ctx *r);
void text_leaks_tail(struct report_ctx *r);
void text_calls_block(struct report_ctx *r);
void text_peak_block(struct report_ctx *r);
void text_timeline_block(struct report_ctx *r);
void text_fragmentation_block(struct report_ctx *r);
void text_ledger_block(struct report_ctx *r);

#endif
