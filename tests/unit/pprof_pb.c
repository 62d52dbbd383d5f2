/* Unit test of the protobuf wire writer behind --pprof
 * (report/render/pprof/pb.c): the encodings protobuf.dev's "Encoding" page
 * gives as examples, the varint edges, and a buffer grown many times. */
#include <stdio.h>
#include <string.h>

#include "render/pprof/pb.h"

static int failures;

static void expect(const struct pb *b, const char *what, const unsigned char *want, size_t n)
{
    if (b->n == n && memcmp(b->p, want, n) == 0)
        return;
    failures++;
    fprintf(stderr, "FAIL %s: got", what);
    for (size_t i = 0; i < b->n; i++)
        fprintf(stderr, " %02x", b->p[i]);
    fputc('\n', stderr);
}

#define EXPECT(b, what, ...)                                                   \
    do {                                                                       \
        static const unsigned char want_[] = {__VA_ARGS__};                    \
        expect(b, what, want_, sizeof want_);                                  \
        pb_free(b);                                                            \
    } while (0)

int main(void)
{
    struct pb b = {0};
    pb_varint(&b, 0);
    EXPECT(&b, "varint 0", 0x00);
    pb_varint(&b, 127);
    EXPECT(&b, "varint 127", 0x7f);
    pb_varint(&b, 128);
    EXPECT(&b, "varint 128", 0x80, 0x01);
    pb_varint(&b, 300);
    EXPECT(&b, "varint 300", 0xac, 0x02);
    pb_varint(&b, UINT64_MAX); /* also an int64 of -1: ten bytes */
    EXPECT(&b, "varint 2^64-1", 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
    pb_uint(&b, 1, 150);
    EXPECT(&b, "field 1 = 150", 0x08, 0x96, 0x01);
    pb_uint(&b, 14, 0);
    EXPECT(&b, "field 14 = 0", 0x70, 0x00);
    pb_uint(&b, 16, 1); /* the first field number whose key takes two bytes */
    EXPECT(&b, "field 16 = 1", 0x80, 0x01, 0x01);
    pb_bytes(&b, 2, "testing", 7);
    EXPECT(&b, "field 2 = \"testing\"", 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g');
    pb_bytes(&b, 6, "", 0);
    EXPECT(&b, "field 6 = \"\"", 0x32, 0x00);
    struct pb m = {0};
    pb_uint(&m, 1, 150);
    pb_msg(&b, 3, &m);
    pb_free(&m);
    EXPECT(&b, "field 3 = {1: 150}", 0x1a, 0x03, 0x08, 0x96, 0x01);

    for (int i = 0; i < 100000; i++)
        pb_varint(&b, 1u << 14); /* three bytes each */
    if (b.n != 300000 || b.p[299997] != 0x80 || b.p[299998] != 0x80 || b.p[299999] != 0x01) {
        fprintf(stderr, "FAIL growth: %zu bytes\n", b.n);
        failures++;
    }
    pb_free(&b);
    if (b.p || b.n || b.cap) {
        fprintf(stderr, "FAIL pb_free leaves the buffer empty\n");
        failures++;
    }
    if (failures == 0)
        puts("ok");
    return failures != 0;
}
