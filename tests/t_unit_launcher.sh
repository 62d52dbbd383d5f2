#!/usr/bin/env bash
# Unit tests of the launcher (tests/unit/launcher_*.c, tools/launcher/): its
# option checks and their messages, its quoting and its reading of output
# patterns, against what the bash launcher gave.  Every launcher_*.c is run,
# none is listed (tests/unit/module.mk: the launcher_ prefix).
source "$ROOT/tests/lib.sh"
n=0
for src in "$ROOT"/tests/unit/launcher_*.c; do
    t=$(basename "$src" .c)
    [ -x "$TPROG/unit/$t" ] || fail "$t was not built from $src"
    "$TPROG/unit/$t" || fail "$t"
    n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "only $n launcher unit tests"
echo ok
