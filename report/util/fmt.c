/* Numbers in words for people (fmt.h). */
#include "util/fmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void fmt_commas(char *buf, size_t len, uint64_t v)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    char tmp[32];
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            tmp[o++] = ',';
        tmp[o++] = digits[i];
    }
    tmp[o] = '\0';
    snprintf(buf, len, "%s", tmp);
}

void fmt_human(char *buf, size_t len, uint64_t v)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (v < 1024) {
        if (len)
            buf[0] = '\0';
        return;
    }
    double x = (double)v / 1024.0;
    size_t u = 0;
    /* switch unit before rounding would print "1024.0 KiB" */
    while (x >= 1023.95 && u + 1 < sizeof units / sizeof *units) {
        x /= 1024.0;
        u++;
    }
    snprintf(buf, len, "%.1f %s", x, units[u]);
}

