/* The entry points gdb calls for an attach or a detach start gpuleak's own
 * work and return at once (attach_async.c). */
#ifndef GL_HOOKS_ATTACH_ASYNC_H
#define GL_HOOKS_ATTACH_ASYNC_H

/* On the writer's tick: starts the detach a gpuleak_detach_start asked
 * for, if any. */
void gl_attach_detach_poll(void);

#endif
