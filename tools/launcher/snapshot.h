/* gpuleak snapshot [--timeout SECONDS] PID: asks a running, preloaded
 * process (or the pid of "gpuleak run") for a snapshot, through its
 * snapshot signal sent to gpuleak's own thread alone, waits for the new
 * file and prints its name.  Refuses when the signal would kill the
 * process or go to the program's own handler. */
#ifndef GL_LAUNCHER_SNAPSHOT_H
#define GL_LAUNCHER_SNAPSHOT_H

int cmd_snapshot(int argc, char **argv);

/* The number of the snapshot signal GPULEAK_SIGNAL=value names, read as
 * the library reads it (config.c, trigger.c): empty is SIGUSR1; none or 0
 * is 0 (off), and so are the signals it refuses; an unknown name is
 * SIGUSR1, as the library falls back. */
int signal_number(const char *value);

/* The signal's name as kill -l gives it (USR1, RTMIN+2, RTMAX-1). */
char *signal_name(int sig);

#endif
