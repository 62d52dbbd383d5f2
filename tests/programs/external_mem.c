/* A graphics-interop program: memory another API allocated (a memfd stands
 * in for vkGetMemoryFdKHR's export) is imported into CUDA as external memory
 * and mapped.  It
 *   - imports an 8 MiB object and never destroys it (leak_import),
 *   - maps a 3,000,000-byte buffer from it and never frees it (leak_buffer),
 *   - maps a 1,000,000-byte buffer from it and frees it,
 *   - imports a 4 MiB object, maps a mipmapped array from it (256 x 256
 *     float4, 2 levels: 1,310,720 bytes) that it never frees (leak_array),
 *     and destroys the object (the array stays mapped, as CUDA requires it
 *     to be freed on its own),
 *   - imports a 2 MiB object, maps a 1 MiB buffer, and under gpuleak asks
 *     for a snapshot (mid.snap) before it frees the buffer and destroys the
 *     object,
 *   - allocates and frees 2,000,000 bytes of its own, and exits.
 *
 * Usage: external_mem runtime|direct|dlsym|procaddr -- the runtime API, or
 * the driver API linked, through dlsym on libcuda.so.1, or through
 * cuGetProcAddress.  Built against the static runtime (EXTMEM_STATIC), only
 * `runtime`.  The lines marked LEAK-SITE are what the tests expect the
 * reporter to name.
 *
 * EXTMEM_SOURCE=vmm (not with EXTMEM_STATIC): each descriptor comes from a
 * cuMemCreate handle exported as a POSIX file descriptor and released at
 * once -- something a real driver may import without Vulkan
 * (scripts/gpu-check.sh); if the driver refuses the first import, the
 * program says so and exits 3. */
#define _GNU_SOURCE /* memfd_create */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mem_props.h"

#define NOINLINE __attribute__((noinline))
#define MiB ((size_t)1 << 20)

int gpuleak_snapshot(const char *path) __attribute__((weak));

