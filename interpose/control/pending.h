/* The process's final-snapshot mark, for the launcher
 * (GPULEAK_PENDING_DIR, set by `gpuleak check` and `gpuleak run`).
 *
 * A process that ends through the exit_group system call or SIGKILL
 * runs no code of ours, so it cannot say it left no final snapshot.  So the
 * mark is made before anything can be lost: at the process's first
 * tracked call (a forked child: its first after fork), an empty file named
 * by its pid in that directory.  The final snapshot replaces it with
 * "written PATH" (the file written) or "not written" (it could not be).
 * An empty mark left when the job has ended names a process that made CUDA
 * calls and was never judged.  Without the variable nothing is made. */
#ifndef GL_CONTROL_PENDING_H
#define GL_CONTROL_PENDING_H

#include <stdbool.h>

/* Reads GPULEAK_PENDING_DIR (an absolute directory; anything else: one
 * warning, no mark).  At activation. */
void gl_pending_configure(void);

/* Makes this process's empty mark, once per process (the first call after
 * activation or fork; later calls return at once). */
void gl_pending_mark(void);

/* The final snapshot: written to path, or (NULL) could not be written. */
void gl_pending_final(const char *path);

/* Tracking ends without a final snapshot owed (a detach): the mark goes. */
void gl_pending_remove(void);

/* Whether this process made a tracked call since activation or fork (its
 * mark was made, or would have been with GPULEAK_PENDING_DIR): an exec in
 * a forked child that made none writes no snapshot of its parent's state. */
bool gl_pending_process_called(void);

/* An exec is about to replace the image, whose last snapshot (reason
 * exec) was written to path: the mark "PID.exec.K" (the first K free)
 * says "written PATH", so the launcher judges this image by it, and the
 * mark PID goes (the next image makes its own at its first tracked call).
 * path NULL (not written): the marks stay as they are. */
void gl_pending_exec(const char *path);

/* The exec failed: its mark goes, and the empty mark PID is back (the
 * process goes on, and its final snapshot is owed again). */
void gl_pending_exec_failed(void);

/* fork: the child is marked at its own first tracked call. */
void gl_pending_postfork_child(void);

#endif
