#include "control/torch_view.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/config.h"
#include "base/exit_guard.h"
#include "base/worker.h"
#include "control/torch_answer.h"
#include "control/torch_state.h"
#include "control/torch_steps.h"
#include "cuda/before_attach.h"
#include "python/pyapi.h"
#include "snapshot_format.h"

/* The answer travels from Python's main thread to the asking thread through
 * these atomics and a semaphore: no lock, so the asker can give up at its
 * deadline whatever the answering side is doing, and a late answer finds
 * the request withdrawn and frees what it made. */
enum { PHASE_IDLE, PHASE_ASKED, PHASE_RUNNING, PHASE_DONE };
static _Atomic int phase;
static atomic_bool asking; /* one asker through the pending call at a time */
static char *_Atomic answer;
static _Atomic size_t answer_len;
static sem_t answered;
static pthread_once_t answered_once = PTHREAD_ONCE_INIT;
static void answered_init(void) { sem_init(&answered, 0, 0); }

/* A late answer: kept as the last view, and a signal snapshot that went
 * without gets a follow-up that carries it.  Takes r. */
static void keep_late_answer(char *r, size_t len)
{
    uint32_t reason = atomic_exchange(&gl_torch.late_reason, 0);
    if (reason != 0 && r != NULL && !gl_torch_answer_failed(r, len)) {
        gl_torch_keep_view(r, len);
        if (reason == GL_REASON_SIGNAL) {
            atomic_store(&gl_torch.followup, true);
            gl_worker_ask_snapshot(); /* the writer takes it: its follow-up */
        }
    }
    free(r);
}


/* After an answer (the asker is not kept waiting): PyTorch's recorder on
 * if the probe left it off, then what escaped goes back to the program. */
static int finish_answer(struct gl_py_exc *escaped, bool for_detach)
{
    if (escaped->type == NULL && !for_detach)
        gl_torch_start_lines_here(escaped);
    return gl_pyapi_raise_in_program(escaped); /* after the answer: nothing left stuck */
}

static int answer_call(void *arg)
{
    (void)arg;
    int expected = PHASE_ASKED;
    bool asked = atomic_compare_exchange_strong(&phase, &expected, PHASE_RUNNING);
    if (!asked && atomic_load(&gl_torch.late_reason) == 0)
        return 0; /* a request already answered, or no longer wanted */
    /* read before the answer is posted: the asker clears it once served */
    bool for_detach = atomic_load(&gl_torch.detach_asking);
    gl_pyapi_note_main_thread();
    size_t len;
    struct gl_py_exc escaped;
    char *r = gl_torch_ask_here(&len, &escaped);
    if (escaped.type != NULL)
        r = gl_torch_interrupted_answer(r, &len);
    gl_torch_serve_attach(r, len); /* before the asker may take r */
    if (asked) {
        atomic_store(&answer, r);
        atomic_store(&answer_len, len);
        expected = PHASE_RUNNING;
        if (atomic_compare_exchange_strong(&phase, &expected, PHASE_DONE)) {
            /* A request given up on earlier is served by this answer: its
             * snapshot's successor carries this view. */
            atomic_store(&gl_torch.late_reason, 0);
            sem_post(&answered);
            return finish_answer(&escaped, for_detach);
        }
        atomic_store(&answer, NULL);
    }
    keep_late_answer(r, len);
    return finish_answer(&escaped, for_detach);
}

#define WAIT_SLICE_MS 50

/* answer_ms: how long a main thread that has started answering is waited
 * for (GL_TORCH_ANSWER_WAIT_MS for a snapshot). */
