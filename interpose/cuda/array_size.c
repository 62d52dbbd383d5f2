#include "cuda/array_size.h"

static size_t max1(size_t v) { return v ? v : 1; }

static size_t format_bytes(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
        return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
        return 2;
    default: /* 32-bit formats; exotic ones are counted as 4 bytes */
        return 4;
    }
}

/* Each level halves every dimension (down to 1); at most 64 levels are
 * counted, more than any real extent has. */
static size_t sum_levels(size_t w, size_t h, size_t z, size_t elem, unsigned levels)
{
    size_t bytes = 0;
    for (unsigned i = 0; i < levels && i < 64; i++) {
        bytes += max1(w) * max1(h) * max1(z) * elem;
        w /= 2, h /= 2, z /= 2;
    }
    return bytes;
}

size_t gl_array_bytes_driver(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels)
{
    if (d == NULL)
        return 0;
    return sum_levels(d->Width, d->Height, d->Depth, d->NumChannels * format_bytes(d->Format), levels);
}

static size_t element_bytes(const struct cudaChannelFormatDesc *d)
{
    if (d == NULL)
        return 1;
    int bits = d->x + d->y + d->z + d->w;
    return bits > 0 ? (size_t)(bits + 7) / 8 : 1;
}

size_t gl_array_bytes_runtime(const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              unsigned levels)
{
    return sum_levels(extent.width, extent.height, extent.depth, element_bytes(desc), levels);
}
