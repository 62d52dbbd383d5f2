/* Global driver state: the devices (from the environment) and the one lock
 * that guards everything.  Initialised once, by the first cuInit. */
#include "fc_internal.h"
#include "fc_gpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct fc_dev fc_devs[FC_MAX_DEVICES];
int fc_ndev;
unsigned long long fc_meminfo_delay_ms;
unsigned long long fc_meminfo_delay_skip, fc_meminfo_calls;
unsigned long long fc_free_delay_ms;
int fc_free_delay_locked;
int fc_import_reuse;
int fc_drop_copies;
static unsigned long long ctx_bytes;   /* FAKECUDA_CTX_BYTES */
static int ctx_bytes_set;              /* ... given: the same on every device */

static pthread_mutex_t fc_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;
static int initialized; /* read under fc_mu after init_once */
static unsigned long long id_counter;

void fc_lock(void) { pthread_mutex_lock(&fc_mu); }
void fc_unlock(void) { pthread_mutex_unlock(&fc_mu); }

/* Strict decimal parse: anything but digits (or an overflow) is garbage and
 * gives the default, so a typo never silently means "0 bytes". */
static int env_ull_given(const char *name, unsigned long long *out)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno)
        return 0;
    *out = v;
    return 1;
}

static unsigned long long env_ull(const char *name, unsigned long long def)
{
    unsigned long long v = def;
    env_ull_given(name, &v);
    return v;
}

static void do_init(void)
{
    unsigned long long n = env_ull("FAKECUDA_DEVICES", 2);
    if (n > FC_MAX_DEVICES)
        n = FC_MAX_DEVICES;
    /* A card profile (FAKECUDA_GPU) gives the total and the context's own
     * memory; FAKECUDA_MEM_BYTES and FAKECUDA_CTX_BYTES still override. */
    const struct fc_gpu *gpu = fc_gpu_profile();
    unsigned long long mem = env_ull("FAKECUDA_MEM_BYTES", gpu ? gpu->total_bytes : FC_DEFAULT_MEM);
    if (mem == 0)
        mem = FC_DEFAULT_MEM;
    if (mem > ((unsigned long long)1 << 38)) /* the range must fit its 1 TiB slot */
        mem = (unsigned long long)1 << 38;
    fc_meminfo_delay_ms = env_ull("FAKECUDA_MEMINFO_DELAY_MS", 0);
    fc_meminfo_delay_skip = env_ull("FAKECUDA_MEMINFO_DELAY_SKIP", 0);
    fc_free_delay_ms = env_ull("FAKECUDA_FREE_DELAY_MS", 0);
    fc_free_delay_locked = env_ull("FAKECUDA_FREE_DELAY_LOCKED", 0) != 0;
    fc_import_reuse = env_ull("FAKECUDA_IMPORT_REUSE", 0) != 0;
    ctx_bytes = gpu ? gpu->ctx_bytes : FC_DEFAULT_CTX_BYTES;
    ctx_bytes_set = env_ull_given("FAKECUDA_CTX_BYTES", &ctx_bytes) || gpu;
    fc_drop_copies = env_ull("FAKECUDA_DROP_COPIES", 0) != 0;
    unsigned long long other = env_ull("FAKECUDA_OTHER_USED", 0);
    unsigned long long later = env_ull("FAKECUDA_OTHER_USED_LATER", 0);
    if (n == 0) {
        init_result = CUDA_ERROR_NO_DEVICE;
        return;
    }
    for (int i = 0; i < (int)n; i++) {
        struct fc_dev *d = &fc_devs[i];
        memset(d, 0, sizeof *d);
        d->ord = i;
        d->total = (size_t)mem;
        d->primary.dev = i;
        d->primary.primary = 1;
        d->primary.id = fc_next_id();
        if (fc_heap_setup(d) != 0) {
            init_result = CUDA_ERROR_OUT_OF_MEMORY;
            return;
        }
        fc_pool_init_device(d);
        /* other processes' memory: what does not fit is not charged */
        d->used = other < mem ? (size_t)other : (size_t)mem;
        d->other_later = (size_t)later;
    }
    fc_lock();
    fc_ndev = (int)n;
    initialized = 1;
    fc_unlock();
    init_result = CUDA_SUCCESS;
}

CUresult fc_do_init(void)
{
    pthread_once(&init_once, do_init);
    return init_result;
}

int fc_initialized(void)
{
    fc_lock();
    int v = initialized;
    fc_unlock();
    return v;
}

unsigned long long fc_next_id(void)
{
    return __atomic_add_fetch(&id_counter, 1, __ATOMIC_RELAXED);
}

struct fc_dev *fc_dev_get(CUdevice d)
{
    if (d < 0 || d >= fc_ndev)
        return NULL;
    return &fc_devs[d];
}

/* A context's own memory on a GPU (its local memory, printf and heap
 * buffers, the runtime's kernels) is hundreds of MiB and depends on the
 * device; here it is 4 MiB plus 1 MiB per device ordinal by default, so
 * that each device's figure is told apart in a test, and small so that the
 * tests' 64 MiB devices still have room; a card profile (FAKECUDA_GPU)
 * or FAKECUDA_CTX_BYTES sets it for every device (0: contexts take
 * nothing). */
static size_t ctx_cost(int dev)
{
    return (size_t)ctx_bytes + (ctx_bytes_set ? 0 : (size_t)dev * ((size_t)1 << 20));
}

int fc_ctx_charge(struct fc_ctx *c)
{
    if (c->cost_charged)
        return 0;
    size_t n = ctx_cost(c->dev);
    if (fc_charge(&fc_devs[c->dev], n) != 0)
        return -1;
    c->cost_charged = n;
    return 0;
}

void fc_ctx_uncharge(struct fc_ctx *c)
{
    fc_uncharge(&fc_devs[c->dev], c->cost_charged);
    c->cost_charged = 0;
}

void fc_other_later_charge(struct fc_dev *d)
{
    if (d->other_later == 0)
        return;
    if (d->other_later <= d->total - d->used)
        d->used += d->other_later;
    d->other_later = 0; /* once, whether it fitted or not */
}
