/* The page's script and style, linked into gpuleak-report so that --html
 * needs no file at run time.  The script is one: ticks.js (GLTicks), then
 * the parts of the page's one function in js/, in this order, byte for byte
 * (each part a piece of the function's body: 1_base.js opens it, 8_page.js
 * closes it); the style is report.css.  The paths are relative to the top of
 * the tree, where make runs the compiler; report/module.mk makes this object
 * depend on every .js and .css here. */
#include "render/html/html.h"

__asm__(".section .rodata\n"
        ".global gl_html_js\n"
        ".type gl_html_js, @object\n"
        "gl_html_js:\n"
        ".incbin \"report/render/html/ticks.js\"\n"
        ".incbin \"report/render/html/js/1_base.js\"\n"
        ".incbin \"report/render/html/js/2_timeline.js\"\n"
        ".incbin \"report/render/html/js/3_flames.js\"\n"
        ".incbin \"report/render/html/js/4_addrmap.js\"\n"
        ".incbin \"report/render/html/js/5_tables.js\"\n"
        ".incbin \"report/render/html/js/6_growth.js\"\n"
        ".incbin \"report/render/html/js/7_merge.js\"\n"
        ".incbin \"report/render/html/js/8_page.js\"\n"
        ".byte 0\n"
        ".size gl_html_js, . - gl_html_js\n"
        ".global gl_html_css\n"
        ".type gl_html_css, @object\n"
        "gl_html_css:\n"
        ".incbin \"report/render/html/report.css\"\n"
        ".byte 0\n"
        ".size gl_html_css, . - gl_html_css\n"
        ".previous\n");
