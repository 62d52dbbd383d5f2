/* uthash, configured so that running out of memory inside a hash operation
 * never exits the host program (uthash's default is exit(-1)): the element is
 * simply not added and gl_ut_oom is raised so the caller can tell. */
#ifndef GL_UT_H
#define GL_UT_H

#include <stdbool.h>

extern __thread bool gl_ut_oom __attribute__((tls_model("initial-exec")));
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (gl_ut_oom = true)
#include <uthash.h>

#endif
