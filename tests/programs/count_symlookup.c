/* Preloaded into gpuleak-report: counts its reads of symbol tables through
 * libdwfl -- dwfl_module_addrinfo (a pc's symbol: a scan of the whole table
 * of its file) and dwfl_module_getsym_info (one symbol) -- and writes the
 * count to $COUNT_SYMLOOKUP at exit.  tests/t_report_symbol_cache.sh: a
 * series of snapshots of one process reads each file's symbols once, not
 * once per snapshot. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>

static long calls;

const char *dwfl_module_addrinfo(Dwfl_Module *mod, GElf_Addr address, GElf_Off *offset,
                                 GElf_Sym *sym, GElf_Word *shndxp, Elf **elfp, Dwarf_Addr *bias)
{
    static const char *(*real)(Dwfl_Module *, GElf_Addr, GElf_Off *, GElf_Sym *, GElf_Word *,
                               Elf **, Dwarf_Addr *);
    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "dwfl_module_addrinfo");
    calls++;
    return real(mod, address, offset, sym, shndxp, elfp, bias);
}

const char *dwfl_module_getsym_info(Dwfl_Module *mod, int ndx, GElf_Sym *sym, GElf_Addr *addr,
                                    GElf_Word *shndxp, Elf **elfp, Dwarf_Addr *bias)
{
    static const char *(*real)(Dwfl_Module *, int, GElf_Sym *, GElf_Addr *, GElf_Word *, Elf **,
                               Dwarf_Addr *);
    if (real == NULL)
        *(void **)&real = dlsym(RTLD_NEXT, "dwfl_module_getsym_info");
    calls++;
    return real(mod, ndx, sym, addr, shndxp, elfp, bias);
}

__attribute__((destructor)) static void write_count(void)
{
    const char *path = getenv("COUNT_SYMLOOKUP");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f == NULL)
        return;
    fprintf(f, "%ld\n", calls);
    fclose(f);
}
