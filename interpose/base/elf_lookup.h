/* Finds a symbol in the loaded objects by reading their dynamic symbol tables
 * directly, without the dynamic linker: for libc's own dlsym and dlvsym
 * (which libgpuleak interposes and therefore cannot look up through dlsym),
 * and for searching one loaded object for a definition (resolve.c), which
 * through dlopen could run that object's constructors again during exit. */
#ifndef GL_ELF_LOOKUP_H
#define GL_ELF_LOOKUP_H

/* The default-version definition of `name` in the first loaded object (other
 * than libgpuleak) that defines it; NULL if none does. */
void *gl_elf_find_symbol(const char *name);

/* The default-version definition of `name` in the one object loaded at
 * `base` with dynamic section `dyn` (a dl_iterate_phdr entry); NULL if it
 * has none.  GNU indirect functions are not returned (their symbol is the
 * resolver, not the function). */
struct dl_phdr_info;
void *gl_elf_find_in_object(const struct dl_phdr_info *info, const char *name);

#endif
