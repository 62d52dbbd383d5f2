/* What the JSON sections share. */
#ifndef GPULEAK_RENDER_JSON_COMMON_H
#define GPULEAK_RENDER_JSON_COMMON_H

#include <stdint.h>

#include "model/stackdb.h"
#include "render/json/json.h"

struct snap_process;
/* "rank": the rank, or null for a process that had none (GL_SNAP_F_NO_RANK). */
void json_rank(struct json *j, const struct snap_process *p);
/* The "frames" (innermost first), "folded_frames", "cut" and
 * "label_frame" members of canonical stack cs (0: no stack, an empty list). */
void json_frames(struct json *j, const struct stackdb *db, uint32_t cs);
/* "bytes_per_hour": a growing line's rate (util/rate.h), null when it has
 * none (0: not a suspected leak, or no clock to measure it by). */
void json_per_hour(struct json *j, uint64_t bytes_per_hour);
/* The first members of every group object: what, how much, where, by which API. */
void json_group_head(struct json *j, uint64_t bytes, uint64_t count, unsigned kind, int32_t device, unsigned api);

#endif
