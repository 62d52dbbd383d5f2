/* gpuleak public API.  Link nothing: these functions exist only while
 * libgpuleak.so is preloaded.  To call them from a program that must also run
 * without gpuleak, declare them weak and test for NULL:
 *
 *     #include <gpuleak.h>
 *     #pragma weak gpuleak_snapshot
 *     ...
 *     if (gpuleak_snapshot) gpuleak_snapshot(NULL);
 *
 * or look them up with dlsym(RTLD_DEFAULT, "gpuleak_snapshot"). */
#ifndef GPULEAK_H
#define GPULEAK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Writes a snapshot now.  path: a file name, or NULL for the next name from
 * GPULEAK_OUTPUT.  Returns 0, or -1 if none was written (one warning line on
 * stderr says why).  The file is never an existing one: existing names are
 * not overwritten. */
int gpuleak_snapshot(const char *path);

#ifdef __cplusplus
}
#endif

#endif
