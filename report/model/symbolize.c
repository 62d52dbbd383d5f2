/* Symbolization with elfutils libdwfl.
 *
 * Each module of the snapshot gets its own offline Dwfl, reported at the load
 * bias recorded in the snapshot.  One Dwfl per module (rather than one for
 * all) keeps a bad or overlapping module from affecting the others and lets
 * us reject a module whose build-id does not match before any name from it is
 * used: a wrong name is worse than none, so such frames stay module+offset.
 *
 * Every recorded pc is a return address, so lookups use pc-1 (inside the
 * call instruction) to get the line of the call, not the line after it. */
#include "model/symbolize.h"

#include "util/sort.h"
#include "util/xalloc.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* from libstdc++ (cxxabi.h is C++ only) */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct cache_slot {
    uint64_t pc;
    size_t first; /* index into frames */
    uint32_t n;   /* 0 = empty slot (a resolved pc always has >= 1 frame) */
};

/* One frame of a pc in an opened file: what the file says, whichever
 * snapshot asked (the snapshot's own fields, module index and name, are
 * added by each symbolizer). */
struct file_frame {
    char *function;
    char *file;
    unsigned line;
    bool inlined;
};

/* The frames every pc of one opened file resolved to, shared by the
 * symbolizers of all snapshots that use the file: the snapshots of one job
 * repeat the same pcs, and a lookup in a large library costs a scan of its
 * whole symbol table in libdwfl (dwfl_module_addrinfo is linear in the
 * symbols), so a diff or a page of five snapshots of a PyTorch job looked
 * every pc up five times.  A pc's frames depend on the file alone (path,
 * load bias, contents), which is the key of the open_file holding this
 * cache. */
struct file_cache {
    struct cache_slot *slots;
    size_t nslots, used;
    struct file_frame *frames;
    size_t nframes, cap_frames;
};

/* One symbol of a file's index: an eligible one (named, defined, not a
 * section, file or TLS symbol: those dwfl_module_addrinfo may answer). */
struct index_sym {
    uint64_t value; /* adjusted to the load bias, as libdwfl compares it */
    uint64_t size;
    const char *name; /* libdwfl's, alive as long as the Dwfl */
};

/* A file's symbols sorted by address, for the lookups of its pcs: libdwfl
 * scans the whole table for each pc (545,000 symbols in libtorch_cpu.so,
 * 6-90 ms a pc here); the index answers by bisection where libdwfl's choice
 * is plain -- exactly one sized symbol holds the pc and no sizeless one
 * starts at it -- and asks libdwfl otherwise (aliases, nested or sizeless
 * symbols), so the names are libdwfl's either way. */
struct sym_index {
    bool built;
    struct index_sym *syms;
    uint64_t *max_end; /* max_end[i]: the highest value + size of syms[0..i] */
    size_t n;
};

/* An opened module file, shared by every symbolizer of the run that needs
 * that file at that load bias: the snapshots of one job name the same files,
 * and each Dwfl holds the file's parsed debug information (about 190 KB for
 * the test generator, far more for a large library) -- a diff of 1,000
 * snapshots of one process opened the same file 1,000 times, which was most
 * of its memory and time.  The build-id is still checked per snapshot.  The
 * reporter is single-threaded. */
struct open_file {
    char *path;
    uint64_t bias;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    size_t refs;
    struct file_cache cache; /* what its pcs resolved to, for every snapshot */
    struct sym_index index;
};
static struct open_file **g_files;
static size_t g_nfiles, g_capfiles;

struct sym_module {
    enum sym_module_status status;
    struct open_file *file; /* a reference, or NULL */
    Dwfl *dwfl;
    Dwfl_Module *mod;
    char *basename;
    char *note;
};

struct symbolizer {
    const struct snapshot *s;
    bool open_files; /* false: no module is opened (sym_new) */
    struct sym_module *mods;
    size_t *by_start; /* module indices sorted by start address */
    struct cache_slot *slots;
    size_t nslots, used;
    struct sym_frame *frames;
    size_t nframes, cap_frames;
    char **strings; /* every string we own, freed at the end */
    size_t nstrings, cap_strings;
};

/* Takes ownership of str (may be NULL) and returns it. */
static char *own(struct symbolizer *sy, char *str)
{
    if (!str)
        return NULL;
    if (sy->nstrings == sy->cap_strings)
        sy->strings = xgrow(sy->strings, &sy->cap_strings, 256, sizeof *sy->strings);
    sy->strings[sy->nstrings++] = str;
    return str;
}

