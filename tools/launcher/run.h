/* gpuleak run [options] -- command [args...]: the command with
 * libgpuleak.so preloaded, every option checked before it starts (exit 2),
 * its status passed on, and one end line naming the snapshots written. */
#ifndef GL_LAUNCHER_RUN_H
#define GL_LAUNCHER_RUN_H

int cmd_run(int argc, char **argv);

#endif
