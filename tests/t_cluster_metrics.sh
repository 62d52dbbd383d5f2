# GPULEAK_METRICS scraped by a real Prometheus (issue 38), all on loopback:
# four ranks of a job (tests/programs/rank_job.c, RANK and LOCAL_RANK
# 0-3, each on its own fakecuda device, rank 2 holding 4 MiB and the others
# 1 MiB) write tf/gpuleak.%r.%p.prom; Debian's prometheus-node-exporter
# serves that directory with its textfile collector, and Debian's
# prometheus scrapes it every second.  While the ranks hold still (each
# waits for the file "release"), each is asked for a snapshot, and the
# PromQL query gpuleak_live_bytes over Prometheus' HTTP API must give, per
# rank, exactly the reporter's live bytes on its device, with the pid,
# rank and host of that snapshot.  Prometheus' metadata must type the
# counters as counters (its text parser reads families by their full
# names); and the alert rule docs/live.md shows is a valid rule file
# (promtool check rules).  Servers run under timeout and are stopped at
# the end; their data lives in this scratch directory.
source "$ROOT/tests/lib.sh"
PROM=$(command -v prometheus || true) NODE_EXPORTER=$(command -v prometheus-node-exporter || true)
skip_if '[ -z "$PROM" ] || [ -z "$NODE_EXPORTER" ]' \
    "no prometheus or prometheus-node-exporter (Debian's packages; scripts/install-deps.sh installs them)"
[ -z "$GL_SAN" ] || export GPULEAK_LIB=$LIBGPULEAK # for gpuleak snapshot's checks of the preload

pids=()
cleanup() {
    touch release
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The ranks, holding still once ready.
mkdir tf snaps
for r in 0 1 2 3; do
    RANK=$r LOCAL_RANK=$r FAKECUDA_DEVICES=4 GPULEAK_METRICS=$PWD/tf/gpuleak.%r.%p.prom \
        GPULEAK_OUTPUT=$PWD/snaps/%h.%r.%n.snap guard 90 env LD_PRELOAD="$LIBGPULEAK" \
        LD_LIBRARY_PATH="$FAKECUDA" "$TPROG/rank_job" 2 "$PWD/release" >"rank$r.out" 2>"rank$r.err" &
    pids+=("$!")
done
for r in 0 1 2 3; do wait_for "rank $r" grep -q '^ready ' "rank$r.out"; done
# Each rank's file with its figures after the allocations (written within
# a second of a change).
for r in 0 1 2 3; do
    read -r _ _ pid _ <"rank$r.out"
    want=$(( r == 2 ? 4194304 : 1048576 ))
    wait_for "rank $r's metrics" grep -qs "^gpuleak_live_bytes{device=\"$r\",pid=\"$pid\",rank=\"$r\",.*} $want\$" "tf/gpuleak.$r.$pid.prom"
done

# node-exporter (textfile collector alone) and Prometheus, on free ports.
ne_port=$(free_port) prom_port=$(free_port)
guard 90 "$NODE_EXPORTER" --web.listen-address="127.0.0.1:$ne_port" --collector.disable-defaults \
    --collector.textfile --collector.textfile.directory="$PWD/tf" >ne.log 2>&1 &
pids+=("$!")
cat >prometheus.yml <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: gpuleak
    static_configs:
      - targets: ["127.0.0.1:$ne_port"]
EOF
guard 90 "$PROM" --config.file=prometheus.yml --storage.tsdb.path="$PWD/data" \
    --web.listen-address="127.0.0.1:$prom_port" >prom.log 2>&1 &
pids+=("$!")
wait_for "Prometheus to be ready ($(tail -1 prom.log))" curl -sf "http://127.0.0.1:$prom_port/-/ready" -o /dev/null

# A snapshot of every rank now; the reporter's figures for each.
for r in 0 1 2 3; do
    read -r _ _ pid _ <"rank$r.out"
    snap=$("$LAUNCHER" snapshot "$pid") || fail "gpuleak snapshot of rank $r: status $?"
    "$REPORT" --json "$snap" >"r$r.json" || fail "report of rank $r: status $?"
done
python3 - "$prom_port" r0.json r1.json r2.json r3.json <<'PY' || fail "Prometheus vs the reporter"
import json, sys, time, urllib.parse, urllib.request
base = "http://127.0.0.1:%s/api/v1/" % sys.argv[1]
def api(path, **params):
    with urllib.request.urlopen(base + path + "?" + urllib.parse.urlencode(params), timeout=5) as r:
        d = json.load(r)
    assert d["status"] == "success", d
    return d["data"]
# What the reporter says: (pid, rank, host, device) -> live bytes.
want = {}
for f in sys.argv[2:]:
    d = json.load(open(f))
    s = d["snapshot"]
    for dev in d["devices"]:
        want[(str(s["pid"]), str(s["rank"]), s["host"], str(dev["device"]))] = dev["live_bytes"]
print("reporter:", sorted(want.items()))
# What Prometheus says, once it has scraped every rank (up to 20 s).
for _ in range(200):
    got = {(m["metric"]["pid"], m["metric"]["rank"], m["metric"]["host"], m["metric"]["device"]): int(float(m["value"][1]))
           for m in api("query", query='gpuleak_live_bytes{job="gpuleak"}')["result"]}
    if len(got) >= len(want):
        break
    time.sleep(0.1)
print("prometheus:", sorted(got.items()))
MiB = 1 << 20
if got != want or sorted((k[1], k[3], v) for k, v in got.items()) != \
        [("0", "0", MiB), ("1", "1", MiB), ("2", "2", 4 * MiB), ("3", "3", MiB)]:
    sys.exit("FAIL: Prometheus %r, the reporter %r" % (got, want))
# The rank that holds the most, by PromQL.
top = api("query", query="topk(1, sum by (rank) (gpuleak_live_bytes))")["result"]
assert [(m["metric"]["rank"], m["value"][1]) for m in top] == [("2", str(4 * MiB))], top
# Families typed as written: counters stay counters through the textfile collector.
meta = api("metadata")
types = {k: v[0]["type"] for k, v in meta.items() if k.startswith("gpuleak_")}
assert types == {"gpuleak_live_bytes": "gauge", "gpuleak_live_allocations": "gauge", "gpuleak_peak_bytes": "gauge",
                 "gpuleak_allocations_total": "counter", "gpuleak_frees_total": "counter",
                 "gpuleak_failed_allocations_total": "counter"}, types
PY

# The alert rule docs/live.md shows, as a rule file.
sed -n '/^# gpuleak-alert-rules$/,/^```$/p' "$ROOT/docs/live.md" | sed '$d' >rules.yml
[ -s rules.yml ] || fail "no alert rules in docs/live.md"
promtool check rules rules.yml >promtool.out 2>&1 || fail "promtool: $(cat promtool.out)"
grep -q 'SUCCESS: 1 rules found' promtool.out || fail "promtool: $(cat promtool.out)"

touch release
for r in 0 1 2 3; do wait "${pids[$r]}" || fail "rank $r: status $?: $(cat "rank$r.err")"; done
