/* Green contexts' CUcontexts as aliases of their device's primary context
 * (green_ctx.h). */
#include "cuda/green_ctx.h"

#include <stdatomic.h>
#include <stddef.h>

/* A slot is claimed by storing its green handle (0: free), then its device;
 * the CUcontext is stored last, and cleared first when it is forgotten, so a
 * reader that matches a CUcontext sees the device it was noted with. */
struct green_slot {
    _Atomic uint64_t green;
    _Atomic int32_t device;
    _Atomic uint64_t ctx;
};

static struct green_slot slots[GL_GREEN_SLOTS];
/* Slots in use: 0 for a program without green contexts, whose allocations
 * in contexts of its own then cost one load here. */
static _Atomic int used;

static struct green_slot *find(uint64_t green)
{
    if (green == 0)
        return NULL;
    for (int i = 0; i < GL_GREEN_SLOTS; i++)
        if (atomic_load(&slots[i].green) == green)
            return &slots[i];
    return NULL;
}

void gl_green_note(uint64_t green, int32_t device)
{
    if (green == 0 || device < 0)
        return;
    /* A handle the driver hands out again was destroyed: its old slot
     * (destruction unseen) is taken over. */
    struct green_slot *s = find(green);
    if (s != NULL) {
        atomic_store(&s->ctx, 0);
        atomic_store(&s->device, device);
        return;
    }
    for (int i = 0; i < GL_GREEN_SLOTS; i++) {
        uint64_t free_slot = 0;
        if (atomic_compare_exchange_strong(&slots[i].green, &free_slot, green)) {
            atomic_store(&slots[i].device, device);
            atomic_store(&slots[i].ctx, 0);
            atomic_fetch_add(&used, 1);
            return;
        }
    }
    /* full: not followed */
}

void gl_green_note_ctx(uint64_t green, uint64_t ctx)
{
    struct green_slot *s = find(green);
    if (s != NULL)
        atomic_store(&s->ctx, ctx);
}

int32_t gl_green_device(uint64_t green)
{
    struct green_slot *s = find(green);
    return s != NULL ? atomic_load(&s->device) : -1;
}

void gl_green_forget(uint64_t green)
{
    struct green_slot *s = find(green);
    if (s == NULL)
        return;
    atomic_store(&s->ctx, 0);
    uint64_t mine = green;
    if (atomic_compare_exchange_strong(&s->green, &mine, 0))
        atomic_fetch_sub(&used, 1);
}

int gl_green_is_primary_alias(uint64_t ctx, int32_t device)
{
    if (ctx == 0 || atomic_load(&used) == 0)
        return 0;
    for (int i = 0; i < GL_GREEN_SLOTS; i++)
        if (atomic_load(&slots[i].ctx) == ctx && atomic_load(&slots[i].device) == device)
            return 1;
    return 0;
}
