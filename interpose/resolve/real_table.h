/* The real-function cache of every hooked name (hook_list.h), defined here
 * rather than beside each hook, so that the resolve layer can reach all of
 * them (gl_resolve_forget_unloaded) without knowing the hooks. */
#ifndef GL_RESOLVE_REAL_TABLE_H
#define GL_RESOLVE_REAL_TABLE_H

#include "resolve/hook_list.h"
#include "resolve/resolve.h"

#define GL_DECLARE_HOOKED_REAL(n) extern struct gl_real gl_real_##n;
GL_ALL_HOOKS(GL_DECLARE_HOOKED_REAL)

/* Calls fn on the real-function cache of every hooked name. */
void gl_real_table_each(void (*fn)(struct gl_real *real));

#endif
