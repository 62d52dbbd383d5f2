#include "base/elf_lookup.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "base/internal.h"

/* glibc relocates the pointers in PT_DYNAMIC in place on most architectures
 * and leaves them as offsets on a few: accept both. */
GL_NO_SANITIZE static uintptr_t dyn_ptr(ElfW(Addr) base, ElfW(Addr) v)
{
    return v < base ? base + v : v;
}

GL_NO_SANITIZE static int str_eq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

GL_NO_SANITIZE static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = h * 33 + *p;
    return h;
}

GL_NO_SANITIZE static void *lookup_in(ElfW(Addr) base, const ElfW(Dyn) *dyn, const char *name)
{
    if (dyn == NULL)
        return NULL;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const uint32_t *gnuhash = NULL;
    const ElfW(Half) *versym = NULL;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_GNU_HASH: gnuhash = (const uint32_t *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        case DT_VERSYM: versym = (const ElfW(Half) *)dyn_ptr(base, dyn->d_un.d_ptr); break;
        default: break;
        }
    }
    if (symtab == NULL || strtab == NULL || gnuhash == NULL)
        return NULL;

    /* GNU hash table: nbuckets, symoffset, bloom_size, bloom_shift,
     * bloom[bloom_size], buckets[nbuckets], chain[]. */
    uint32_t nbuckets = gnuhash[0], symoffset = gnuhash[1], bloom_size = gnuhash[2];
    if (nbuckets == 0)
        return NULL;
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(gnuhash + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t h = gnu_hash(name);
    void *fallback = NULL;
    for (uint32_t i = buckets[h % nbuckets]; i >= symoffset && i != 0; i++) {
        uint32_t ch = chain[i - symoffset];
        if ((ch | 1u) == (h | 1u)) {
            const ElfW(Sym) *sym = &symtab[i];
            if (sym->st_shndx != SHN_UNDEF && sym->st_value != 0 &&
                ELF64_ST_TYPE(sym->st_info) != STT_GNU_IFUNC && str_eq(strtab + sym->st_name, name)) {
                void *addr = (void *)(base + sym->st_value);
                /* Prefer the default version (not hidden): what a program
                 * linked today would bind to. */
                if (versym == NULL || (versym[i] & 0x8000) == 0)
                    return addr;
                if (fallback == NULL)
                    fallback = addr;
            }
        }
        if (ch & 1u)
            break;
    }
    return fallback;
}

/* Walks the dynamic linker's list of loaded objects (_r_debug, set up before
 * any initializer runs) rather than calling dl_iterate_phdr: this runs on the
 * dlsym trampoline's path, which another preloaded runtime (ASan's, in
 * sanitizer builds) may enter from its own initializer, before anything, even
 * libc's interposed functions, is ready.  So: no libc call, no
 * instrumentation. */
extern ElfW(Dyn) _DYNAMIC[] __attribute__((visibility("hidden")));

GL_NO_SANITIZE void *gl_elf_find_symbol(const char *name)
{
    for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next) {
        if (l->l_ld == _DYNAMIC) /* ourselves */
            continue;
        void *addr = lookup_in(l->l_addr, l->l_ld, name);
        if (addr != NULL)
            return addr;
    }
    return NULL;
}

GL_NO_SANITIZE void *gl_elf_find_in_object(const struct dl_phdr_info *info, const char *name)
{
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            return lookup_in(info->dlpi_addr,
                             (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr), name);
    return NULL;
}
