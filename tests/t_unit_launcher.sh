#!/usr/bin/env bash
# Unit tests of the launcher (tests/unit/launcher_*.c, tools/launcher/): its
# option checks and their messages, its quoting and its reading of output
# patterns, against what the bash launcher gave.  Every launcher_*.c is run,
# none is listed (tests/unit/module.mk: the launcher_ prefix).
source "$ROOT/tests/lib.sh"
run_unit_programs launcher 3
echo ok
