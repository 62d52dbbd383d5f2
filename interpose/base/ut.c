/* uthash's out-of-memory flag (ut.h). */
#include "base/ut.h"

__thread bool gl_ut_oom __attribute__((tls_model("initial-exec")));
