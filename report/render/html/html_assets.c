/* The page's script and style (report/render/html/ticks.js then report.js, one
 * script; report.css), linked
 * into gpuleak-report so that --html needs no file at run time.  The paths
 * are relative to the top of the tree, where make runs the compiler;
 * report/module.mk makes this object depend on these files. */
#include "render/html/html.h"

__asm__(".section .rodata\n"
        ".global gl_html_js\n"
        ".type gl_html_js, @object\n"
        "gl_html_js:\n"
        ".incbin \"report/render/html/ticks.js\"\n"
        ".incbin \"report/render/html/report.js\"\n"
        ".byte 0\n"
        ".size gl_html_js, . - gl_html_js\n"
        ".global gl_html_css\n"
        ".type gl_html_css, @object\n"
        "gl_html_css:\n"
        ".incbin \"report/render/html/report.css\"\n"
        ".byte 0\n"
        ".size gl_html_css, . - gl_html_css\n"
        ".previous\n");
