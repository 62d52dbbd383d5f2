/* What every runtime function fakecuda does not implement does (the stubs
 * module.mk generates from libcudart_exports.txt call it): a path nobody
 * implemented is never silent. */
#include "fc_rt.h"
#include "fc_rt_stub.h"

#include <string.h>
#include <unistd.h>

cudaError_t fc_rt_unsupported(const char *name, int *said)
{
    if (!__atomic_exchange_n(said, 1, __ATOMIC_RELAXED)) {
        /* One write(2): no stdio lock, whole line even with threads. */
        char line[256];
        static const char pre[] = "fakecuda: ", post[] = " is not implemented (cudaErrorNotSupported)\n";
        size_t n = strnlen(name, sizeof line - sizeof pre - sizeof post);
        memcpy(line, pre, sizeof pre - 1);
        memcpy(line + sizeof pre - 1, name, n);
        memcpy(line + sizeof pre - 1 + n, post, sizeof post - 1);
        ssize_t w = write(2, line, sizeof pre - 1 + n + sizeof post - 1);
        (void)w;
    }
    return fc_rt_set(cudaErrorNotSupported);
}

int fc_rt_stub(const char *name, int *said) { return (int)fc_rt_unsupported(name, said); }
