#include "cuda/driver_view.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include <cuda.h>

#include "base/exit_guard.h"
#include "base/worker.h"
#include "cuda/calls.h"
#include "resolve/resolve.h"

#define EXIT_SAMPLE_MS 1000 /* the longest exit() waits for the driver */
#define WARM_MS 1000        /* the longest the first allocation waits for the writer */

/* A piece of work handed to the writer with a time limit: asked by the
 * waiting thread, run by the writer only if still asked for, given up by the
 * waiting thread when the limit passes.  A run that is then under way
 * finishes, but its result is never read. */
enum { JOB_IDLE, JOB_ASKED, JOB_RUNNING, JOB_DONE, JOB_GIVEN_UP };

static bool job_start(atomic_int *st)
{
    int expected = JOB_ASKED;
    return atomic_compare_exchange_strong(st, &expected, JOB_RUNNING);
}

static void job_end(atomic_int *st, bool ok)
{
    int expected = JOB_RUNNING;
    atomic_compare_exchange_strong(st, &expected, ok ? JOB_DONE : JOB_GIVEN_UP);
}

/* Asks for job (st must be JOB_IDLE), waits at most ms, gives up if it has
 * not finished by then. */
static void job_run(atomic_int *st, void (*job)(void), unsigned ms)
{
    atomic_store(st, JOB_ASKED);
    gl_worker_run_job(job, ms);
    int expected = JOB_ASKED;
    if (!atomic_compare_exchange_strong(st, &expected, JOB_GIVEN_UP)) {
        expected = JOB_RUNNING;
        atomic_compare_exchange_strong(st, &expected, JOB_GIVEN_UP);
    }
}

/* The writer thread's first call into the driver allocates the driver's
 * thread-local data, and glibc aborts the whole process (exit status 127)
 * when it cannot: under RLIMIT_AS, or out of memory, say at exit.  So that
 * first call is made at the first tracked allocation, while the allocating
 * thread waits (once per process, bounded), and the writer asks the driver
 * nothing until it has made it. */
GL_DEFINE_REAL(CUresult, cuCtxGetCurrent, (CUcontext *))
static atomic_int writer_warm; /* JOB_DONE: the writer may ask the driver */

static void warm_writer(void)
{
    if (!job_start(&writer_warm))
        return; /* too late: the allocating thread has gone on */
    cuCtxGetCurrent_fn cur = REAL_cuCtxGetCurrent();
    CUcontext ctx;
    job_end(&writer_warm, cur != NULL && cur(&ctx) == CUDA_SUCCESS);
}

void gl_driver_view_query(struct gl_driver_view *out)
{
    out->npools = out->nmems = 0;
    if (gl_worker_on_thread() && atomic_load(&writer_warm) != JOB_DONE)
        return;
    out->npools = gl_pools_query(out->pools, GL_POOLS_MAX);
    for (int32_t d = 0; d < GL_MAX_DEVICES; d++) {
        uint64_t f, t;
        if (gl_where_primary(d) != 0 && gl_device_mem_info(d, &f, &t) == 0)
            out->mems[out->nmems++] = (struct gl_mem_view){d, f, t};
    }
}

/* The exit sample, taken by the writer while the exiting thread waits. */
static atomic_int exit_state;
static atomic_bool armed;
static _Atomic pid_t armed_pid; /* a fork child inherits the handler, not the arming */
static struct gl_driver_view exit_view;

static void sample_on_writer(void)
{
    if (!job_start(&exit_state))
        return;
    gl_driver_view_query(&exit_view);
    job_end(&exit_state, true);
}

static void sample_at_exit(void)
{
    gl_exit_claim(); /* exit began here if main returned (exit_guard.c) */
    if (atomic_load(&armed_pid) != getpid() || atomic_load(&writer_warm) != JOB_DONE)
        return;
    if (atomic_load(&exit_state) != JOB_IDLE)
        return; /* a second registration (fork child that allocated again) */
    job_run(&exit_state, sample_on_writer, EXIT_SAMPLE_MS);
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
    job_run(&writer_warm, warm_writer, WARM_MS);
}

const struct gl_driver_view *gl_driver_view_at_exit(void)
{
    return atomic_load(&exit_state) == JOB_DONE ? &exit_view : NULL;
}

void gl_driver_view_postfork_child(void)
{
    atomic_store(&armed, false);
    atomic_store(&armed_pid, 0);
    atomic_store(&exit_state, JOB_IDLE);
    atomic_store(&writer_warm, JOB_IDLE); /* the child's writer is a new thread */
}
