/* Growing an open-addressed hash index (slots.h). */
#include "util/slots.h"

#include <stdlib.h>

#include "util/xalloc.h"

void slots_grow(uint32_t **slots, size_t *nslots, slot_hash_fn hash, const void *ctx)
{
    size_t n = *nslots ? 2 * *nslots : 1024;
    uint32_t *ns = xcalloc(n, sizeof *ns);
    for (size_t i = 0; i < *nslots; i++) {
        uint32_t v = (*slots)[i];
        if (!v)
            continue;
        size_t h = hash(ctx, v) & (n - 1);
        while (ns[h])
            h = (h + 1) & (n - 1);
        ns[h] = v;
    }
    free(*slots);
    *slots = ns;
    *nslots = n;
}
