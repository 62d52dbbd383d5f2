/* GPULEAK_STACK_CHECK=FILE: the proof that the stack cache is exact, run
 * by CI over the whole test suite.  Every stack the recording walker or the
 * cache gives is also walked with unw_backtrace and compared; a difference
 * appends one line to FILE, and at exit each process appends its counts. */
#ifndef GL_STACK_CHECK_H
#define GL_STACK_CHECK_H

#include <stdint.h>

#include "capture/stack_cache.h"

/* kind: what answered; fell_back: the stack came from unw_backtrace
 * (kind GL_WALK_PLAIN: no credit to record; else the recording walker could
 * not run), nothing to compare. */
void gl_stack_check_count(enum gl_stack_walk_kind kind, int fell_back);

/* Compares the kept frames of the two walks; one line per difference. */
void gl_stack_check_compare(enum gl_stack_walk_kind kind, const uintptr_t *got, uint32_t ngot,
                            const uintptr_t *want, uint32_t nwant);

#endif