/* Demangled copy of a (possibly mangled) name. */
static char *demangle(const char *name)
{
    if (name[0] == '_' && name[1] == 'Z') {
        int status = -1;
        char *d = __cxa_demangle(name, NULL, NULL, &status);
        if (d && status == 0)
            return d;
        free(d);
    }
    return xstrdup(name);
}

static int cmp_start(const void *a, const void *b, void *ctx)
{
    const struct snapshot *s = ctx;
    uint64_t x = s->modules[*(const size_t *)a].start;
    uint64_t y = s->modules[*(const size_t *)b].start;
    if (x != y)
        return x < y ? -1 : 1;
    /* keep file order for equal starts: the lower index wins */
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static const char *path_basename(const char *p)
{
    const char *slash = strrchr(p, '/');
    return slash ? slash + 1 : p;
}

/* The module path, or the exe path for the main program, which
 * dl_iterate_phdr reports with an empty name. */
static const char *module_path(const struct snapshot *s, size_t i)
{
    const char *p = s->modules[i].path.s;
    if ((!p || !*p) && s->proc.exe.s)
        return s->proc.exe.s;
    return p ? p : "";
}

struct symbolizer *sym_new(const struct snapshot *s, bool open_files)
{
    struct symbolizer *sy = xcalloc(1, sizeof *sy);
    if (!sy)
        return NULL;
    sy->s = s;
    sy->open_files = open_files;
    sy->mods = xcalloc(s->nmodules ? s->nmodules : 1, sizeof *sy->mods);
    sy->by_start = xcalloc(s->nmodules ? s->nmodules : 1, sizeof *sy->by_start);
    sy->nslots = 1024;
    sy->slots = xcalloc(sy->nslots, sizeof *sy->slots);
    if (!sy->mods || !sy->by_start || !sy->slots) {
        sym_free(sy);
        return NULL;
    }
    for (size_t i = 0; i < s->nmodules; i++) {
        sy->by_start[i] = i;
        const char *b = path_basename(module_path(s, i));
        sy->mods[i].basename = xstrdup(*b ? b : "?");
    }
    sort_array_r(sy->by_start, s->nmodules, sizeof *sy->by_start, cmp_start, (void *)s);
    return sy;
}

void sym_rebind(struct symbolizer *sy, const struct snapshot *s)
{
    sy->s = s;
}

/* The opened file for path at bias, shared; NULL when it cannot be read
 * (err: the reason, from libdwfl). */
static struct open_file *file_open(const char *path, const char *name, uint64_t bias, const char **err)
{
    for (size_t i = 0; i < g_nfiles; i++)
        if (g_files[i]->bias == bias && strcmp(g_files[i]->path, path) == 0) {
            g_files[i]->refs++;
            return g_files[i];
        }
    Dwfl *dwfl = dwfl_begin(&offline_callbacks);
    if (!dwfl) {
        *err = dwfl_errmsg(-1);
        return NULL;
    }
    dwfl_report_begin(dwfl);
    Dwfl_Module *mod = dwfl_report_elf(dwfl, name, path, -1, bias, true);
    dwfl_report_end(dwfl, NULL, NULL);
    if (!mod) {
        *err = dwfl_errmsg(-1);
        dwfl_end(dwfl);
        return NULL;
    }
    if (g_nfiles == g_capfiles)
        g_files = xgrow(g_files, &g_capfiles, 16, sizeof *g_files);
    struct open_file *f = xcalloc(1, sizeof *f);
    *f = (struct open_file){.path = xstrdup(path), .bias = bias, .dwfl = dwfl, .mod = mod, .refs = 1};
    g_files[g_nfiles++] = f;
    return f;
}

static void file_release(struct open_file *f)
{
    if (!f || --f->refs > 0)
        return;
    for (size_t i = 0; i < g_nfiles; i++)
        if (g_files[i] == f) {
            g_files[i] = g_files[--g_nfiles];
            break;
        }
    if (g_nfiles == 0) {
        free(g_files);
        g_files = NULL;
        g_capfiles = 0;
    }
    for (size_t i = 0; i < f->cache.nframes; i++) {
        free(f->cache.frames[i].function);
        free(f->cache.frames[i].file);
    }
    free(f->cache.frames);
    free(f->cache.slots);
    free(f->index.syms);
    free(f->index.max_end);
    dwfl_end(f->dwfl);
    free(f->path);
    free(f);
}

void sym_free(struct symbolizer *sy)
{
    if (!sy)
        return;
    if (sy->mods)
        for (size_t i = 0; i < sy->s->nmodules; i++) {
            file_release(sy->mods[i].file);
            free(sy->mods[i].basename);
            free(sy->mods[i].note);
        }
    for (size_t i = 0; i < sy->nstrings; i++)
        free(sy->strings[i]);
    free(sy->strings);
    free(sy->mods);
    free(sy->by_start);
    free(sy->slots);
    free(sy->frames);
    free(sy);
}

/* The module containing pc (the one with the highest start <= pc whose
 * [start,end) holds pc), or -1. */
static long find_module(const struct symbolizer *sy, uint64_t pc)
{
    const struct snapshot *s = sy->s;
    size_t lo = 0, hi = s->nmodules;
    while (lo < hi) { /* first module with start > pc */
        size_t mid = lo + (hi - lo) / 2;
        if (s->modules[sy->by_start[mid]].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k-- > 0;) {
        const struct snap_module *m = &s->modules[sy->by_start[k]];
        /* scan all lower starts: a hostile or odd map may nest modules */
        if (pc < m->end)
            return (long)sy->by_start[k];
    }
    return -1;
}

static void set_note(struct sym_module *m, const char *fmt, const char *a,
                     const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
    m->note = xrealloc(m->note, n);
    snprintf(m->note, n, fmt, a, b);
}

static void hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = '\0';
}

/* Opens module i on first use and decides whether its names can be trusted. */
static struct sym_module *open_module(struct symbolizer *sy, size_t i)
{
    struct sym_module *m = &sy->mods[i];
    if (m->status != SYM_MOD_UNUSED)
        return m;
    const struct snap_module *sm = &sy->s->modules[i];
    const char *path = module_path(sy->s, i);
    m->status = SYM_MOD_BAD;
    if (sm->path.len && strlen(sm->path.s) != sm->path.len) {
        m->status = SYM_MOD_MISSING; /* no file can have this name */
        set_note(m, "module %s%s: the recorded path holds a NUL byte; its frames are "
                 "shown as module+offset", path, "...");
        return m;
    }
    if (!sy->open_files) {
        m->status = SYM_MOD_MISSING;
        set_note(m, "module %s: %s; its frames are shown as module+offset",
                 *path ? path : "(no path)", "not opened (symbolization off)");
        return m;
    }
    if (!*path || access(path, R_OK) != 0) {
        m->status = SYM_MOD_MISSING;
        set_note(m, "module %s: %s; its frames are shown as module+offset",
                 *path ? path : "(no path)", *path ? strerror(errno) : "no file name recorded");
        return m;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        /* a FIFO or device named by a hostile snapshot could block or
         * never end; only regular files are opened */
        set_note(m, "module %s: %s; its frames are shown as module+offset", path,
                 "not a regular file");
        return m;
    }
    const char *why = NULL;
    m->file = file_open(path, m->basename, sm->load_bias, &why);
    if (!m->file) {
        set_note(m, "module %s: cannot read it: %s; its frames are shown as module+offset",
                 path, why ? why : "unknown error");
        return m;
    }
    m->dwfl = m->file->dwfl;
    m->mod = m->file->mod;
    if (sm->build_id_len > 0) {
        const unsigned char *bits = NULL;
        GElf_Addr vaddr;
        int n = dwfl_module_build_id(m->mod, &bits, &vaddr);
        if (n != (int)sm->build_id_len || memcmp(bits, sm->build_id, (size_t)n) != 0) {
            char want[2 * GL_SNAP_MAX_BUILD_ID + 1], got[2 * GL_SNAP_MAX_BUILD_ID + 1];
            hex(want, sm->build_id, sm->build_id_len);
            if (n > 0 && n <= (int)GL_SNAP_MAX_BUILD_ID)
                hex(got, bits, (size_t)n);
            else
                strcpy(got, "none");
            m->status = SYM_MOD_MISMATCH;
            size_t len = strlen(path) + strlen(want) + strlen(got) + 128;
            m->note = xrealloc(m->note, len);
            snprintf(m->note, len,
                     "module %s: build-id %s does not match the snapshot's %s "
                     "(file changed since the run?); its frames are shown as module+offset",
                     path, got, want);
            file_release(m->file);
            m->file = NULL;
            m->dwfl = NULL;
            m->mod = NULL;
            return m;
        }
    }
    m->status = SYM_MOD_OK;
    return m;
}

static void push_frame(struct symbolizer *sy, const struct sym_frame *f)
{
    if (sy->nframes == sy->cap_frames)
        sy->frames = xgrow(sy->frames, &sy->cap_frames, 1024, sizeof *sy->frames);
    sy->frames[sy->nframes++] = *f;
}

/* Name of a function DIE: the demangled linkage name when there is one
 * (qualified C++ names), else DW_AT_name.  Follows abstract origins and
 * specifications.  GCC gives functions in an anonymous namespace no linkage
 * name, so DW_AT_name would be bare ("allocate") where the symbol table has
 * the whole name ("at::cuda::(anonymous namespace)::Impl::allocate(...)"):
 * for the function the address is in (symname: its symbol, or NULL), a
 * mangled C++ symbol is used instead -- not a compiler clone's ("[clone
 * .cold]"), which names a part of the function. */
static char *die_function_name(Dwarf_Die *die, const char *symname)
{
    Dwarf_Attribute attr;
    const char *ln = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
        ln = dwarf_formstring(&attr);
    if (ln)
        return demangle(ln);
    if (symname != NULL && strncmp(symname, "_Z", 2) == 0) {
        char *d = demangle(symname);
        if (d != NULL && strstr(d, "[clone") == NULL && strcmp(d, symname) != 0)
            return d;
        free(d);
    }
    const char *n = dwarf_diename(die);
    if (!n && dwarf_attr_integrate(die, DW_AT_name, &attr))
        n = dwarf_formstring(&attr);
    return n ? xstrdup(n) : NULL;
}

static void push_file_frame(struct file_cache *fc, const struct file_frame *f)
{
    if (fc->nframes == fc->cap_frames)
        fc->frames = xgrow(fc->frames, &fc->cap_frames, 256, sizeof *fc->frames);
    fc->frames[fc->nframes++] = *f;
}

/* GPULEAK_REPORT_SYMBOL_CACHE=snapshot: every snapshot looks its pcs up
 * itself, as before the cache was shared (make bench's baseline for the
 * reporter on a series, docs/performance.md section 4; the output is the
 * same either way). */
static bool shared_cache_off(void)
{
    static int off = -1;
    if (off < 0) {
        const char *e = getenv("GPULEAK_REPORT_SYMBOL_CACHE");
        off = e != NULL && strcmp(e, "snapshot") == 0;
    }
    return off;
}

static int cmp_index_sym(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const struct index_sym *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return 0;
}

/* Every eligible symbol of the file, sorted, with the running end. */
static void index_build(struct open_file *of)
{
    struct sym_index *ix = &of->index;
    ix->built = true;
    int n = dwfl_module_getsymtab(of->mod);
    if (n <= 1)
        return;
    ix->syms = xmalloc((size_t)n * sizeof *ix->syms);
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr value;
        const char *name = dwfl_module_getsym_info(of->mod, i, &sym, &value, NULL, NULL, NULL);
        int type = GELF_ST_TYPE(sym.st_info);
        if (name == NULL || name[0] == '\0' || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
            type == STT_FILE || type == STT_TLS)
            continue;
        ix->syms[ix->n++] = (struct index_sym){.value = value, .size = sym.st_size, .name = name};
    }
    sort_array_r(ix->syms, ix->n, sizeof *ix->syms, cmp_index_sym, NULL);
    ix->max_end = xmalloc((ix->n ? ix->n : 1) * sizeof *ix->max_end);
    uint64_t end = 0;
    for (size_t i = 0; i < ix->n; i++) {
        uint64_t e = ix->syms[i].value + ix->syms[i].size;
        if (e > end)
            end = e;
        ix->max_end[i] = end;
    }
}

