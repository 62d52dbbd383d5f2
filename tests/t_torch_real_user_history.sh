# Real PyTorch 2.14.1 recording its own memory history (issue 33), on
# fakecuda (tests/t_torch_real.sh says how torch runs here).  The program
# calls _record_memory_history(enabled="all", context="all", ...) itself:
# gpuleak leaves those settings alone (its own would be enabled="state",
# which keeps no trace), so PyTorch's _dump_snapshot() pickle has the whole
# trace, 14 events with their Python lines, frees included, and the live
# blocks at the planted line.  gpuleak's snapshot of the same moment reads
# the same blocks: memory_allocated() in tensors, the planted line's 3.
source "$ROOT/tests/lib.sh"
torch_real_setup
prog=$ROOT/tests/programs/torch_real_user_history.py
temp=$(site_line torch_real_user_history.py TEMP-LINE)
planted=$(site_line torch_real_user_history.py PLANTED-LINE)

torch_real_run "$prog"
read -r _ allocated _ reserved <out.txt
expect_eq "$allocated $reserved" "3145728 4194304" "torch's own account"

# PyTorch's own pickle, read by the installed torch's Python.
got=$("$PY" - "$temp" "$planted" <<'PY'
import pickle, sys
temp, planted = int(sys.argv[1]), int(sys.argv[2])
s = pickle.load(open("user.pickle", "rb"))
line = lambda fr: fr[0]["line"] if fr and fr[0]["filename"].endswith("/torch_real_user_history.py") else 0
trace = [(e["action"], e["size"], line(e["frames"])) for e in s["device_traces"][0]]
want = []
for i in range(3):
    want += [("segment_alloc", 2097152, temp)] if i == 0 else []
    want += [("alloc", 262144, temp)]
    want += [("segment_alloc", 2097152, planted)] if i == 1 else []
    want += [("alloc", 1048576, planted)]
    want += [("free_requested", 262144, temp + 2), ("free_completed", 262144, temp + 2)]
live = [(b["size"], line(b["frames"])) for g in s["segments"] for b in g["blocks"] if b["state"] == "active_allocated"]
print(len(trace), trace == want, live == [(1048576, planted)] * 3)
PY
) || fail "loading PyTorch's pickle"
expect_eq "$got" "14 True True" "trace events, the trace as recorded, the live blocks by line"

"$REPORT" gpuleak.snap >r.txt || fail "report: exit $?"
sed -n "/^PYTORCH'S CACHE/,/^LEAK SUMMARY/p" r.txt >cache.txt
grep -Fq "    allocated: 3,145,728 bytes (3.0 MiB) in 3 tensors" cache.txt ||
    fail "gpuleak's tensor total: $(grep '^    allocated:' cache.txt)"
got=$(awk -v site="(torch_real_user_history.py:$planted)" '$0 ~ / in [0-9]+ tensors?: / && index($0, site) {
          gsub(/,/, "", $1); n += $1; split($0, a, " in "); split(a[2], b, " "); t += b[1] }
      END { print n + 0, t + 0 }' cache.txt)
expect_eq "$got" "3145728 3" "bytes and tensors at the planted line in gpuleak's view"
