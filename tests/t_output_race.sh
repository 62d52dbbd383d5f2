# A GPULEAK_OUTPUT without %p is shared by every process of a job: 30 forked
# children (or ranks) that exit together all want the same next number.  The
# name is chosen before the file is written and taken with a no-replace
# rename; when another process got there first, the next free number is
# used, so every process keeps its final snapshot, numbered 0..30 with no
# gap, and the number inside each file is the one in its name.
source "$ROOT/tests/lib.sh"
n=30
host=$(hostname | sed 's/[^A-Za-z0-9_.-]/_/g; s/^\./_/')

# Checks directory $1 holds snapshots $2 0..n (one per process: the parent
# leaks nothing, child i leaks i*4096 bytes), each numbered as its name.
check_dir() {
    python3 - "$1" "$2" "$n" "$REPORT" <<'PY'
import json, os, re, struct, subprocess, sys
d, prefix, n, report = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
names = sorted(os.listdir(d))
want = sorted("%s%d.snap" % (prefix, i) for i in range(n + 1))
if names != want:
    sys.exit("FAIL: files %r, expected %r" % (names, want))
# The highest number was most likely taken after a renumbering: the
# reporter reads it whole.  The others are read here: the process record's
# pid and number, the live bytes, the history's marks.
last = os.path.join(d, "%s%d.snap" % (prefix, n))
doc = json.loads(subprocess.run([report, "--json", last], check=True, capture_output=True).stdout)
if doc["snapshot"]["index"] != n:
    sys.exit("FAIL: the reporter reads index %d in %s" % (doc["snapshot"]["index"], last))
leaked, pids = [], set()
for name in names:
    path = os.path.join(d, name)
    num = int(re.search(r"(\d+)\.snap$", name).group(1))
    data = open(path, "rb").read()
    pid, index = struct.unpack_from("<I", data, 32)[0], struct.unpack_from("<Q", data, 48)[0]
    if index != num:
        sys.exit("FAIL: %s holds index %d" % (name, index))
    marks, live, pos = [], 0, 16
    while pos + 16 <= len(data):
        t, count, length = struct.unpack_from("<IIQ", data, pos)
        if t == 4:  # ALLOCS: size at 8 in each 56-byte entry
            live += sum(struct.unpack_from("<Q", data, pos + 16 + 56 * e + 8)[0] for e in range(count))
        if t == 7:  # EVENTS: type at 48, size (the snapshot's number) at 24
            for e in range(count):
                ev = pos + 16 + 72 * e
                if struct.unpack_from("<H", data, ev + 48)[0] == 4:
                    marks.append(struct.unpack_from("<Q", data, ev + 24)[0])
        pos += 16 + length
    if marks != [num]:
        sys.exit("FAIL: %s: snapshot marks %r, expected [%d]" % (name, marks, num))
    pids.add(pid)
    leaked.append(live)
if len(pids) != n + 1:
    sys.exit("FAIL: %d distinct pids in %d files" % (len(pids), n + 1))
if sorted(leaked) != [i * 4096 for i in range(n + 1)]:
    sys.exit("FAIL: leaked bytes per file %r" % sorted(leaked))
PY
}

# Ranks of one job writing %h.%n.snap into one directory.
mkdir ranks
GPULEAK_OUTPUT='ranks/%h.%n.snap' traced "$TPROG/exit_together" "$n" 2>err.txt ||
    fail "exit_together failed: $(cat err.txt)"
! grep gpuleak: err.txt || fail "gpuleak warned"
check_dir ranks "$host."
# A relative pattern with only %n, in the working directory.
# (Fewer processes: the race is the same, this checks the relative pattern.)
n=10
mkdir plain && cd plain
GPULEAK_OUTPUT='run.%n.snap' traced "$TPROG/exit_together" "$n" 2>../err.txt ||
    fail "exit_together failed: $(cat ../err.txt)"
cd ..
! grep gpuleak: err.txt || fail "gpuleak warned"
check_dir plain run.
