# gpuleak check --json (issue 35): one JSON document (--json=FILE: in FILE;
# --json=/dev/fd/N: on that descriptor, as valgrind's --xml-fd; never on the
# command's stdout unless asked, and --json without a FILE is refused before
# the command runs, issue 48 item 11: none on stderr) for the whole run -- per process its verdict (pid, rank, errors, leaked bytes and
# counts, the reporter's own JSON report) and the job's verdict -- and the
# same gate and exit status as the text mode: the command's status, or
# --error-exitcode's N when a process has errors.  The launcher takes the
# verdicts from the reporter's --verdict file, never from its prose.
source "$ROOT/tests/lib.sh"
export LD_LIBRARY_PATH=$FAKECUDA
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK
check() { "$LAUNCHER" check "$@" >out.txt 2>err.txt; }

# --json without a FILE: refused in one line, before the command runs (the
# document would follow the command's own stdout, where nothing can parse it).
rc=0; check --json -- touch ran || rc=$?
expect_eq "$rc:$(cat err.txt)" "2:gpuleak: check: --json needs a file: --json=FILE, or --json=/dev/fd/N for a descriptor of its own (stdout is the command's)" "--json alone"
[ ! -e ran ] || fail "the command ran"

# A leak: --error-exitcode's status, and the verdict's exact figures; the
# document on descriptor 3, nothing on stdout.
rc=0; check --json=/dev/fd/3 --error-exitcode 9 --output lk -- "$TPROG/scenarios" leak-runtime 3>doc.json || rc=$?
expect_eq "$rc" 9 "leak, --error-exitcode 9"
expect_eq "$(wc -c <out.txt)" 0 "stdout: nothing (the command wrote none)"
expect_eq "$(grep -c '"format"' err.txt)" 0 "no document on stderr"
check_multi_json doc.json <<'PY'
eq(d["format"], "gpuleak-check", "format")
eq(len(d["processes"]), 1, "processes")
p = d["processes"][0]
eq(sorted(p), sorted(["pid", "rank", "host", "snapshot", "verdict", "errors", "leaked_bytes",
                      "leaked_allocations", "leaked_stacks", "never_released_bytes",
                      "refused_frees", "double_frees", "teardown_leaked_bytes", "leaked_by_growth",
                      "summary", "leaked_by_growth_bytes_per_step", "leaks_by_growth", "report"]), "keys")
eq((p["leaked_by_growth"], p["leaked_by_growth_bytes_per_step"], p["leaks_by_growth"]), (0, 0, []),
   "no leak by growth (no PyTorch)")
eq((p["verdict"], p["errors"], p["leaked_bytes"], p["leaked_allocations"], p["leaked_stacks"], p["rank"]),
   ("errors", 1, 2097152, 2, 1, None), "leak verdict (no RANK or the like set: rank null)")
eq(p["summary"], "leaked: 2,097,152 bytes (2.0 MiB) in 2 allocations from 1 stack", "summary")
import re
eq(re.sub(r"run-[A-Za-z0-9]{6}\.", "run-T.", p["snapshot"]), "lk/gpuleak.run-T.%d.0.snap" % p["pid"], "snapshot")
eq((p["report"]["format"], p["report"]["snapshot"]["pid"]), ("gpuleak-report", p["pid"]), "the report")
eq([(l["bytes"], l["frames"][0]["function"]) for l in p["report"]["leaks"]], [(2097152, "leak_runtime")], "leaks")
eq(d["job"], {"verdict": "errors", "processes": 1, "with_errors": 1, "still_running": 0, "no_final_snapshot": 0, "ranks_with_errors": [],
              "double_frees": 0, "command_status": 0, "exit_status": 9, "snapshots": "lk"}, "job")
