/* What every runtime function fakecuda does not implement does (the stubs
 * module.mk generates from exports/libcudart.so.13.txt call it): a path
 * nobody implemented is never silent. */
#include "fc_rt.h"
#include "fc_rt_stub.h"
#include "fc_say.h"

cudaError_t fc_rt_unsupported(const char *name, int *said)
{
    fc_say_once(name, said, " is not implemented (cudaErrorNotSupported)");
    return fc_rt_set(cudaErrorNotSupported);
}

int fc_rt_stub(const char *name, int *said) { return (int)fc_rt_unsupported(name, said); }
