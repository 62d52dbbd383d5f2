#include "control/torch_state.h"

#include "base/config.h"

struct gl_torch_state gl_torch;

bool gl_torch_lines_allowed(void)
{
    return gl_config.torch_lines != GL_TORCH_LINES_NEVER ||
           atomic_load_explicit(&gl_torch.user_asked_lines, memory_order_relaxed);
}

bool gl_torch_record_from_start(void)
{
    return gl_config.torch_lines == GL_TORCH_LINES_START ||
           (gl_torch_lines_allowed() && atomic_load(&gl_torch.lines_wanted));
}

bool gl_torch_lines_sampling_allowed(void)
{
    return gl_config.torch_lines == GL_TORCH_LINES_REQUEST && !atomic_load(&gl_torch.recorder_ours);
}

void gl_torch_state_postfork_child(void)
{
    atomic_store(&gl_torch.probe_queued, false);
    atomic_store(&gl_torch.late_reason, 0);
    atomic_store(&gl_torch.followup, false);
    atomic_store(&gl_torch.attach_answer_wanted, false); /* the attach asked about the parent's memory */
    atomic_store(&gl_torch.attach_view_unclaimed, false);
}
