/* The JSON report of one snapshot (docs/json-output.md). */
#ifndef GPULEAK_RENDER_JSON_OUTPUT_JSON_H
#define GPULEAK_RENDER_JSON_OUTPUT_JSON_H

struct report_ctx;
struct json;

void output_json(struct report_ctx *r);

/* The blocks the rows of render/sections.c write. */
void json_leaks_block(struct report_ctx *r, struct json *j);
void json_calls_block(struct report_ctx *r, struct json *j);
void json_torch_block(struct report_ctx *r, struct json *j);
void json_devices_block(struct report_ctx *r, struct json *j);
void json_peak_block(struct report_ctx *r, struct json *j);
void json_oom_block(struct report_ctx *r, struct json *j);
void json_timeline_block(struct report_ctx *r, struct json *j);
void json_fragmentation_block(struct report_ctx *r, struct json *j);
void json_ledger_block(struct report_ctx *r, struct json *j);

#endif
