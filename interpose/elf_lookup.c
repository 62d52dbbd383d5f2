#include "elf_lookup.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

struct query {
    const char *name;
    void *found;
};

/* glibc relocates the pointers in PT_DYNAMIC in place on most architectures
 * and leaves them as offsets on a few: accept both. */
static uintptr_t dyn_ptr(const struct dl_phdr_info *info, ElfW(Addr) v)
{
    return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = h * 33 + *p;
    return h;
}

static void *lookup_in(const struct dl_phdr_info *info, const char *name)
{
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (dyn == NULL)
        return NULL;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const uint32_t *gnuhash = NULL;
    const ElfW(Half) *versym = NULL;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_GNU_HASH: gnuhash = (const uint32_t *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_VERSYM: versym = (const ElfW(Half) *)dyn_ptr(info, dyn->d_un.d_ptr); break;
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
                strcmp(strtab + sym->st_name, name) == 0) {
                void *addr = (void *)(info->dlpi_addr + sym->st_value);
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

static int search(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct query *q = data;
    if (info->dlpi_phnum > 0 && gl_is_own_address(info->dlpi_addr + info->dlpi_phdr[0].p_vaddr))
        return 0;
    void *addr = lookup_in(info, q->name);
    if (addr != NULL && !gl_is_own_address((uintptr_t)addr)) {
        q->found = addr;
        return 1;
    }
    return 0;
}

void *gl_elf_find_symbol(const char *name)
{
    struct query q = {name, NULL};
    dl_iterate_phdr(search, &q);
    return q.found;
}
