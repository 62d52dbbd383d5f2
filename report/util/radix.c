/* Eight passes of one byte each; a pass whose byte is the same in every key
 * (the high bytes of addresses usually are) is skipped. */
#include "util/radix.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

int radix_sort(struct kv *a, size_t n)
{
    if (n < 2)
        return 0;
    struct kv *tmp = xmalloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    size_t (*cnt)[256] = xcalloc(8, sizeof *cnt);
    if (!cnt) {
        free(tmp);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        for (unsigned b = 0; b < 8; b++)
            cnt[b][(a[i].key >> (8 * b)) & 0xff]++;
    struct kv *src = a, *dst = tmp;
    for (unsigned b = 0; b < 8; b++) {
        if (cnt[b][(a[0].key >> (8 * b)) & 0xff] == n)
            continue; /* every key has the same byte here */
        size_t pos = 0;
        for (unsigned d = 0; d < 256; d++) {
            size_t c = cnt[b][d];
            cnt[b][d] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[b][(src[i].key >> (8 * b)) & 0xff]++] = src[i];
        struct kv *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    free(tmp);
    free(cnt);
    return 0;
}
