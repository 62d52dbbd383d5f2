/* fakecuda self-test of VMM memory shared between processes:
 * cuMemExportToShareableHandle / cuMemImportFromShareableHandle with POSIX
 * file descriptors.  The parent creates and exports, a forked child imports;
 * the descriptors travel over a socketpair (SCM_RIGHTS).  Both map the same
 * physical memory: what one writes, the other reads.
 * Exits 0 when every check holds. */
#include <cuda.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../programs/ipc_channel.h"
#include "../programs/mem_props.h"
#include "fc_check.h"
#include "fc_driver.h"

#define G ((size_t)2 << 20)

static const char FROM_EXPORTER[] = "written by the exporter";
static const char FROM_IMPORTER[] = "written by the importer";
static const char IN_B[] = "B outlives its creator's handle";

/* What travels with each descriptor: the allocation's size, which the
 * import call does not carry (as with a real driver, the program sends it). */
struct msg {
    size_t size;
};

static const CUmemAccessDesc rw = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};

static void exporter(int sock, pid_t importer)
{
    use_primary_context();
    size_t f0 = free_mem();
    CUmemAllocationProp share = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    CUmemAllocationProp plain = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
    CUmemAllocationProp fabric = pinned_prop(CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_HANDLE_TYPE_FABRIC);
    CUmemGenericAllocationHandle a, b, n;
    EQ(cuMemCreate(&n, G, &fabric, 0), CUDA_ERROR_NOT_SUPPORTED);
    EQ(cuMemCreate(&a, 2 * G, &share, 0), CUDA_SUCCESS);
    EQ(cuMemCreate(&b, G, &share, 0), CUDA_SUCCESS);
    EQ(cuMemCreate(&n, G, &plain, 0), CUDA_SUCCESS);
    EQ(f0 - free_mem(), 4 * G);
    /* What cannot be exported: a handle not created exportable, another
     * handle type, a bogus handle. */
    int fd = -1;
    EQ(cuMemExportToShareableHandle(&fd, n, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemExportToShareableHandle(&fd, a, CU_MEM_HANDLE_TYPE_FABRIC, 0), CUDA_ERROR_NOT_SUPPORTED);
    EQ(cuMemExportToShareableHandle(&fd, (CUmemGenericAllocationHandle)&fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
       CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemExportToShareableHandle(NULL, a, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_ERROR_INVALID_VALUE);
    EQ(fd, -1);
    EQ(cuMemRelease(n), CUDA_SUCCESS);
    /* A: mapped here, written before it is shared. */
    CUdeviceptr va;
    EQ(cuMemAddressReserve(&va, 4 * G, 0, 0, 0), CUDA_SUCCESS);
    EQ(cuMemMap(va, 2 * G, 0, a, 0), CUDA_SUCCESS);
    EQ(cuMemSetAccess(va, 2 * G, &rw, 1), CUDA_SUCCESS);
    EQ(cuMemcpyHtoD(va + G - 4, FROM_EXPORTER, sizeof FROM_EXPORTER), CUDA_SUCCESS);
    int fa = -1, fb = -1;
    EQ(cuMemExportToShareableHandle(&fa, a, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
    CHECK(fa >= 0);
    struct msg m = {2 * G};
    chan_send(sock, &m, sizeof m, fa);
    EQ(close(fa), 0);
    /* B: written, exported, then unmapped and released here before the
     * importer opens it -- the exported descriptor keeps it alive. */
    EQ(cuMemMap(va + 2 * G, G, 0, b, 0), CUDA_SUCCESS);
    EQ(cuMemSetAccess(va + 2 * G, G, &rw, 1), CUDA_SUCCESS);
    EQ(cuMemcpyHtoD(va + 2 * G + 10, IN_B, sizeof IN_B), CUDA_SUCCESS);
    EQ(cuMemExportToShareableHandle(&fb, b, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
    EQ(cuMemUnmap(va + 2 * G, G), CUDA_SUCCESS);
    EQ(cuMemRelease(b), CUDA_SUCCESS);
    EQ(cuMemExportToShareableHandle(&fd, b, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_ERROR_INVALID_VALUE);
    m.size = G;
    chan_send(sock, &m, sizeof m, fb);
    EQ(close(fb), 0);
    int st;
    EQ(waitpid(importer, &st, 0), importer);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* What the importer wrote into A is here. */
    char got[sizeof FROM_IMPORTER];
    EQ(cuMemcpyDtoH(got, va + G + 100, sizeof got), CUDA_SUCCESS);
    CHECK(memcmp(got, FROM_IMPORTER, sizeof got) == 0);
    EQ(cuMemUnmap(va, 2 * G), CUDA_SUCCESS);
    EQ(cuMemRelease(a), CUDA_SUCCESS);
    EQ(cuMemAddressFree(va, 4 * G), CUDA_SUCCESS);
    EQ(free_mem(), f0);
}

static void importer(int sock)
{
    struct msg ma, mb;
    int fa = chan_recv(sock, &ma, sizeof ma);
    int fb = chan_recv(sock, &mb, sizeof mb);
    CHECK(fa >= 0 && fb >= 0);
    use_primary_context();
    size_t f0 = free_mem();
    CUmemGenericAllocationHandle a, a2, b;
    /* What cannot be imported: another handle type, a descriptor that is
     * no exported allocation, no descriptor. */
    int pfd[2];
    EQ(pipe(pfd), 0);
    EQ(cuMemImportFromShareableHandle(&a, (void *)(intptr_t)fa, CU_MEM_HANDLE_TYPE_FABRIC), CUDA_ERROR_NOT_SUPPORTED);
    EQ(cuMemImportFromShareableHandle(&a, (void *)(intptr_t)pfd[0], CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
       CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemImportFromShareableHandle(&a, (void *)(intptr_t)-1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
       CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemImportFromShareableHandle(NULL, (void *)(intptr_t)fa, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
       CUDA_ERROR_INVALID_VALUE);
    close(pfd[0]);
    close(pfd[1]);
    EQ(cuMemImportFromShareableHandle(&a, (void *)(intptr_t)fa, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), CUDA_SUCCESS);
    /* The same descriptor again: a handle to the same memory. */
    EQ(cuMemImportFromShareableHandle(&a2, (void *)(intptr_t)fa, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), CUDA_SUCCESS);
    EQ(close(fa), 0); /* the handles hold their own */
    /* The properties and the granularity, as a real importer learns them. */
    CUmemAllocationProp p;
    EQ(cuMemGetAllocationPropertiesFromHandle(&p, a), CUDA_SUCCESS);
    EQ(p.type, CU_MEM_ALLOCATION_TYPE_PINNED);
    EQ(p.location.type, CU_MEM_LOCATION_TYPE_DEVICE);
    EQ(p.location.id, 0);
    EQ(p.requestedHandleTypes, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    size_t g;
    EQ(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
    EQ(g, G);
    EQ(ma.size % g, 0);
    /* Mapped here: the exporter's bytes; and it is charged to no device of
     * this process. */
    CUdeviceptr va;
    EQ(cuMemAddressReserve(&va, 8 * G, 0, 0, 0), CUDA_SUCCESS);
    EQ(cuMemMap(va, 2 * ma.size, 0, a, 0), CUDA_ERROR_INVALID_VALUE); /* larger than the allocation */
    EQ(cuMemMap(va, ma.size, 0, a, 0), CUDA_SUCCESS);
    EQ(cuMemSetAccess(va, ma.size, &rw, 1), CUDA_SUCCESS);
    char got[64];
    EQ(cuMemcpyDtoH(got, va + G - 4, sizeof FROM_EXPORTER), CUDA_SUCCESS);
    CHECK(memcmp(got, FROM_EXPORTER, sizeof FROM_EXPORTER) == 0);
    EQ(cuMemcpyHtoD(va + G + 100, FROM_IMPORTER, sizeof FROM_IMPORTER), CUDA_SUCCESS);
    EQ(free_mem(), f0);
    /* The second handle maps the same bytes. */
    EQ(cuMemMap(va + 2 * G, G, G, a2, 0), CUDA_SUCCESS);
    EQ(cuMemSetAccess(va + 2 * G, G, &rw, 1), CUDA_SUCCESS);
    EQ(cuMemcpyDtoH(got, va + 2 * G + 100, sizeof FROM_IMPORTER), CUDA_SUCCESS);
    CHECK(memcmp(got, FROM_IMPORTER, sizeof FROM_IMPORTER) == 0);
    /* B, released by its creator before this import, is still there. */
    EQ(cuMemImportFromShareableHandle(&b, (void *)(intptr_t)fb, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), CUDA_SUCCESS);
    EQ(close(fb), 0);
    EQ(cuMemMap(va + 4 * G, mb.size, 0, b, 0), CUDA_SUCCESS);
    EQ(cuMemSetAccess(va + 4 * G, mb.size, &rw, 1), CUDA_SUCCESS);
    EQ(cuMemcpyDtoH(got, va + 4 * G + 10, sizeof IN_B), CUDA_SUCCESS);
    CHECK(memcmp(got, IN_B, sizeof IN_B) == 0);
    /* An imported handle is re-exportable only if it was created so; this
     * one was. */
    int again = -1;
    EQ(cuMemExportToShareableHandle(&again, b, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
    CHECK(again >= 0);
    close(again);
    /* Released while mapped, then one unmap of the whole span. */
    EQ(cuMemRelease(a), CUDA_SUCCESS);
    EQ(cuMemRelease(a2), CUDA_SUCCESS);
    EQ(cuMemRelease(b), CUDA_SUCCESS);
    EQ(cuMemUnmap(va, 5 * G), CUDA_SUCCESS);
    EQ(cuMemRelease(b), CUDA_ERROR_INVALID_VALUE);
    EQ(cuMemAddressFree(va, 8 * G), CUDA_SUCCESS);
    EQ(free_mem(), f0);
}

/* Both entry points are in the driver's cuGetProcAddress table. */
static void lookups(void)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult q;
    EQ(cuGetProcAddress("cuMemExportToShareableHandle", &fn, 12000, 0, &q), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemExportToShareableHandle);
    EQ(cuGetProcAddress("cuMemImportFromShareableHandle", &fn, 12000, 0, &q), CUDA_SUCCESS);
    CHECK(fn == (void *)cuMemImportFromShareableHandle);
    EQ(cuGetProcAddress("cuMemImportFromShareableHandle", &fn, 10010, 0, &q), CUDA_ERROR_NOT_FOUND);
    EQ(q, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
}

int main(void)
{
    int sock;
    pid_t child = chan_fork(&sock);
    if (child == 0) {
        importer(sock);
        return 0;
    }
    exporter(sock, child);
    lookups();
    return 0;
}
