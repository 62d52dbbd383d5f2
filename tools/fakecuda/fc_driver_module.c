/* Modules and libraries: cuModuleLoad* / cuModuleUnload and cuLibraryLoad* /
 * cuLibraryUnload.
 *
 * What an interposer sees of them is the device memory a load takes: code,
 * constant banks and globals.  Here that is the image's size rounded up to
 * the 2 MiB large page (round_module), charged to the device of the
 * current context, so cuMemGetInfo's free memory drops by it as on a GPU;
 * the rounding is this fake's model, the real figure is measured on hardware
 * (scripts/gpu-check.sh "module").  The image's size is read as the driver
 * would find its end: an ELF cubin by its section and program header
 * tables, a fatbin by its header (magic 0xBA55ED50, header size, payload
 * size), nvcc's fatbin wrapper (magic 0x466243b1) by the fatbin it points
 * to, and PTX, which is text, by its terminating NUL.  Nothing is compiled
 * or run: a function or kernel fetched from a module is a handle that
 * launches nothing.
 *
 * A module belongs to its context, as cuda.h says: cuCtxDestroy (or a
 * primary-context reset) unloads it.  A library is context-independent; it
 * is loaded into the current context when it is loaded (the real driver's
 * eager mode, CUDA_MODULE_LOADING=EAGER; lazily it would take memory at the
 * first use of a kernel), and this fake keeps that copy until cuLibraryUnload
 * even when the context goes. */
#include "fc_internal.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_WRAPPER_MAGIC 0x466243b1u
#define IMAGE_MAX ((size_t)1 << 32) /* a sanity bound on a claimed size */

struct fc_module {
    int library;
    struct fc_ctx *ctx;        /* modules: the owning context */
    struct fc_seg *seg;        /* its device memory; NULL once its context went */
    struct fc_module *next;
};

static struct fc_module *loaded; /* fc_lock */

/* The bytes of an in-memory image, 0 when it is none of the known forms. */
static size_t image_bytes(const void *image, int depth)
{
    const unsigned char *p = image;
    if (!p || depth > 1)
        return 0;
    if (memcmp(p, ELFMAG, SELFMAG) == 0) {
        if (p[EI_CLASS] != ELFCLASS64)
            return 0;
        Elf64_Ehdr eh;
        memcpy(&eh, p, sizeof eh);
        size_t sh = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
        size_t ph = eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize;
        size_t end = sh > ph ? sh : ph;
        return end > sizeof eh && end <= IMAGE_MAX ? end : 0;
    }
    uint32_t magic;
    memcpy(&magic, p, sizeof magic);
    if (magic == FATBIN_MAGIC) {
        uint16_t header;
        uint64_t payload;
        memcpy(&header, p + 6, sizeof header);
        memcpy(&payload, p + 8, sizeof payload);
        return header >= 16 && payload <= IMAGE_MAX ? header + payload : 0;
    }
    if (magic == FATBIN_WRAPPER_MAGIC) {
        const void *data;
        memcpy(&data, p + 8, sizeof data); /* int magic, int version, const unsigned long long *data */
        return image_bytes(data, depth + 1);
    }
    size_t n = strnlen((const char *)p, IMAGE_MAX);
    return n > 0 && n < IMAGE_MAX ? n + 1 : 0;
}

static size_t round_module(size_t n)
{
    return n > SIZE_MAX - FC_BIG ? 0 : (n + FC_BIG - 1) & ~(FC_BIG - 1);
}

static CUresult load(struct fc_module **out, size_t bytes, int library)
{
    struct fc_ctx *c;
    CUresult r = fc_cur_ctx(&c);
    if (r)
        return r;
    struct fc_module *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    fc_lock();
    m->seg = fc_heap_alloc(&fc_devs[c->dev], round_module(bytes));
    if (m->seg) {
        m->seg->kind = FC_K_MODULE;
        m->seg->req = bytes;
        m->seg->ctx = c;
        m->library = library;
        m->ctx = c;
        m->next = loaded;
        loaded = m;
    }
    fc_unlock();
    if (!m->seg) {
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = m;
    return CUDA_SUCCESS;
}

static CUresult load_image(struct fc_module **out, const void *image, int library)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!out || !image)
        return CUDA_ERROR_INVALID_VALUE;
    size_t bytes = image_bytes(image, 0);
    if (bytes == 0)
        return CUDA_ERROR_INVALID_IMAGE;
    return load(out, bytes, library);
}

static CUresult load_file(struct fc_module **out, const char *path, int library)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!out || !path)
        return CUDA_ERROR_INVALID_VALUE;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return CUDA_ERROR_FILE_NOT_FOUND;
    if (st.st_size == 0 || (size_t)st.st_size > IMAGE_MAX)
        return CUDA_ERROR_INVALID_IMAGE;
    return load(out, (size_t)st.st_size, library);
}

static CUresult unload(struct fc_module *m, int library)
{
    if (!fc_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    fc_lock();
    struct fc_module **pp = &loaded;
    while (*pp && (*pp != m || (*pp)->library != library))
        pp = &(*pp)->next;
    if (!*pp) {
        fc_unlock();
        return CUDA_ERROR_INVALID_HANDLE;
    }
    *pp = m->next;
    if (m->seg)
        fc_heap_free(&fc_devs[m->seg->ctx->dev], m->seg);
    fc_unlock();
    free(m);
    return CUDA_SUCCESS;
}

/* (lock held) A context's end unloads its modules; a library stays loaded
 * and keeps its copy (see the top). */
void fc_module_release_ctx(struct fc_ctx *c)
{
    for (struct fc_module **pp = &loaded; *pp;) {
        struct fc_module *m = *pp;
        if (m->library || m->ctx != c) {
            pp = &m->next;
            continue;
        }
        *pp = m->next;
        if (m->seg)
            fc_heap_free(&fc_devs[c->dev], m->seg);
        free(m);
    }
}

CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    return load_file((struct fc_module **)module, fname, 0);
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    return load_image((struct fc_module **)module, image, 0);
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options,
                            void **optionValues)
{
    if (numOptions && (!options || !optionValues))
        return CUDA_ERROR_INVALID_VALUE;
    return load_image((struct fc_module **)module, image, 0);
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return load_image((struct fc_module **)module, fatCubin, 0);
}

CUresult cuModuleUnload(CUmodule hmod)
{
    return unload((struct fc_module *)hmod, 0);
}

CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions, void **jitOptionsValues,
                           unsigned int numJitOptions, CUlibraryOption *libraryOptions, void **libraryOptionValues,
                           unsigned int numLibraryOptions)
{
    if ((numJitOptions && (!jitOptions || !jitOptionsValues)) ||
        (numLibraryOptions && (!libraryOptions || !libraryOptionValues)))
        return CUDA_ERROR_INVALID_VALUE;
    return load_image((struct fc_module **)library, code, 1);
}

CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, CUjit_option *jitOptions,
                               void **jitOptionsValues, unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                               void **libraryOptionValues, unsigned int numLibraryOptions)
{
    if ((numJitOptions && (!jitOptions || !jitOptionsValues)) ||
        (numLibraryOptions && (!libraryOptions || !libraryOptionValues)))
        return CUDA_ERROR_INVALID_VALUE;
    return load_file((struct fc_module **)library, fileName, 1);
}

CUresult cuLibraryUnload(CUlibrary library)
{
    return unload((struct fc_module *)library, 1);
}
