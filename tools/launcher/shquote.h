/* Text quoted for pasting into a shell, byte for byte as bash's
 * printf '%q' writes it (the end lines of `gpuleak run` name files so that
 * they can be copied): '' for nothing; $'...' when a byte is a control
 * character; else a backslash before each character the shell reads
 * specially. */
#ifndef GL_LAUNCHER_SHQUOTE_H
#define GL_LAUNCHER_SHQUOTE_H

/* A new string (exits on no memory). */
char *shell_quote(const char *s);

#endif
