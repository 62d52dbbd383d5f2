/* The report's head and SUMMARY (summary.c). */
#ifndef GPULEAK_RENDER_TEXT_SUMMARY_H
#define GPULEAK_RENDER_TEXT_SUMMARY_H

struct report_ctx;

void text_header(struct report_ctx *r);
void text_summary(struct report_ctx *r);
/* SUMMARY's lines of the leaks section (what is left, what caches hold,
 * refused frees, teardowns), whatever --sections says: also the verdict's
 * summary of `gpuleak check` (cli/verdict.c). */
void text_summary_findings(struct report_ctx *r);

#endif
