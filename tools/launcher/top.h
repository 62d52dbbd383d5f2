/* gpuleak top [--once] [--interval SECONDS] [--top N] [--alloc-fn NAME] PID:
 * the live view (libexec/gpuleak/gpuleak-top) of a running, preloaded
 * process or of "gpuleak run". */
#ifndef GL_LAUNCHER_TOP_H
#define GL_LAUNCHER_TOP_H

int cmd_top(int argc, char **argv);

#endif