/* The symbol libdwfl's dwfl_module_addrinfo names for addr when it is
 * plain (struct sym_index), found with the index; NULL when the index
 * cannot tell (the caller asks libdwfl). */
static const char *index_lookup(struct open_file *of, uint64_t addr)
{
    enum { MAX_SCAN = 64 }; /* symbols looked at before giving up */
    struct sym_index *ix = &of->index;
    if (!ix->built)
        index_build(of);
    size_t lo = 0, hi = ix->n;
    while (lo < hi) { /* first symbol with value > addr */
        size_t mid = lo + (hi - lo) / 2;
        if (ix->syms[mid].value <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct index_sym *found = NULL;
    size_t scanned = 0;
    for (size_t k = lo; k-- > 0 && ix->max_end[k] > addr;) {
        const struct index_sym *y = &ix->syms[k];
        if (++scanned > MAX_SCAN)
            return NULL;
        if (y->size == 0) {
            if (y->value == addr)
                return NULL; /* libdwfl may prefer it to a local symbol */
        } else if (addr - y->value < y->size) {
            if (found != NULL)
                return NULL; /* more than one holds addr: libdwfl's order decides */
            found = y;
        }
    }
    /* a sizeless symbol at addr ends at addr: the scan above may have
     * stopped before it */
    for (size_t k = lo; k-- > 0 && ix->syms[k].value == addr;)
        if (ix->syms[k].size == 0)
            return NULL;
    return found ? found->name : NULL;
}

/* dwfl_module_addrinfo's symbol name for addr, through the index when it
 * can tell. */
static const char *symbol_name(struct open_file *of, uint64_t addr)
{
    const char *name = shared_cache_off() ? NULL : index_lookup(of, addr);
    if (name != NULL)
        return name;
    GElf_Off symoff;
    GElf_Sym sym;
    return dwfl_module_addrinfo(of->mod, addr, &symoff, &sym, NULL, NULL, NULL);
}

/* Appends to the file's cache the frames of one pc inside it (at least one). */
static void resolve_in_file(struct open_file *of, uint64_t pc)
{
    struct file_cache *fc = &of->cache;
    Dwfl_Module *mod = of->mod;
    Dwarf_Addr a = pc ? pc - 1 : 0;
    const char *symname = symbol_name(of, a);

    const char *file = NULL;
    int line = 0;
    Dwfl_Line *dl = dwfl_module_getsrc(mod, a);
    if (dl)
        file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);

    size_t before = fc->nframes;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cudie = dwfl_module_addrdie(mod, a, &bias);
    Dwarf_Die *scopes = NULL;
    int nscopes = cudie ? dwarf_getscopes(cudie, a - bias, &scopes) : 0;
    if (nscopes > 0) {
        /* dwarf_getscopes continues into an inlined function's abstract
         * definition; the concrete chain (inlined body -> the function it
         * was inlined into -> CU) comes from the innermost scope's DIE, as
         * in eu-addr2line -i */
        Dwarf_Die inner = scopes[0];
        free(scopes);
        scopes = NULL;
        nscopes = dwarf_getscopes_die(&inner, &scopes);
    }
    const char *cur_file = file;
    int cur_line = line;
    for (int i = 0; i < nscopes; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
            continue;
        struct file_frame f = {0};
        char *name = die_function_name(&scopes[i], tag == DW_TAG_subprogram ? symname : NULL);
        if (!name && tag == DW_TAG_subprogram && symname)
            name = demangle(symname);
        f.function = name;
        f.file = cur_file ? xstrdup(cur_file) : NULL;
        f.line = cur_line > 0 ? (unsigned)cur_line : 0;
        f.inlined = tag == DW_TAG_inlined_subroutine;
        push_file_frame(fc, &f);
        if (tag == DW_TAG_subprogram)
            break;
        /* the caller's location is where the inlined body was called from */
        Dwarf_Attribute attr;
        Dwarf_Word val;
        Dwarf_Files *files;
        size_t nfiles;
        cur_file = NULL;
        cur_line = 0;
        if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &val) == 0 &&
            dwarf_getsrcfiles(cudie, &files, &nfiles) == 0 && val < nfiles)
            cur_file = dwarf_filesrc(files, val, NULL, NULL);
        if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &val) == 0 &&
            val <= 0x7fffffff)
            cur_line = (int)val;
    }
    free(scopes);
    if (fc->nframes == before) { /* no DWARF scopes: symbol table only */
        struct file_frame f = {0};
        f.function = symname ? demangle(symname) : NULL;
        f.file = file ? xstrdup(file) : NULL;
        f.line = line > 0 ? (unsigned)line : 0;
        push_file_frame(fc, &f);
    }
}

