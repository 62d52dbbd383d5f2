/* gpuleak public API.  Link nothing: these functions exist only while
 * libgpuleak.so is preloaded.  To call them from a program that must also run
 * without gpuleak, declare them weak and test for NULL:
 *
 *     #include <gpuleak.h>
 *     #pragma weak gpuleak_snapshot
 *     ...
 *     if (gpuleak_snapshot) gpuleak_snapshot(NULL);
 *
 * or look them up with dlsym(RTLD_DEFAULT, "gpuleak_snapshot").  Python:
 * tools/gpuleak_memory.py (ctypes). */
#ifndef GPULEAK_H
#define GPULEAK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes a snapshot now.  path: a file name, or NULL for the next name from
 * GPULEAK_OUTPUT.  Returns 0, or -1 if none was written (one warning line on
 * stderr says why).  The file is never an existing one: existing names are
 * not overwritten. */
int gpuleak_snapshot(const char *path);

/* The same, and tells which file it wrote: its name (absolute when it came
 * from GPULEAK_OUTPUT, path as given otherwise) is copied to name, size bytes
 * with the NUL; name is "" if it does not fit (4096 bytes always do). */
int gpuleak_snapshot_name(const char *path, char *name, size_t size);

/* Puts a labelled marker on the timeline ("epoch 3"), kept in the history
 * and shown by the reporter next to the memory curve.  Labels longer than
 * 255 bytes are cut.  Returns 0, or -1 if tracking is off. */
int gpuleak_annotate(const char *label);

/* Turns the history on (with room for max_entries events; 0 means the
 * default, 65536) or off, like torch.cuda.memory._record_memory_history.
 * Events recorded so far are dropped.  Returns 0, or -1 on a bad argument
 * or when tracking is off. */
int gpuleak_record_history(int enabled, long max_entries);

#ifdef __cplusplus
}
#endif

#endif
