#include "render/pprof/pb.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define WIRE_VARINT 0
#define WIRE_LEN 2

void pb_free(struct pb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static void reserve(struct pb *b, size_t more)
{
    if (b->cap - b->n >= more)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->n < more)
        cap *= 2;
    b->p = xrealloc(b->p, cap);
    b->cap = cap;
}

void pb_varint(struct pb *b, uint64_t v)
{
    reserve(b, 10); /* 64 bits in 7-bit groups */
    while (v >= 0x80) {
        b->p[b->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->p[b->n++] = (uint8_t)v;
}

static void key(struct pb *b, uint32_t field, unsigned wire)
{
    pb_varint(b, ((uint64_t)field << 3) | wire);
}

void pb_uint(struct pb *b, uint32_t field, uint64_t v)
{
    key(b, field, WIRE_VARINT);
    pb_varint(b, v);
}

void pb_bytes(struct pb *b, uint32_t field, const void *data, size_t len)
{
    key(b, field, WIRE_LEN);
    pb_varint(b, len);
    reserve(b, len);
    if (len)
        memcpy(b->p + b->n, data, len);
    b->n += len;
}