static char *ask_main_thread(uint32_t reason, unsigned answer_ms, size_t *len, bool *timed_out)
{
    *len = 0;
    *timed_out = false;
    if (atomic_exchange(&asking, true))
        return NULL; /* another thread is asking: this snapshot goes without */
    pthread_once(&answered_once, answered_init);
    while (sem_trywait(&answered) == 0) /* a post from an answer that came after its asker gave up */
        ;
    atomic_store(&answer, NULL);
    atomic_store(&phase, PHASE_ASKED);
    char *r = NULL;
    bool queued = gl_pyapi_add_pending(answer_call, NULL) == 0;
    if (queued) {
        /* In slices, so that a process that begins exiting meanwhile (its
         * main thread will run no more bytecode, and the exit path waits
         * for the writer to sample the driver) is not kept waiting.  A
         * main thread that has started answering is waited for longer: it
         * is doing the work, and giving up would throw the work away and
         * have the next snapshot pay it again. */
        for (unsigned waited = 0; !gl_exit_begun(); waited += WAIT_SLICE_MS) {
            if (waited >= (atomic_load(&phase) == PHASE_RUNNING ? answer_ms : GL_TORCH_WAIT_MS))
                break;
            struct timespec deadline;
            clock_gettime(CLOCK_REALTIME, &deadline);
            deadline.tv_nsec += WAIT_SLICE_MS * 1000000L;
            if (deadline.tv_nsec >= 1000000000L) {
                deadline.tv_sec++;
                deadline.tv_nsec -= 1000000000L;
            }
            int rc;
            while ((rc = sem_timedwait(&answered, &deadline)) != 0 && errno == EINTR)
                ;
            if (rc == 0)
                break;
        }
    }
    /* Giving up unless it answered: the pending call stays wanted, to
     * answer when the main thread returns to bytecode (unless the process
     * is exiting: the exit snapshot carries the last view then).  Said
     * before the request is withdrawn, so that an answer finishing just
     * then finds it (keep_late_answer); cleared again if it answered. */
    if (queued && !gl_exit_begun())
        atomic_store(&gl_torch.late_reason, reason);
    if (atomic_exchange(&phase, PHASE_IDLE) == PHASE_DONE) {
        atomic_store(&gl_torch.late_reason, 0);
        r = atomic_exchange(&answer, NULL);
        *len = atomic_load(&answer_len);
    } else {
        *timed_out = true;
    }
    atomic_store(&asking, false);
    return r;
}


/* ---- for a snapshot ------------------------------------------------------- */

/* A main thread answering the attach (or the detach's snapshot) is waited
 * for this long, well inside the launcher's 60 s for the whole attach or
 * detach; an answer that comes later still serves it (answer_call). */
#define ATTACH_ANSWER_WAIT_MS 20000u

