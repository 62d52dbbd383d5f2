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

/* `gpuleak attach` and `gpuleak detach` call these through gdb in a process
 * started without libgpuleak, after dlopen'ing it (docs/attach.md).
 * config: "GPULEAK_X=value" lines separated by '\n' (the process's own
 * environment is read for the others), or NULL.  They return one of: */
#define GPULEAK_ATTACH_OK 0
#define GPULEAK_ATTACH_ALREADY 1      /* tracking already (attached, or started under gpuleak run) */
#define GPULEAK_ATTACH_PRELOADED 2    /* libgpuleak is preloaded: use gpuleak snapshot */
#define GPULEAK_ATTACH_BUSY 3         /* another attach or detach is running */
#define GPULEAK_ATTACH_BAD_CONFIG 4   /* a config line not of the form GPULEAK_X=value */
#define GPULEAK_ATTACH_NO_HOOKS 5     /* a slot could not be written: nothing changed */
#define GPULEAK_ATTACH_NOT_ATTACHED 6 /* detach: no attach to end */
#define GPULEAK_ATTACH_DISABLED 7     /* the process has GPULEAK_DISABLE=1 in its environment */
#define GPULEAK_ATTACH_OTHER_COPY 8   /* another copy of libgpuleak, loaded by an attach, is in the process */
int gpuleak_attach_begin(const char *config);
int gpuleak_attach_end(void);
/* Slots the attach rewrote, or -1 when not attached. */
long gpuleak_attach_slots(void);
/* The snapshot the last gpuleak_attach_end wrote ("" if none). */
const char *gpuleak_attach_last_snapshot(void);
/* What gdb calls: gpuleak_attach_begin(config) or gpuleak_attach_end() on a
 * thread of gpuleak's own, started here and returning at once (the stopped
 * thread may hold a lock the work needs); its outcome, "RC SNAPSHOT\n",
 * goes into a new file at status.  0 when started; when not,
 * GPULEAK_ATTACH_BUSY (another start of this process runs),
 * GPULEAK_ATTACH_BAD_CONFIG (an argument missing or over 4 KiB),
 * GPULEAK_ATTACH_NOT_ATTACHED (detach only), or -1 (no thread could be
 * started). */
int gpuleak_attach_start(const char *config, const char *status);
int gpuleak_detach_start(const char *status);

#ifdef __cplusplus
}
#endif

#endif
