/* For the generated stubs (module.mk: fc_rt_stubs.c), which cannot include
 * NVIDIA's headers: each stub is `int name(void)`, whatever the real
 * prototype, and its arguments are never read (the SysV ABI lets a caller
 * pass any).  Returns cudaErrorNotSupported (fc_rt_unsupported). */
#ifndef FC_RT_STUB_H
#define FC_RT_STUB_H

int fc_rt_stub(const char *name, int *said);

#endif
