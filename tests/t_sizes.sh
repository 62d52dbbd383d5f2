#!/usr/bin/env bash
# One size grammar (common/size_parse.h) for gpuleak-report's and gpuleak
# check's --min-bytes and the pytest plugin's markers (parse_size): one table
# of cases through both, the exact bytes or "refused"; garbage is refused
# with one line and status 2; a leak below --min-bytes says so in SUMMARY
# and in check's verdict line (issue 35: "1 MiB" and 1.5M were refused while
# the marker took "2 GiB", and "no errors: leaked 1,048,576 bytes" said not
# why).
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK

# input|bytes (or "refused"); the inputs are sent one per line.
cat >cases.txt <<'EOT'
1048576|1048576
0|0
1 MiB|1048576
1MiB|1048576
1mib|1048576
1.5M|1572864
1.5 MiB|1572864
2G|2147483648
2 GiB|2147483648
2gb|2147483648
512k|524288
512 KB|524288
1.25K|1280
0.1K|102
1T|1099511627776
4096B|4096
4096 b|4096
  64K  |65536
16777215T|18446742974197923840
16777216T|refused
18446744073709551615|18446744073709551615
18446744073709551616|refused
1.5|refused
1.5B|refused
1.|refused
.5M|refused
1.1234567M|refused
1.123456M|1178028
5x|refused
1Ki|refused
1 K B|refused
1MiBs|refused
-1|refused
+1|refused
1e6|refused
0x10|refused
M|refused
|refused
1_000|refused
EOT
cut -d'|' -f1 cases.txt >inputs.txt
cut -d'|' -f2 cases.txt >want.txt
"$TPROG/unit/size_parse" <inputs.txt >c.txt
paste -d'|' inputs.txt c.txt | diff cases.txt - || fail "common/size_parse.h on the table"
# The plugin imports pytest: Debian's, for /usr/bin/python3 (make deps).
PY=/usr/bin/python3
skip_if "! $PY -c 'import pytest' 2>/dev/null" "Debian's python3-pytest is not installed (make deps)"
$PY - "$ROOT/tools" inputs.txt >py.txt <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from pytest_gpuleak import parse_size
for line in open(sys.argv[2]):
    try:
        print(parse_size(line.rstrip("\n")))
    except ValueError:
        print("refused")
PY
paste -d'|' inputs.txt py.txt | diff cases.txt - || fail "the pytest plugin's parse_size on the table"

# The reporter: sizes with units and blanks are taken, garbage is refused
# with one line and status 2.
LD_PRELOAD=$LIBGPULEAK GPULEAK_OUTPUT=leak.snap "$TPROG/scenarios" leak-runtime >/dev/null
rc=0; "$REPORT" --min-bytes "2 MiB" --error-exitcode 9 leak.snap >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 9 "--min-bytes '2 MiB' (2 MiB leaked: a finding)"
rc=0; "$REPORT" --min-bytes 2.5M --error-exitcode 9 leak.snap >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 0 "--min-bytes 2.5M (2 MiB leaked: none)"
expect_eq "$(grep leaked: out.txt)" \
    "    leaked:           2,097,152 bytes (2.0 MiB) in 2 allocations from 1 stack, below --min-bytes 2,621,440" \
    "SUMMARY says the leak is below --min-bytes"
# Some stacks below it: how many (snapgen's 8 leak stacks, 4 under 100 KiB).
"$TPROG/snapgen" leaks gen.snap >/dev/null
expect_eq "$("$REPORT" --min-bytes 100K --sections leaks gen.snap | grep leaked:)" \
    "    leaked:           1,976,284 bytes (1.9 MiB) in 12 allocations from 8 stacks, 4 stacks below --min-bytes 102,400" \
    "SUMMARY with some stacks below --min-bytes"
rc=0; "$REPORT" --min-bytes 5x leak.snap >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 2 "--min-bytes 5x"
expect_eq "$(cat err.txt)" \
    "gpuleak-report: --min-bytes needs a size in bytes (4096, 512k, 1.5M, 1 MiB, 2G), not '5x' (try --help)" \
    "--min-bytes 5x message"

# gpuleak check: the same grammar, and the verdict says why a leak is none.
rc=0; "$LAUNCHER" check --error-exitcode 9 --min-bytes "2 MiB" -- "$TPROG/scenarios" fork >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 0 "check --min-bytes '2 MiB'"
grep '^gpuleak: process' err.txt | sed 's/process [0-9]*/process P/; s/ \[.*//' | sort >verdicts.txt
cat >want.txt <<'EOT'
gpuleak: process P: no errors: leaked: 1,048,576 bytes (1.0 MiB) in 1 allocation from 1 stack, below --min-bytes 2,097,152
gpuleak: process P: no errors: leaked: 131,072 bytes (128.0 KiB) in 2 allocations from 1 stack, below --min-bytes 2,097,152
EOT
diff want.txt verdicts.txt || fail "check's verdict lines"
rc=0; "$LAUNCHER" check --min-bytes 1.5.M -- touch ran >out.txt 2>err.txt || rc=$?
expect_eq "$rc" 2 "check --min-bytes 1.5.M"
expect_eq "$(cat err.txt)" \
    "gpuleak: check: --min-bytes needs a size in bytes (4096, 512k, 1.5M, 1 MiB, 2G), not '1.5.M' (try --help)" \
    "check --min-bytes 1.5.M message"
[ ! -e ran ] || fail "the command ran with a bad --min-bytes"
echo ok
