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
    python3 - "$1" "$2" "$n" "$REPORT" "$TPROG/snapfields" <<'PY'
import json, os, re, struct, subprocess, sys
d, prefix, n, report = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
# fields by name, offsets from the format's field lists (snapfields layout)
lay = {}
for line in subprocess.run([sys.argv[5], "layout"], check=True, capture_output=True, text=True).stdout.splitlines():
    part, field, off, fmt = line.split()
    lay[part, field] = (int(off), "<" + fmt)
FILE_HDR, REC_HDR = lay["FILE_HEADER", ":size"][0], lay["RECORD_HEADER", ":size"][0]
def get(data, at, part, field):
    off, fmt = lay[part, field]
    return struct.unpack_from(fmt, data, at + off)[0]
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
    proc = FILE_HDR + REC_HDR  # PROCESS is the first record
    pid, index = get(data, proc, "PROCESS", "pid"), get(data, proc, "PROCESS", "index")
    if index != num:
        sys.exit("FAIL: %s holds index %d" % (name, index))
    marks, live, pos = [], 0, FILE_HDR
    while pos + REC_HDR <= len(data):
        t, count, length = (get(data, pos, "RECORD_HEADER", f) for f in ("type", "count", "length"))
        entries = [pos + REC_HDR + (length // count) * e for e in range(count)]
        if t == 4:  # ALLOCS
            live += sum(get(data, at, "ALLOCS", "size") for at in entries)
        if t == 7:  # EVENTS: a SNAPSHOT mark's size is the snapshot's number
            marks += [get(data, at, "EVENTS", "size") for at in entries if get(data, at, "EVENTS", "type") == 4]
        pos += REC_HDR + length
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