static size_t hash_pc(uint64_t pc)
{
    pc ^= pc >> 33;
    pc *= 0xff51afd7ed558ccdULL;
    pc ^= pc >> 33;
    return (size_t)pc;
}

/* The slot of pc in an open-addressed table of a power-of-two size: its
 * own, or the empty one where it goes. */
static struct cache_slot *slot_of(struct cache_slot *slots, size_t nslots, uint64_t pc)
{
    size_t h = hash_pc(pc) & (nslots - 1);
    while (slots[h].n && slots[h].pc != pc)
        h = (h + 1) & (nslots - 1);
    return &slots[h];
}

/* Fills the empty slot s with pc's frames [first, first+n) and keeps the
 * table at most half full. */
static void slot_fill(struct cache_slot **slots, size_t *nslots, size_t *used,
                      struct cache_slot *s, uint64_t pc, size_t first, size_t n)
{
    *s = (struct cache_slot){.pc = pc, .first = first, .n = (uint32_t)n};
    if (++*used * 2 <= *nslots)
        return;
    size_t grown = *nslots * 2;
    struct cache_slot *ns = xcalloc(grown, sizeof *ns);
    for (size_t i = 0; i < *nslots; i++)
        if ((*slots)[i].n)
            *slot_of(ns, grown, (*slots)[i].pc) = (*slots)[i];
    free(*slots);
    *slots = ns;
    *nslots = grown;
}

