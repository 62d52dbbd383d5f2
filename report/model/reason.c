/* Why a snapshot was written, in words: the text report's phrase and the JSON report's name. */
#include "model/reason.h"

#include "snapshot_format.h"

const char *reason_name(uint32_t reason)
{
    switch (reason) {
    case GL_REASON_EXIT: return "exit";
    case GL_REASON_SIGNAL: return "signal";
    case GL_REASON_OOM: return "oom";
    case GL_REASON_REQUEST: return "request";
    case GL_REASON_FATAL_SIGNAL: return "fatal-signal";
    case GL_REASON_PERIODIC: return "periodic";
    case GL_REASON_DETACH: return "detach";
    case GL_REASON_EXEC: return "exec";
    }
    return "unknown";
}

const char *reason_phrase(uint32_t reason)
{
    switch (reason) {
    case GL_REASON_EXIT: return "at exit";
    case GL_REASON_SIGNAL: return "on signal";
    case GL_REASON_OOM: return "on out-of-memory";
    case GL_REASON_REQUEST: return "on request";
    case GL_REASON_FATAL_SIGNAL: return "on fatal signal";
    case GL_REASON_PERIODIC: return "on schedule (GPULEAK_INTERVAL)";
    case GL_REASON_DETACH: return "at detach (gpuleak detach)";
    case GL_REASON_EXEC: return "at exec (the program image replaced)";
    }
    return "for an unknown reason";
}
