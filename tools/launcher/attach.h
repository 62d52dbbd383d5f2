/* gpuleak attach [--duration TIME] [--output PATTERN] [--depth N] PID:
 * loads libgpuleak.so into a running process started without it, through
 * gdb (docs/attach.md), and tracks it from then on; with --duration,
 * detaches after TIME. */
#ifndef GL_LAUNCHER_ATTACH_H
#define GL_LAUNCHER_ATTACH_H

int cmd_attach(int argc, char **argv);

/* The directory a snapshot pattern writes to, as the script's output_dir
 * found it: the pattern itself when it ends in '/' or is a directory,
 * else its part before the last '/' ("/" for none left).  A new string. */
char *output_dir(const char *pattern);

#endif