void gl_torch_collect(uint32_t reason, struct gl_torch_view *out)
{
    memset(out, 0, sizeof *out);
    if (!gl_config.torch)
        return;
    /* Exit: Python is finalized.  Fatal signal: the process may be in any
     * state.  Out-of-memory: written on the failing thread, which may hold
     * PyTorch's allocator mutex (that _snapshot() takes) or the GIL (PyTorch's
     * own observer writes its snapshot with its answer: torch_callbacks.c).  None
     * can ask: they carry the last view PyTorch gave (at exit, normally the
     * one gpuleak's atexit callback took), saying how old it is. */
    /* (exec: the caller may hold the GIL, as os.execv does) */
    if (reason == GL_REASON_EXIT || reason == GL_REASON_FATAL_SIGNAL || reason == GL_REASON_OOM ||
        reason == GL_REASON_EXEC) {
        if (gl_torch_decode_kept(out))
            gl_torch_mark_before_attach(out);
        return;
    }
    if (reason == GL_REASON_SIGNAL && atomic_exchange(&gl_torch.followup, false) && gl_torch_decode_kept(out)) {
        gl_torch_mark_before_attach(out);
        return; /* the follow-up of a signal snapshot that had no answer */
    }
    bool detach = reason == GL_REASON_DETACH;
    if (reason != GL_REASON_SIGNAL && reason != GL_REASON_PERIODIC && reason != GL_REASON_REQUEST && !detach)
        return;
    if (!detach) /* the detach's question is no request for lines: they end with it */
        atomic_store(&gl_torch.lines_wanted, true); /* a request: PyTorch's lines from now on */
    if (!gl_pyapi_ready() || !gl_pyapi_c10_cuda_loaded())
        return;
    size_t len = 0;
    bool timed_out = false;
    char *buf;
    if ((reason == GL_REASON_REQUEST || detach) && gl_pyapi_thread_has_state()) {
        /* gpuleak_snapshot() called from a Python thread (gpuleak_memory,
         * through ctypes, with the GIL released or held): this thread is
         * in the program's own code, not in an allocator, so it may take
         * the GIL back as any callback does; waiting for the main thread
         * instead could wait for this very thread. */
        int g = gl_pyapi_gil_ensure();
        struct gl_py_exc escaped;
        buf = gl_torch_ask_here(&len, &escaped);
        if (escaped.type != NULL) {
            buf = gl_torch_interrupted_answer(buf, &len);
            gl_pyapi_hand_back(&escaped);
        } else {
            gl_torch_serve_attach(buf, len);
            if (!detach) {
                gl_torch_start_lines_here(&escaped); /* the answer stands whatever this does */
                if (escaped.type != NULL)
                    gl_pyapi_hand_back(&escaped);
            }
        }
        gl_pyapi_gil_release(g);
    } else if (atomic_load(&gl_torch.torch_seen)) {
        /* The detach's answer is waited for as the attach's is, well inside
         * the launcher's 60 s for the whole detach. */
        atomic_store(&gl_torch.detach_asking, detach);
        buf = ask_main_thread(reason, detach ? ATTACH_ANSWER_WAIT_MS : GL_TORCH_ANSWER_WAIT_MS, &len, &timed_out);
        atomic_store(&gl_torch.detach_asking, false);
    } else {
        return; /* no torch seen yet: nothing to wait 2 s for */
    }
    if (buf == NULL) {
        /* No answer: the first snapshot after an attach that PyTorch
         * answered carries that answer, with its age. */
        if (timed_out && atomic_exchange(&gl_torch.attach_view_unclaimed, false) && gl_torch_decode_kept(out)) {
            gl_torch_mark_before_attach(out);
            return;
        }
        /* No torch, or no answer: say so only where torch was seen, so a
         * program without it has no record at all. */
        if (timed_out && atomic_load(&gl_torch.torch_seen))
            out->status = GL_TORCH_NO_ANSWER;
        return;
    }
    atomic_store(&gl_torch.torch_seen, true);
    if (gl_torch_answer_failed(buf, len)) {
        out->status = GL_TORCH_FAILED;
    } else if (gl_torch_decode(buf, len, out)) {
        out->status = GL_TORCH_ANSWERED;
        gl_torch_mark_before_attach(out);
        atomic_store(&gl_torch.attach_view_unclaimed, false);
        gl_torch_keep_view(buf, len);
    } else {
        gl_torch_view_free(out);
        out->status = GL_TORCH_FAILED;
    }
    free(buf);
}

/* Not a snapshot's reason: the attach's question, answered late (its
 * answer serves the attach through attach_answer_wanted, not through
 * late_reason, which a later snapshot's question may replace). */
#define ATTACH_ASK UINT32_C(0x80000000)

void gl_torch_attach_ask(void)
{
    if (!gl_config.torch || !gl_pyapi_ready() || !gl_pyapi_c10_cuda_loaded())
        return;
    /* Called on a Python thread (an attach begun in-process), the main
     * thread may be this one, which cannot answer while it waits: the first
     * snapshot asks, as in a preloaded process. */
    if (gl_pyapi_thread_has_state())
        return;
    atomic_store(&gl_torch.attach_view_unclaimed, false);
    atomic_store(&gl_torch.attach_answer_wanted, true);
    gl_before_attach_torch_asked();
    size_t len = 0;
    bool timed_out = false;
    char *buf = ask_main_thread(ATTACH_ASK, ATTACH_ANSWER_WAIT_MS, &len, &timed_out);
    /* Answered: torch is there.  Not in time: the main thread runs no
     * bytecode now; snapshots ask it and say when it does not answer. */
    if ((buf != NULL && !gl_torch_answer_failed(buf, len)) || timed_out)
        atomic_store(&gl_torch.torch_seen, true);
    free(buf);
}

void gl_torch_postfork_child(void)
{
    atomic_store(&phase, PHASE_IDLE);
    atomic_store(&asking, false);
    free(atomic_exchange(&answer, NULL));
    gl_torch_state_postfork_child();
    gl_pyapi_postfork_child();
    gl_torch_answer_postfork_child();
    gl_torch_steps_postfork_child(); /* the parent's steps are not the child's */
    if (pthread_once(&answered_once, answered_init) == 0)
        sem_init(&answered, 0, 0);
}
