/* The one version of gpuleak: the reporter prints it, and the build writes
 * it into the launcher (tools/module.mk) and gpuleak.pc.  Change it here. */
#ifndef GL_VERSION_H
#define GL_VERSION_H
#define GPULEAK_VERSION "0.2.0"
#endif
