/* The JSON report of one snapshot (docs/json-output.md). */
#ifndef GPULEAK_RENDER_JSON_OUTPUT_JSON_H
#define GPULEAK_RENDER_JSON_OUTPUT_JSON_H

struct report_ctx;

void output_json(struct report_ctx *r);

#endif
