/* gpuleak check [options] -- command [args...]: the command under
 * libgpuleak.so, then a report of each process's final snapshot and a
 * verdict, as valgrind's memcheck gives one (docs/launcher.md): exit 2
 * when something was not checked, --error-exitcode's status on errors,
 * else the command's. */
#ifndef GL_LAUNCHER_CHECK_H
#define GL_LAUNCHER_CHECK_H

int cmd_check(int argc, char **argv);

/* In a child of check's, before its exec: check's cleanup handlers back
 * to the default (they are the parent's files to remove). */
void untrap_in_child(void);

#endif
