/* The process's "final snapshot pending" mark, for the launcher
 * (GPULEAK_PENDING_DIR, set by `gpuleak check` and `gpuleak run`).
 *
 * A process that ends through the exit_group system call, exec or SIGKILL
 * runs no code of ours, so it cannot say it left no final snapshot.  So the
 * mark is made before anything can be lost: at the process's first
 * tracked call (a forked child: its first after fork), an empty file named
 * by its pid in that directory; the final snapshot, once written, removes
 * it.  What is left when the job has ended names each process that made
 * CUDA calls and was never judged.  A final snapshot that could not be
 * written says so in the file.  Without the variable nothing is made. */
#ifndef GL_CONTROL_PENDING_H
#define GL_CONTROL_PENDING_H

/* Reads GPULEAK_PENDING_DIR (an absolute directory; anything else: one
 * warning, no mark).  At activation. */
void gl_pending_configure(void);

/* Makes this process's mark, once per process (the first call after
 * activation or fork; later calls return at once). */
void gl_pending_mark(void);

/* The final snapshot is written: the mark goes. */
void gl_pending_clear(void);

/* The final snapshot could not be written: the mark stays and says so. */
void gl_pending_failed(void);

/* fork: the child is marked at its own first tracked call. */
void gl_pending_postfork_child(void);

#endif
