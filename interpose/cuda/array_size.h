/* The size recorded for a CUDA array: the logical size of its texels
 * (width x height x depth x element size, summed over mipmap levels), which
 * is what the program asked for; the driver may round it up.  Shared by the
 * array hooks and the external-memory hooks, which map arrays too. */
#ifndef GL_ARRAY_SIZE_H
#define GL_ARRAY_SIZE_H

#ifndef __CUDA_API_VERSION_INTERNAL
#define __CUDA_API_VERSION_INTERNAL /* the un-renamed _v2 prototypes */
#endif
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stddef.h>

/* Driver API: a 3D descriptor with `levels` mipmap levels (1 for a plain
 * array); 0 for a NULL descriptor. */
size_t gl_array_bytes_driver(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels);

/* Runtime API: a channel format and an extent (height or depth 0 count as
 * 1) with `levels` mipmap levels. */
size_t gl_array_bytes_runtime(const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              unsigned levels);

#endif
