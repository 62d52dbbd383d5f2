/* PEAK, per device (peaks.c). */
#ifndef GPULEAK_RENDER_TEXT_PEAKS_H
#define GPULEAK_RENDER_TEXT_PEAKS_H

struct report_ctx;

void text_peaks(struct report_ctx *r);

#endif
