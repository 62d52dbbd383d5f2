/* The process's last snapshots (final.c): the final one at exit or on a
 * fatal signal, once; before _exit, quick_exit and exec, where no exit
 * handler runs, on the writer thread within a bound. */
#ifndef GL_CONTROL_FINAL_H
#define GL_CONTROL_FINAL_H

#include <stdint.h>

/* Writes the process's final snapshot unless one was written already: at
 * exit, or on a fatal signal (trigger.c). */
void gl_final_snapshot(uint32_t reason);

/* _exit or _Exit, called by the program (hooks/hooks_exit.c): no exit
 * handler or destructor will run, so the final snapshot is written now, by
 * the writer thread within a bound (or by this thread when there is none),
 * unless this thread is inside a region of gpuleak's (a signal handler). */
void gl_final_snapshot_before__exit(void);

/* An exec is about to replace this image (hooks/hooks_exec.c): its last
 * snapshot, reason exec and not final (the exec may fail), is written as
 * _exit's is, and the launcher's mark names it (pending.h).  Nothing in a
 * process that made no tracked call since fork (a child about to run
 * another program), in a vfork child, or inside a region of gpuleak's. */
void gl_snapshot_before_exec(void);

/* The exec returned: it failed, the image goes on and owes its final
 * snapshot again (the exec snapshot stays, one of its series). */
void gl_exec_failed(void);

/* at_quick_exit's handler, registered at activation. */
void gl_final_at_quick_exit(void);

/* A final snapshot is owed again: an attach after a detach, a fork child. */
void gl_final_rearm(void);

#endif
