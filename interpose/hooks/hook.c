/* What the hooks share beyond GL_HOOK (hook.h). */
#include "hooks/hook.h"

#include <errno.h>

#include "control/trigger.h"
#include "cuda/calls.h"

/* The snapshot is asked for here, above cuda/, which knows what failed but
 * not when snapshots are written. */
void gl_hook_out_of_memory(int32_t device, uint64_t size, uint64_t stream, uint16_t kind, uint16_t api)
{
    int saved = errno;
    struct gl_mem_view mem;
    gl_nocancel_begin(); /* the snapshot writes a file, may wait for the writer */
    gl_call_failed(device, size, stream, kind, api, &mem);
    gl_trigger_oom(mem.device, mem.mem_free, mem.mem_total);
    gl_nocancel_end();
    errno = saved;
}
