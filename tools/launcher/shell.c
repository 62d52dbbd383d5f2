/* The subcommand not yet ported, check: the script gpuleak-sh,
 * run with the launcher's names. */
#include "shell.h"

#include <stddef.h>

#include "launcher.h"

noreturn void run_shell(int argc, char **argv)
{
    const struct launcher *l = launcher();
    char *sh = libexec_tool("gpuleak", "gpuleak-sh");
    /* The binary before argv[0], so that the script's command line still
     * reads "gpuleak run" where the launcher's did; the script finds the
     * library from its directory and runs it again for a detach. */
    char *args[argc + 5];
    int n = 0;
    args[n++] = sh;
    args[n++] = "--launcher";
    args[n++] = l->exe;
    args[n++] = (char *)l->argv0;
    for (int i = 0; i < argc; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    exec_or_die(sh, args);
}
