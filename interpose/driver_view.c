#include "driver_view.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include <cuda.h>

#include "record.h"
#include "resolve.h"
#include "trigger.h"

#define EXIT_SAMPLE_MS 1000 /* the longest exit() waits for the driver */
#define WARM_MS 1000        /* the longest the first allocation waits for the writer */

/* The writer thread's first call into the driver allocates the driver's
 * thread-local data, and glibc aborts the whole process (exit status 127)
 * when it cannot: under RLIMIT_AS, or out of memory, say at exit.  So that
 * first call is made at the first tracked allocation, while the allocating
 * thread waits (once per process, bounded), and the writer asks the driver
 * nothing until it has made it. */
GL_DEFINE_REAL(CUresult, cuCtxGetCurrent, (CUcontext *))
enum { WARM_NO, WARM_ASKED, WARM_RUNNING, WARM_YES, WARM_GIVEN_UP };
static atomic_int writer_warm;

static void warm_writer(void)
{
    int expected = WARM_ASKED;
    if (!atomic_compare_exchange_strong(&writer_warm, &expected, WARM_RUNNING))
        return; /* too late: the allocating thread has gone on */
    cuCtxGetCurrent_fn cur = REAL_cuCtxGetCurrent();
    CUcontext ctx;
    bool ok = cur != NULL && cur(&ctx) == CUDA_SUCCESS;
    atomic_store(&writer_warm, ok ? WARM_YES : WARM_GIVEN_UP);
}

void gl_driver_view_query(struct gl_driver_view *out)
{
    out->npools = out->nmems = 0;
    if (gl_trigger_on_writer() && atomic_load(&writer_warm) != WARM_YES)
        return;
    out->npools = gl_pools_query(out->pools, GL_POOLS_MAX);
    for (int32_t d = 0; d < GL_MAX_DEVICES; d++) {
        uint64_t f, t;
        if (gl_primary_ctx(d) != 0 && gl_device_mem_info(d, &f, &t) == 0)
            out->mems[out->nmems++] = (struct gl_mem_view){d, f, t};
    }
}

/* The exit sample's life: asked by the exiting thread, run by the writer;
 * the exiting thread gives up after EXIT_SAMPLE_MS, and a sample that is
 * then still running finishes unread. */
enum { EXIT_IDLE, EXIT_ASKED, EXIT_RUNNING, EXIT_DONE, EXIT_GIVEN_UP };
static atomic_int exit_state;
static atomic_bool armed;
static _Atomic pid_t armed_pid; /* a fork child inherits the handler, not the arming */
static struct gl_driver_view exit_view;

static void sample_on_writer(void)
{
    int expected = EXIT_ASKED;
    if (!atomic_compare_exchange_strong(&exit_state, &expected, EXIT_RUNNING))
        return;
    gl_driver_view_query(&exit_view);
    expected = EXIT_RUNNING;
    atomic_compare_exchange_strong(&exit_state, &expected, EXIT_DONE);
}

static void sample_at_exit(void)
{
    if (atomic_load(&armed_pid) != getpid() || atomic_load(&writer_warm) != WARM_YES)
        return;
    int expected = EXIT_IDLE;
    if (!atomic_compare_exchange_strong(&exit_state, &expected, EXIT_ASKED))
        return; /* a second registration (fork child that allocated again) */
    gl_trigger_run_job(sample_on_writer, EXIT_SAMPLE_MS);
    expected = EXIT_ASKED;
    if (!atomic_compare_exchange_strong(&exit_state, &expected, EXIT_GIVEN_UP)) {
        expected = EXIT_RUNNING;
        atomic_compare_exchange_strong(&exit_state, &expected, EXIT_GIVEN_UP);
    }
}

void gl_driver_view_arm_exit(void)
{
    if (atomic_load_explicit(&armed, memory_order_relaxed) || atomic_exchange(&armed, true))
        return;
    atomic_store(&armed_pid, getpid());
    if (atexit(sample_at_exit) != 0) {
        atomic_store(&armed_pid, 0); /* no sample then; nothing else changes */
        return;
    }
    atomic_store(&writer_warm, WARM_ASKED);
    gl_trigger_run_job(warm_writer, WARM_MS);
    int expected = WARM_ASKED;
    atomic_compare_exchange_strong(&writer_warm, &expected, WARM_GIVEN_UP);
}

const struct gl_driver_view *gl_driver_view_at_exit(void)
{
    return atomic_load(&exit_state) == EXIT_DONE ? &exit_view : NULL;
}

void gl_driver_view_postfork_child(void)
{
    atomic_store(&armed, false);
    atomic_store(&armed_pid, 0);
    atomic_store(&exit_state, EXIT_IDLE);
    atomic_store(&writer_warm, WARM_NO); /* the child's writer is a new thread */
}
