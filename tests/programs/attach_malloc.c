/* A program with an allocator of its own that `gpuleak attach` meets
 * while it allocates (tests/t_attach_malloc.sh).  Like jemalloc, tcmalloc
 * or glibc's own single-threaded path, this malloc is not reentrant: a
 * call into it made on a thread stopped inside it (gdb's call of dlopen,
 * which allocates the library's link map and more) would work on state
 * that the interrupted call is halfway through changing.  Here such a
 * call is counted instead of corrupting anything: `reentered` is the
 * number of allocator calls made on a thread that was already inside one.
 *
 * Its main thread allocates and frees in a loop, each call spending some
 * microseconds inside the allocator, so that a thread stopped at any
 * moment is almost always stopped inside it.  Usage: attach_malloc EXIT.
 * It prints "ready" once CUDA is in use (1 MiB kept), then loops until a
 * file "stop" exists in its working directory, prints "reentered N" and
 * exits with EXIT. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <malloc.h> /* memalign, malloc_usable_size: replaced here too */

#include <cuda_runtime_api.h>

#define ARENA_BYTES (1ul << 32) /* reserved, touched only as used */
#define HEADER 16               /* the block's size, before it; keeps 16-byte alignment */

static char *arena;
static _Atomic size_t arena_used;
static atomic_long reentered;
static __thread int depth;      /* allocator calls this thread is inside */
static __thread int slow;       /* this thread's next call lingers inside (the loop's) */

/* Entered and left around every allocator call: a call that finds this
 * thread inside one already is counted.  The loop's calls stay inside a
 * while, so that gdb stops the thread there. */
static void enter(void)
{
    if (depth++ > 0)
        atomic_fetch_add(&reentered, 1);
    int linger = slow;
    slow = 0; /* the calls of a dlopen run here once gdb let the thread out: quick */
    for (volatile int i = 0; linger && i < 20000; i++)
        ;
}

static void leave(void) { depth--; }

static void *bump(size_t size, size_t align)
{
    if (arena == NULL) { /* the first call is the loader's, before any thread */
        void *a = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (a == MAP_FAILED)
            return NULL;
        arena = a;
    }
    if (align < HEADER)
        align = HEADER;
    size_t want = (size + HEADER + align - 1 + 15) & ~(size_t)15;
    size_t at = atomic_fetch_add(&arena_used, want);
    if (at + want > ARENA_BYTES)
        return NULL;
    uintptr_t p = ((uintptr_t)arena + at + HEADER + align - 1) & ~(uintptr_t)(align - 1);
    ((size_t *)p)[-1] = size;
    return (void *)p;
}

void *malloc(size_t size)
{
    enter();
    void *p = bump(size, HEADER);
    leave();
    return p;
}

/* Memory is never reused: the test runs seconds. */
void free(void *p)
{
    enter();
    (void)p;
    leave();
}

void *calloc(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    enter();
    void *p = bump(n * size, HEADER); /* fresh pages: zero already */
    leave();
    return p;
}

void *realloc(void *old, size_t size)
{
    enter();
    void *p = bump(size, HEADER);
    if (p != NULL && old != NULL) {
        size_t had = ((size_t *)old)[-1];
        memcpy(p, old, had < size ? had : size);
    }
    leave();
    return p;
}

void *aligned_alloc(size_t align, size_t size)
{
    enter();
    void *p = bump(size, align);
    leave();
    return p;
}

void *memalign(size_t align, size_t size) { return aligned_alloc(align, size); }

int posix_memalign(void **out, size_t align, size_t size)
{
    void *p = aligned_alloc(align, size);
    if (p == NULL)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

size_t malloc_usable_size(void *p) { return p != NULL ? ((size_t *)p)[-1] : 0; }

int main(int argc, char **argv)
{
    int status = argc > 1 ? atoi(argv[1]) : 4;
    void *kept = NULL;
    if (cudaMalloc(&kept, 1 << 20) != cudaSuccess)
        return 2;
    printf("ready\n");
    fflush(stdout);
    for (long i = 1;; i++) {
        slow = 1;
        void *p = malloc(64);
        slow = 1;
        free(p);
        if (i % 1000 == 0 && access("stop", F_OK) == 0)
            break;
    }
    printf("reentered %ld\n", (long)atomic_load(&reentered));
    return status;
}
