/* The text report's per-device change across snapshots (diff). */
#ifndef GPULEAK_RENDER_TEXT_DIFF_DEVICES_H
#define GPULEAK_RENDER_TEXT_DIFF_DEVICES_H

#include "analysis/multi/diff_devices.h"

struct report_ctx;

/* The BY DEVICE section of a diff. */
void text_diff_devices(struct report_ctx *r, const struct diff_devices *dd);

#endif
