/* The JSON report's per-device change across snapshots (diff). */
#ifndef GPULEAK_RENDER_JSON_DIFF_DEVICES_H
#define GPULEAK_RENDER_JSON_DIFF_DEVICES_H

#include "analysis/multi/diff_devices.h"
#include "render/json/json.h"

/* The "devices" member of diff JSON. */
void json_diff_devices(struct json *j, const struct diff_devices *dd);

#endif
