/* Finds a symbol in the loaded objects by reading their dynamic symbol tables
 * directly.  Used for exactly one thing: libc's own dlsym and dlvsym, which
 * libgpuleak interposes and therefore cannot look up through dlsym. */
#ifndef GL_ELF_LOOKUP_H
#define GL_ELF_LOOKUP_H

/* The default-version definition of `name` in the first loaded object (other
 * than libgpuleak) that defines it; NULL if none does. */
void *gl_elf_find_symbol(const char *name);

/* libc's dlsym, bypassing libgpuleak's own dlsym hook (dlsym_hook.c). */
void *gl_libc_dlsym(void *handle, const char *name);

#endif
