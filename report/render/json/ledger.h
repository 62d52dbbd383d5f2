/* The JSON report's ledger of used memory (analysis/ledger.h). */
#ifndef GPULEAK_RENDER_JSON_LEDGER_H
#define GPULEAK_RENDER_JSON_LEDGER_H

#include "render/json/json.h"

struct report_ctx;

/* The "ledger" member (docs/json-output.md). */
void json_ledger(struct report_ctx *r, struct json *j);

#endif
