/* The dlsym, dlvsym and dlclose entry points by hidden names, for `gpuleak
 * attach`, which writes them into the program's import slots (hooks/
 * attach.c): from a library that is not preloaded, a reference to "dlsym"
 * would bind to libc's. */
#ifndef GL_HOOKS_DLSYM_HOOK_H
#define GL_HOOKS_DLSYM_HOOK_H

void gl_dlsym_trampoline(void);  /* dlsym_trampoline.S: the exported dlsym */
void gl_dlvsym_trampoline(void); /* the exported dlvsym */
int gl_dlclose_hook(void *handle); /* dlsym_hook.c: the exported dlclose */

#endif
