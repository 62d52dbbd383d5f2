#include "control/tracking.h"

#include <stdatomic.h>
#include <sys/types.h>
#include <unistd.h>

atomic_bool gl_tracking_on;
/* The process tracking is on in: a vfork child (or a clone without fork
 * handlers) shares our memory, flags included, but is not it. */
static _Atomic pid_t tracked_pid;

void gl_tracking_set_active(bool on) { atomic_store(&gl_tracking_on, on); }
void gl_tracking_set_process(void) { atomic_store(&tracked_pid, getpid()); }

bool gl_tracking_own_process(void)
{
    return atomic_load(&gl_tracking_on) && atomic_load(&tracked_pid) == getpid();
}
