/* Why a snapshot was written (GL_REASON_*), in words. */
#ifndef GPULEAK_MODEL_REASON_H
#define GPULEAK_MODEL_REASON_H

#include <stdint.h>

/* "at exit", "on signal", ... (text) */
const char *reason_phrase(uint32_t reason);
/* "exit", "signal", ... (JSON) */
const char *reason_name(uint32_t reason);

#endif
