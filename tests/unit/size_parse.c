/* common/size_parse.h on each line of stdin: the bytes, or "refused"
 * (tests/t_sizes.sh runs the same lines through the pytest plugin's
 * parse_size and compares). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "size_parse.h"

int main(void)
{
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        uint64_t v;
        if (gl_parse_size(line, &v) == 0)
            printf("%" PRIu64 "\n", v);
        else
            puts("refused");
    }
    return 0;
}
