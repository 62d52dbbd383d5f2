/* A fatbin image as a driver finds its size (tools/fakecuda/
 * fc_driver_module.c reads it so): a 16-byte header -- magic 0xBA55ED50,
 * version 1, the header's size, the payload's -- and PAYLOAD zero bytes.
 * Returned from calloc, for the caller to free; exits 1 without memory.
 * Each program is one source (tests/rules.mk), so it is static inline. */
#ifndef FATBIN_IMAGE_H
#define FATBIN_IMAGE_H

#include <stdlib.h>
#include <string.h>

static inline unsigned char *fatbin_image(size_t payload)
{
    unsigned char *image = calloc(1, 16 + payload);
    if (!image)
        exit(1);
    unsigned magic = 0xBA55ED50u, version = 1, header = 16;
    memcpy(image, &magic, 4);
    memcpy(image + 4, &version, 2);
    memcpy(image + 6, &header, 2);
    memcpy(image + 8, &payload, 8);
    return image;
}

#endif