/* The index in of->cache.frames of pc's frames (n of them), resolved on the
 * first ask of any snapshot. */
static size_t file_frames(struct open_file *of, uint64_t pc, size_t *n)
{
    struct file_cache *fc = &of->cache;
    if (shared_cache_off()) {
        size_t first = fc->nframes;
        resolve_in_file(of, pc);
        *n = fc->nframes - first;
        return first;
    }
    if (!fc->slots) {
        fc->nslots = 1024;
        fc->slots = xcalloc(fc->nslots, sizeof *fc->slots);
    }
    struct cache_slot *s = slot_of(fc->slots, fc->nslots, pc);
    if (s->n) {
        *n = s->n;
        return s->first;
    }
    size_t first = fc->nframes;
    resolve_in_file(of, pc);
    *n = fc->nframes - first;
    slot_fill(&fc->slots, &fc->nslots, &fc->used, s, pc, first, *n);
    return first;
}

/* A tagged pc is a Python frame recorded by the interposer: its text is in
 * the snapshot, nothing to look up in a binary. */
static void resolve_python(struct symbolizer *sy, uint64_t pc)
{
    struct sym_frame f = {.address = pc, .module_index = -1, .module = "python", .python = true};
    const struct snap_pyframe *py = snap_find_pyframe(sy->s, (uint32_t)(pc & 0xffffffffu));
    if (py != NULL) {
        f.function = py->function.len ? own(sy, xstrdup(py->function.s)) : NULL;
        f.file = py->file.len ? own(sy, xstrdup(py->file.s)) : NULL;
        f.line = py->line;
    }
    push_frame(sy, &f);
}

