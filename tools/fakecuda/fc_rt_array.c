/* Runtime: CUDA arrays over cuArrayCreate_v2 / cuArray3DCreate_v2 /
 * cuMipmappedArrayCreate.  The runtime handle is the driver handle. */
#include "fc_rt.h"

int fc_rt_array_format(const struct cudaChannelFormatDesc *d, CUarray_format *fmt, unsigned *nch)
{
    if (!d)
        return -1;
    int bits = d->x;
    unsigned n = (d->x > 0) + (d->y > 0) + (d->z > 0) + (d->w > 0);
    if (n == 0 || (d->y && d->y != bits) || (d->z && d->z != bits) || (d->w && d->w != bits))
        return -1;
    switch (d->f) {
    case cudaChannelFormatKindSigned:
        *fmt = bits == 8 ? CU_AD_FORMAT_SIGNED_INT8 : bits == 16 ? CU_AD_FORMAT_SIGNED_INT16
             : bits == 32 ? CU_AD_FORMAT_SIGNED_INT32 : 0;
        break;
    case cudaChannelFormatKindUnsigned:
        *fmt = bits == 8 ? CU_AD_FORMAT_UNSIGNED_INT8 : bits == 16 ? CU_AD_FORMAT_UNSIGNED_INT16
             : bits == 32 ? CU_AD_FORMAT_UNSIGNED_INT32 : 0;
        break;
    case cudaChannelFormatKindFloat:
        *fmt = bits == 16 ? CU_AD_FORMAT_HALF : bits == 32 ? CU_AD_FORMAT_FLOAT : 0;
        break;
    default:
        return -1;
    }
    *nch = n;
    return *fmt ? 0 : -1;
}

/* The driver's descriptor of an array the runtime is asked for, after the
 * checks all three of its array calls make: cudaSuccess, or the error to
 * set (no place for the handle, a format the driver has no name for). */
static cudaError_t array_desc(const void *out, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              unsigned int flags, CUDA_ARRAY3D_DESCRIPTOR *d)
{
    CUarray_format fmt;
    unsigned nch;
    if (!out)
        return cudaErrorInvalidValue;
    if (fc_rt_array_format(desc, &fmt, &nch))
        return cudaErrorInvalidChannelDescriptor;
    *d = (CUDA_ARRAY3D_DESCRIPTOR){.Width = extent.width, .Height = extent.height, .Depth = extent.depth,
                                   .Format = fmt, .NumChannels = nch, .Flags = flags};
    return cudaSuccess;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                            size_t height, unsigned int flags)
{
    ENTER();
    CUDA_ARRAY3D_DESCRIPTOR d;
    cudaError_t e = array_desc(array, desc, (struct cudaExtent){width, height, 0}, flags, &d);
    if (e)
        return fc_rt_set(e);
    if (flags == 0) {
        CUDA_ARRAY_DESCRIPTOR d2 = {.Width = width, .Height = height, .Format = d.Format, .NumChannels = d.NumChannels};
        return fc_rt_cu(fc_drv.cuArrayCreate_v2((CUarray *)array, &d2));
    }
    return fc_rt_cu(fc_drv.cuArray3DCreate_v2((CUarray *)array, &d));
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent extent, unsigned int flags)
{
    ENTER();
    CUDA_ARRAY3D_DESCRIPTOR d;
    cudaError_t e = array_desc(array, desc, extent, flags, &d);
    if (e)
        return fc_rt_set(e);
    return fc_rt_cu(fc_drv.cuArray3DCreate_v2((CUarray *)array, &d));
}

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray, const struct cudaChannelFormatDesc *desc,
                                     struct cudaExtent extent, unsigned int numLevels, unsigned int flags)
{
    ENTER();
    CUDA_ARRAY3D_DESCRIPTOR d;
    cudaError_t e = array_desc(mipmappedArray, desc, extent, flags, &d);
    if (e)
        return fc_rt_set(e);
    return fc_rt_cu(fc_drv.cuMipmappedArrayCreate((CUmipmappedArray *)mipmappedArray, &d, numLevels));
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    ENTER();
    if (!array)
        return cudaSuccess;
    return fc_rt_cu(fc_drv.cuArrayDestroy((CUarray)array));
}

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray)
{
    ENTER();
    if (!mipmappedArray)
        return cudaSuccess;
    return fc_rt_cu(fc_drv.cuMipmappedArrayDestroy((CUmipmappedArray)mipmappedArray));
}

/* Returns a struct (through memory): a generated stub could not. */
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}
