/* The text report of one snapshot (docs/reporter.md). */
#ifndef GPULEAK_RENDER_TEXT_OUTPUT_TEXT_H
#define GPULEAK_RENDER_TEXT_OUTPUT_TEXT_H

struct report_ctx;

void output_text(struct report_ctx *r);

#endif