static void resolve(struct symbolizer *sy, uint64_t pc)
{
    if (gl_pc_is_pyframe(pc)) {
        resolve_python(sy, pc);
        return;
    }
    struct sym_frame base = {.address = pc, .module_index = -1};
    long mi = find_module(sy, pc);
    if (mi < 0) {
        push_frame(sy, &base);
        return;
    }
    base.module_index = (int)mi;
    base.module = sy->mods[mi].basename;
    base.offset = pc - sy->s->modules[mi].load_bias;
    struct sym_module *m = open_module(sy, (size_t)mi);
    if (m->status != SYM_MOD_OK) {
        push_frame(sy, &base);
        return;
    }
    size_t n;
    size_t first = file_frames(m->file, pc, &n);
    for (size_t i = 0; i < n; i++) {
        /* the strings are the file's: it lives until the last symbolizer
         * that holds it is freed */
        const struct file_frame *ff = &m->file->cache.frames[first + i];
        struct sym_frame f = base;
        f.function = ff->function;
        f.file = ff->file;
        f.line = ff->line;
        f.inlined = ff->inlined;
        push_frame(sy, &f);
    }
}

const struct sym_frame *sym_pc(struct symbolizer *sy, uint64_t pc, size_t *n)
{
    struct cache_slot *s = slot_of(sy->slots, sy->nslots, pc);
    if (s->n) {
        *n = s->n;
        return sy->frames + s->first;
    }
    size_t first = sy->nframes;
    resolve(sy, pc);
    *n = sy->nframes - first;
    slot_fill(&sy->slots, &sy->nslots, &sy->used, s, pc, first, *n);
    return sy->frames + first;
}

enum sym_module_status sym_module_status(const struct symbolizer *sy, size_t i)
{
    return sy->mods[i].status;
}

const char *sym_module_status_name(enum sym_module_status st)
{
    switch (st) {
    case SYM_MOD_OK: return "ok";
    case SYM_MOD_MISSING: return "missing";
    case SYM_MOD_MISMATCH: return "build-id-mismatch";
    case SYM_MOD_BAD: return "unreadable";
    case SYM_MOD_UNUSED: break;
    }
    return "unused";
}

const char *sym_module_note(const struct symbolizer *sy, size_t i)
{
    return sy->mods[i].note;
}
