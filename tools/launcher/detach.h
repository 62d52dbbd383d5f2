/* gpuleak detach PID: ends an attach (docs/attach.md).  gdb calls the
 * library's gpuleak_detach_start, which only sets a flag: gpuleak's own
 * thread puts back every slot the attach changed, writes a last snapshot
 * (reason "detach") and answers in a status file; its name is printed and
 * the process runs on at full speed. */
#ifndef GL_LAUNCHER_DETACH_H
#define GL_LAUNCHER_DETACH_H

int cmd_detach(int argc, char **argv);

/* The library's answer line "RC SNAPSHOT" split: *rc its first word (up
 * to the first space; all of it when there is none), *snap the rest, or
 * "" when there is no space.  New strings. */
void split_status(const char *line, char **rc, char **snap);

/* The gdb command that loads the symbols of the library at lib_path: its
 * file name, with each '.' escaped for gdb's regular expression. */
char *sharedlibrary_cmd(const char *lib_path);

#endif
