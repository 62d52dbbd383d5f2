/* The files and directories gpuleak check makes, names and removes: its
 * snapshot directory, its work directory, and check --json's document
 * written to its target. */
#ifndef GL_LAUNCHER_CHECK_FILES_H
#define GL_LAUNCHER_CHECK_FILES_H

#include <stdbool.h>

/* mkdir -p dir; on failure false, mkdir(1)'s message said. */
bool make_dirs(const char *dir);

/* dir made absolute as the shell's `cd dir && pwd` names it (logically:
 * '.' and '..' read as text, from $PWD), or NULL when it cannot be
 * entered. */
char *logical_abspath(const char *dir);

/* Empties and removes the directory dir and its subdirectories, depth
 * levels deep, with async-signal-safe calls only (a signal handler's
 * cleanup: check's work directory is two levels). */
void remove_dir_in_handler(const char *dir, int depth);

/* The directory part of a file name, as dirname(1) gives it ("." for
 * none); the caller frees it. */
char *dir_name(const char *p);

/* A name in coreutils' messages: 'name', or ‘name’ in a UTF-8 locale. */
char *coreutils_quote(const char *name);

/* Writes text to check --json's target path (parse.h's target_of): a
 * stream or a device or FIFO in place, a file whole or not at all (a new
 * 0600 file renamed over it).  NULL, or why not. */
char *write_json_target(const char *text, const char *path);

#endif
