/* gpuleak: run a program under libgpuleak.so and read its snapshots
 * (docs/architecture.md, "The launcher").  Each subcommand has a file of
 * its own; this table sends each name to it. */
#include <stdio.h>
#include <string.h>

#include "attach.h"
#include "check.h"
#include "detach.h"
#include "launcher.h"
#include "passthru.h"
#include "run.h"
#include "snapshot.h"
#include "top.h"
#include "usage.h"
#include "version.h"

static const struct subcommand {
    const char *name;
    int (*fn)(int argc, char **argv); /* the arguments after the name */
} ported[] = {
    {"run", cmd_run},     {"report", cmd_report}, {"merge", cmd_merge}, {"diff", cmd_diff},
    {"html", cmd_html},   {"plan", cmd_plan},     {"top", cmd_top},       {"snapshot", cmd_snapshot},
    {"detach", cmd_detach}, {"attach", cmd_attach}, {"check", cmd_check},
};

int main(int argc, char **argv)
{
    launcher_init(argc > 0 ? argv[0] : "gpuleak");
    if (argc < 2)
        show_usage(1);
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0) {
        printf("gpuleak %s\n", GPULEAK_VERSION);
        return 0;
    }
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0)
        show_usage(0);
    for (size_t i = 0; i < sizeof ported / sizeof ported[0]; i++)
        if (strcmp(name, ported[i].name) == 0)
            return ported[i].fn(argc - 2, argv + 2);
    die("unknown command '%s' (see %s --help)", name, launcher()->prog);
}