static void fail(const char *what, int rc)
{
    fprintf(stderr, "%s failed: %d\n", what, rc);
    exit(1);
}
#define CHECK_RT(call)                          \
    do {                                        \
        cudaError_t rc_ = (call);               \
        if (rc_ != cudaSuccess)                 \
            fail(#call, (int)rc_);              \
    } while (0)
#define CHECK_CU(call)                          \
    do {                                        \
        CUresult rc_ = (call);                  \
        if (rc_ != CUDA_SUCCESS)                \
            fail(#call, (int)rc_);              \
    } while (0)

static int from_vmm; /* EXTMEM_SOURCE=vmm */

#ifndef EXTMEM_STATIC
static int exported_vmm(size_t size)
{
    CUmemAllocationProp p = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    CUmemGenericAllocationHandle h;
    int fd = -1;
    CHECK_CU(cuMemCreate(&h, size, &p, 0));
    CHECK_CU(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CHECK_CU(cuMemRelease(h)); /* the descriptor keeps the memory */
    return fd;
}
#endif

/* Another API's allocation, exported as a descriptor. */
static int exported(size_t size)
{
#ifndef EXTMEM_STATIC
    if (from_vmm)
        return exported_vmm(size);
#endif
    int fd = memfd_create("vulkan-stand-in", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
        fail("memfd", -1);
    return fd;
}

/* A refused import of a VMM descriptor is the driver's choice, not a bug. */
static void import_refused(int rc)
{
    if (from_vmm) {
        fprintf(stderr, "the driver refused to import a VMM descriptor as external memory: %d\n", rc);
        exit(3);
    }
    fail("import", rc);
}

/* ---- one interface, two APIs -------------------------------------------- */

struct api {
    void *(*import)(size_t size);
    void (*destroy)(void *ext);
    uintptr_t (*buffer)(void *ext, size_t offset, size_t size);
    void (*free_buffer)(uintptr_t p);
    void *(*array)(void *ext, size_t offset); /* 256 x 256 float4, 2 levels */
};

static void *rt_import(size_t size)
{
    struct cudaExternalMemoryHandleDesc d;
    memset(&d, 0, sizeof d);
    d.type = cudaExternalMemoryHandleTypeOpaqueFd;
    d.handle.fd = exported(size);
    d.size = size;
    cudaExternalMemory_t ext;
    cudaError_t rc = cudaImportExternalMemory(&ext, &d);
    if (rc != cudaSuccess)
        import_refused((int)rc);
    return ext;
}
static void rt_destroy(void *ext) { CHECK_RT(cudaDestroyExternalMemory((cudaExternalMemory_t)ext)); }
static uintptr_t rt_buffer(void *ext, size_t offset, size_t size)
{
    struct cudaExternalMemoryBufferDesc b;
    memset(&b, 0, sizeof b);
    b.offset = offset;
    b.size = size;
    void *p;
    CHECK_RT(cudaExternalMemoryGetMappedBuffer(&p, (cudaExternalMemory_t)ext, &b));
    return (uintptr_t)p;
}
static void rt_free_buffer(uintptr_t p) { CHECK_RT(cudaFree((void *)p)); }
static void *rt_array(void *ext, size_t offset)
{
    struct cudaExternalMemoryMipmappedArrayDesc m;
    memset(&m, 0, sizeof m);
    m.offset = offset;
    m.formatDesc = (struct cudaChannelFormatDesc){32, 32, 32, 32, cudaChannelFormatKindFloat};
    m.extent = (struct cudaExtent){256, 256, 0};
    m.numLevels = 2;
    cudaMipmappedArray_t a;
    CHECK_RT(cudaExternalMemoryGetMappedMipmappedArray(&a, (cudaExternalMemory_t)ext, &m));
    return a;
}

#ifndef EXTMEM_STATIC
static struct {
    __typeof__(cuImportExternalMemory) *import;
    __typeof__(cuDestroyExternalMemory) *destroy;
    __typeof__(cuExternalMemoryGetMappedBuffer) *buffer;
    __typeof__(cuExternalMemoryGetMappedMipmappedArray) *array;
    __typeof__(cuMemFree_v2) *free;
} drv;

static void *cu_import(size_t size)
{
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC d;
    memset(&d, 0, sizeof d);
    d.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    d.handle.fd = exported(size);
    d.size = size;
    CUexternalMemory ext;
    CUresult rc = drv.import(&ext, &d);
    if (rc != CUDA_SUCCESS)
        import_refused((int)rc);
    return ext;
}
static void cu_destroy(void *ext) { CHECK_CU(drv.destroy((CUexternalMemory)ext)); }
static uintptr_t cu_buffer(void *ext, size_t offset, size_t size)
{
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC b;
    memset(&b, 0, sizeof b);
    b.offset = offset;
    b.size = size;
    CUdeviceptr p;
    CHECK_CU(drv.buffer(&p, (CUexternalMemory)ext, &b));
    return p;
}
static void cu_free_buffer(uintptr_t p) { CHECK_CU(drv.free((CUdeviceptr)p)); }
static void *cu_array(void *ext, size_t offset)
{
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC m;
    memset(&m, 0, sizeof m);
    m.offset = offset;
    m.arrayDesc.Width = 256;
    m.arrayDesc.Height = 256;
    m.arrayDesc.Format = CU_AD_FORMAT_FLOAT;
    m.arrayDesc.NumChannels = 4;
    m.numLevels = 2;
    CUmipmappedArray a;
    CHECK_CU(drv.array(&a, (CUexternalMemory)ext, &m));
    return a;
}

static void driver_setup(const char *how)
{
    CUcontext ctx;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK_CU(cuCtxSetCurrent(ctx));
    if (strcmp(how, "direct") == 0) {
        drv.import = cuImportExternalMemory;
        drv.destroy = cuDestroyExternalMemory;
        drv.buffer = cuExternalMemoryGetMappedBuffer;
        drv.array = cuExternalMemoryGetMappedMipmappedArray;
        drv.free = cuMemFree_v2;
        return;
    }
    const char *names[5] = {"cuImportExternalMemory", "cuDestroyExternalMemory",
                            "cuExternalMemoryGetMappedBuffer", "cuExternalMemoryGetMappedMipmappedArray",
                            "cuMemFree"};
    void *fn[5];
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    for (int i = 0; i < 5; i++) {
        CUdriverProcAddressQueryResult q;
        if (strcmp(how, "dlsym") == 0)
            fn[i] = lib ? dlsym(lib, i == 4 ? "cuMemFree_v2" : names[i]) : NULL;
        else if (cuGetProcAddress(names[i], &fn[i], 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS)
            fn[i] = NULL;
        if (fn[i] == NULL)
            fail(names[i], -1);
    }
    memcpy(&drv.import, &fn[0], sizeof fn[0]);
    memcpy(&drv.destroy, &fn[1], sizeof fn[1]);
    memcpy(&drv.buffer, &fn[2], sizeof fn[2]);
    memcpy(&drv.array, &fn[3], sizeof fn[3]);
    memcpy(&drv.free, &fn[4], sizeof fn[4]);
}
#endif

/* ---- the program --------------------------------------------------------- */

static NOINLINE void *leak_import(const struct api *a)
{
    return a->import(8 * MiB); /* LEAK-SITE: leak_import */
}

static NOINLINE uintptr_t leak_buffer(const struct api *a, void *ext)
{
    return a->buffer(ext, MiB, 3000000); /* LEAK-SITE: leak_buffer */
}

static NOINLINE void map_and_free(const struct api *a, void *ext)
{
    a->free_buffer(a->buffer(ext, 0, 1000000));
}

static NOINLINE void *leak_array(const struct api *a, void *ext)
{
    return a->array(ext, 0); /* LEAK-SITE: leak_array */
}

/* The snapshot is taken while this object and its buffer are live. */
static NOINLINE void balanced(const struct api *a)
{
    void *ext = a->import(2 * MiB);
    uintptr_t b = a->buffer(ext, 4096, MiB);
    if (gpuleak_snapshot && gpuleak_snapshot("mid.snap") != 0)
        fail("gpuleak_snapshot", -1);
    a->free_buffer(b);
    a->destroy(ext);
}

static NOINLINE void own_memory(void)
{
    void *p;
    CHECK_RT(cudaMalloc(&p, 2000000));
    CHECK_RT(cudaFree(p));
}

int main(int argc, char **argv)
{
    const char *how = argc == 2 ? argv[1] : "";
    const char *source = getenv("EXTMEM_SOURCE");
    from_vmm = source && strcmp(source, "vmm") == 0;
    struct api a = {rt_import, rt_destroy, rt_buffer, rt_free_buffer, rt_array};
    if (strcmp(how, "runtime") == 0) {
        CHECK_RT(cudaSetDevice(0));
        CHECK_RT(cudaFree(NULL)); /* a current context, for cuMemCreate */
#ifndef EXTMEM_STATIC
    } else if (!strcmp(how, "direct") || !strcmp(how, "dlsym") || !strcmp(how, "procaddr")) {
        CHECK_RT(cudaSetDevice(0));
        CHECK_RT(cudaFree(NULL)); /* the runtime's context: the primary one */
        driver_setup(how);
        a = (struct api){cu_import, cu_destroy, cu_buffer, cu_free_buffer, cu_array};
#endif
    } else {
        fprintf(stderr, "usage: %s runtime|direct|dlsym|procaddr\n", argv[0]);
        return 2;
    }
    void *ext = leak_import(&a);
    uintptr_t buf = leak_buffer(&a, ext);
    map_and_free(&a, ext);
    void *ext2 = a.import(4 * MiB);
    void *arr = leak_array(&a, ext2);
    a.destroy(ext2);
    balanced(&a);
    own_memory();
    printf("buffer %#lx array %p\n", (unsigned long)buf, arr);
    return 0;
}