PY
# The command's own stdout stays the command's alone; the document is on
# its own descriptor (a pipe here), whole.
rc=0; check --json=/dev/fd/3 -- sh -c 'echo "epoch 1"; "$1" balanced' sh "$TPROG/scenarios" 3> >(cat >doc.json) || rc=$?
wait $! 2>/dev/null || true
expect_eq "$rc" 0 "balanced, --json=/dev/fd/3"
expect_eq "$(cat out.txt)" "epoch 1" "stdout: the command's line alone"
expect_eq "$(jget doc.json 'd["job"]["verdict"]')" "no errors" "the document on descriptor 3"
expect_eq "$(grep -c '"format"' err.txt)" 0 "no document on stderr"
# Asked for by name, /dev/stdout: after the command's output, from a line
# of its own.
rc=0; check --json=/dev/stdout -- sh -c 'echo "epoch 1"; "$1" balanced' sh "$TPROG/scenarios" || rc=$?
expect_eq "$rc" 0 "balanced, --json=/dev/stdout"
expect_eq "$(head -c 34 out.txt)" 'epoch 1
{"format":"gpuleak-check",' "stdout: the command's line, then the document"
# A descriptor that is not open: refused before the command runs.
rc=0; check --json=/dev/fd/7 -- touch ran || rc=$?
expect_eq "$rc:$(cat err.txt)" "2:gpuleak: check: --json /dev/fd/7: descriptor 7 is not open" "--json=/dev/fd/7, not open"
[ ! -e ran ] || fail "the command ran"
# The command's own status passes through (3), leak or not.
rc=0; check --json=doc.json -- sh -c '"$1" leak-runtime; exit 3' sh "$TPROG/scenarios" || rc=$?
expect_eq "$rc" 3 "the command's status"
expect_eq "$(jget doc.json '[d["job"]["command_status"], d["job"]["exit_status"], d["job"]["with_errors"]]')" \
    "[3, 3, 1]" "job statuses"
# --json=FILE: the verdict lines stay on stderr, the reports go to FILE.
grep -q '^gpuleak: process [0-9]*: ERRORS: leaked: 2,097,152 bytes (2.0 MiB) in 2 allocations from 1 stack \[' err.txt ||
    fail "verdict line with --json=FILE: $(cat err.txt)"
grep -q '^==== gpuleak report\|"format"' err.txt && fail "a report on stderr with --json=FILE"
expect_eq "$(stat -c %a doc.json)" 600 "the document's mode"

# A clean process.
rc=0; check --json=doc.json --error-exitcode 9 --output ok -- "$TPROG/scenarios" balanced || rc=$?
expect_eq "$rc" 0 "balanced"
check_multi_json doc.json <<'PY'
p = d["processes"][0]
eq((p["verdict"], p["errors"], p["leaked_bytes"], p["leaked_allocations"], p["leaked_stacks"]),
   ("no errors", 0, 0, 0, 0), "clean verdict")
eq(p["summary"], "leaked: 0 bytes in 0 allocations from 0 stacks", "clean summary")
eq(p["report"]["leaks"], [], "no leaks")
eq((d["job"]["verdict"], d["job"]["with_errors"], d["job"]["exit_status"]), ("no errors", 0, 0), "clean job")
PY

# Two processes (a fork): still one document, one entry each.
rc=0; check --json=doc.json --error-exitcode 9 --output fk -- "$TPROG/scenarios" fork || rc=$?
expect_eq "$rc" 9 "fork"
check_multi_json doc.json <<'PY'
ps = d["processes"]
eq(sorted((p["leaked_bytes"], p["leaked_allocations"], p["verdict"]) for p in ps),
   [(131072, 2, "errors"), (1048576, 1, "errors")], "two verdicts")
eq(sorted(p["report"]["snapshot"]["pid"] for p in ps), sorted(p["pid"] for p in ps), "each its report")
eq((d["job"]["processes"], d["job"]["with_errors"]), (2, 2), "job of two")
PY
rc=0; check --json=nodir/doc.json -- touch ran || rc=$?
expect_eq "$rc:$(cat err.txt)" "2:gpuleak: check: --json nodir/doc.json: cannot write in nodir" "--json=FILE in no directory"
[ ! -e ran ] || fail "the command ran"
echo ok
