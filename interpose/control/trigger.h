/* Snapshots taken while the program runs: on a signal (SIGUSR1 by default)
 * and on out-of-memory.
 *
 * The signal handler only posts a semaphore (async-signal-safe: no locks, no
 * malloc); a writer thread, started when tracking activates and with every
 * signal blocked so it never receives the program's signals (but the snapshot
 * signal while the handler is gpuleak's: `gpuleak snapshot` sends it to that
 * thread alone), wakes up and writes the snapshot.  So a snapshot can be asked for at any instant, even
 * while a thread is inside malloc or holds one of gpuleak's locks. */
#ifndef GL_TRIGGER_H
#define GL_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>

/* Installs the handlers and starts gpuleak's threads: the writer and the
 * fatal thread, which writes only fatal-signal snapshots (GPULEAK_SIGNAL: a
 * number or name such as USR2, or "none"). */
void gl_trigger_start(void);

/* `gpuleak detach`: the snapshot and fatal signals back to their default
 * actions, and the writer and fatal threads ended (waits for them, at most
 * 5 s).  A later gl_trigger_start starts again. */
void gl_trigger_stop(void);

/* fn (NULL: none) runs on the writer thread at least every 250 ms while it
 * waits: an attach uses it to reach libraries loaded after it. */
void gl_trigger_set_tick(void (*fn)(void));

/* After an allocation failed with out-of-memory: a snapshot of what was live,
 * at most one per GPULEAK_OOM_INTERVAL seconds (GPULEAK_OOM_SNAPSHOT=0: none).
 * Written synchronously by the failing thread, so it shows exactly the state
 * the program saw when the allocation failed. */
void gl_trigger_oom(int32_t device, uint64_t mem_free, uint64_t mem_total);

void gl_trigger_postfork_child(void);

/* Says once if the program has replaced the snapshot signal's handler (the
 * writer checks every few seconds, and the exit path once more). */
void gl_trigger_check_signal(void);

/* Restarts the writer and the fatal thread in a forked child (cheap when
 * they are running). */
void gl_trigger_check(void);

#endif
