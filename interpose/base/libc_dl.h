/* libc's dlsym, dlvsym and dlclose, bypassing libgpuleak's own hooks on
 * them (libc_dl.c). */
#ifndef GL_BASE_LIBC_DL_H
#define GL_BASE_LIBC_DL_H

/* libc's dlsym and dlvsym, found once (gl_libc_dl_init); NULL until then or
 * if not found.  Read by the dlsym trampolines (hooks/dlsym_trampoline.S). */
extern void *gl_libc_dlsym_ptr;
extern void *gl_libc_dlvsym_ptr;

/* Finds them if not found yet.  Calls no libc function and is not
 * instrumented (GL_NO_SANITIZE): it can run inside a sanitizer runtime's
 * initializer. */
void gl_libc_dl_init(void);

/* libc's dlsym, bypassing libgpuleak's own dlsym hook (hooks/dlsym_hook.c). */
void *gl_libc_dlsym(void *handle, const char *name);

/* libc's dlclose, bypassing the dlclose hook (hooks/dlsym_hook.c); -1 when
 * there is none. */
int gl_libc_dlclose(void *handle);

#endif
