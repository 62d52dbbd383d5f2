/* The report's head and SUMMARY (summary.c). */
#ifndef GPULEAK_RENDER_TEXT_SUMMARY_H
#define GPULEAK_RENDER_TEXT_SUMMARY_H

struct report_ctx;

void text_header(struct report_ctx *r);
void text_summary(struct report_ctx *r);

#endif
