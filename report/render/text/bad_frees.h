/* The text report's invalid frees. */
#ifndef GPULEAK_RENDER_TEXT_BAD_FREES_H
#define GPULEAK_RENDER_TEXT_BAD_FREES_H

struct report_ctx;

/* The SUMMARY line ("invalid frees: ..."), when there are any. */
void text_bad_frees_summary(struct report_ctx *r);
/* The INVALID FREES section, when there are any. */
void text_bad_frees(struct report_ctx *r);

#endif
