#include "control/take.h"

#include <pthread.h>

#include "control/torch_view.h"

int gl_take_snapshot(uint32_t reason, uint32_t flags, const char *path, const struct gl_mem_view *mem,
                     struct gl_snapshot_file *written)
{
    /* Asking PyTorch waits on a semaphore, a cancellation point: a thread
     * cancelled there (gpuleak_snapshot from a thread the program cancels)
     * would leave the question half asked.  And with no lock of ours held:
     * the wait may be for Python's main thread, which may be inside a hook
     * waiting for one of them. */
    int cancel_state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    struct gl_torch_view torch;
    gl_torch_collect(reason, &torch);
    int rc = written != NULL ? gl_snapshot_write_file(reason, flags, path, written, &torch)
                             : gl_snapshot_write_with(reason, flags, path, mem, &torch);
    gl_torch_view_free(&torch);
    pthread_setcancelstate(cancel_state, NULL);
    return rc;
}
