/* Runtime: libraries over cuLibraryLoadData / cuLibraryLoadFromFile /
 * cuLibraryUnload, the entry points NVIDIA's 13.0 runtime fetches at 12000.
 * The runtime handle is the driver handle, and the JIT and library options
 * share their values with the driver's. */
#include "fc_rt.h"

cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, enum cudaJitOption *jitOptions,
                                void **jitOptionsValues, unsigned int numJitOptions,
                                enum cudaLibraryOption *libraryOptions, void **libraryOptionValues,
                                unsigned int numLibraryOptions)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuLibraryLoadData((CUlibrary *)library, code, (CUjit_option *)jitOptions,
                                             jitOptionsValues, numJitOptions, (CUlibraryOption *)libraryOptions,
                                             libraryOptionValues, numLibraryOptions));
}

cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *fileName, enum cudaJitOption *jitOptions,
                                    void **jitOptionsValues, unsigned int numJitOptions,
                                    enum cudaLibraryOption *libraryOptions, void **libraryOptionValues,
                                    unsigned int numLibraryOptions)
{
    ENTER();
    return fc_rt_cu(fc_drv.cuLibraryLoadFromFile((CUlibrary *)library, fileName, (CUjit_option *)jitOptions,
                                                 jitOptionsValues, numJitOptions, (CUlibraryOption *)libraryOptions,
                                                 libraryOptionValues, numLibraryOptions));
}

cudaError_t cudaLibraryUnload(cudaLibrary_t library)
{
    ENTER_INIT();
    return fc_rt_cu(fc_drv.cuLibraryUnload((CUlibrary)library));
}
