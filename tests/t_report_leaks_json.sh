#!/usr/bin/env bash
# JSON report of the known leak set: schema header, leak groups (order,
# bytes, counts, kind, device, api, seqs), every frame's function/file/line
# against what the generator recorded, summary, devices and peaks, modules.
source "$ROOT/tests/lib.sh"
"$TPROG/snapgen" leaks leaks.snap > expect.json
"$REPORT" --json leaks.snap > out.json || fail "reporter exit $?"
"$REPORT" --json --output out2.json leaks.snap > stdout.txt || fail "--output exit $?"
cmp out.json out2.json || fail "--output differs from stdout"
[ ! -s stdout.txt ] || fail "--output also wrote to stdout"

python3 - out.json expect.json <<'PY' || fail "JSON content"
import json, os, sys
d = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2]))
def check(cond, what):
    if not cond:
        print("FAIL:", what); sys.exit(1)
check(d["format"] == "gpuleak-report" and d["schema_version"] == 2 and d["mode"] == "report", "header")
s = d["snapshot"]
check((s["pid"], s["ppid"], s["rank"], s["reason"], s["final"], s["index"]) == (4242, 1, 0, "exit", True, 0), "snapshot ids")
check(s["host"] == "testhost" and s["argv"] == ["./train", "--epochs", "3", "it's here"], "host/argv")
check(s["exe"] == e["exe"] and s["path"] == "leaks.snap", "exe/path")
check(s["start_unix_ns"] == 1700000000000000000 and s["duration_ns"] == 2500000000, "times")
got = [(l["bytes"], l["count"], l["kind"], l["device"], l["api"], l["stack_id"]) for l in d["leaks"]]
want = [(1048576, 1, "device", 0, "cudaMalloc", 1), (524288, 2, "pool", 1, "cudaMallocAsync", 4),
        (196608, 3, "device", 0, "cudaMalloc", 2), (196608, 1, "managed", 0, "cudaMallocManaged", 5),
        (8192, 2, "host-pinned", -1, "cudaMallocHost", 3), (1000, 1, "device", 1, "cuMemAlloc_v2", 6),
        (1000, 1, "device", 1, "cuMemAlloc_v2", 7), (12, 1, "device", 0, "cudaMalloc", 0)]
check(got == want, "leak groups: %s" % got)
b = d["leaks"][2]
check((b["first_seq"], b["last_seq"], b["first_time_ns"], b["last_time_ns"]) == (4, 8, 20000000, 60000000), "seq/time range")
p = d["leaks"][1]
check((p["first_seq"], p["last_seq"]) == (10, 11), "seq range (out of file order)")
for l in d["leaks"]:
    sid = str(l["stack_id"])
    if sid == "0":
        check(l["frames"] == [], "no-stack group has no frames"); continue
    fr = [(f["function"], os.path.basename(f["file"]), f["line"], f["module"], f["inlined"]) for f in l["frames"]]
    ex = [(x["function"], x["file"], x["line"], "snapgen", False) for x in e["stacks"][sid]]
    check(fr == ex, "frames of stack %s: %s != %s" % (sid, fr, ex))
    for f in l["frames"]:
        check(f["offset"] > 0 and f["address"] - f["offset"] == d["modules"][0]["load_bias"], "address/offset")
ls = d["leak_summary"]
check((ls["bytes"], ls["count"]) == (1976284, 12), "summary totals")
check([(k["kind"], k["device"], k["bytes"], k["count"]) for k in ls["by_kind"]] ==
      [("device", 0, 1245196, 5), ("device", 1, 2000, 2), ("pool", 1, 524288, 2),
       ("managed", 0, 196608, 1), ("host-pinned", -1, 8192, 2)], "by_kind")
devs = d["devices"]
check([x["device"] for x in devs] == [0, 1, -1], "device order")
d0 = devs[0]
check((d0["peak_bytes"], d0["peak_seq"], d0["peak_time_ns"], d0["live_bytes"], d0["live_count"],
       d0["alloc_count"], d0["free_count"], d0["failed_count"], d0["mem_total"]) ==
      (4194304, 17, 520000000, 1441804, 6, 12, 6, 1, 80 * 2**30), "device 0 counters")
check([(c["bytes"], c["count"], c["stack_id"]) for c in d0["peak_composition"]] ==
      [(2097152, 2, 1), (1048576, 16, 2), (1048576, 1, 5)], "device 0 composition")
check(d0["peak_composition"][0]["frames"][0]["function"] == "alloc_weights", "composition frames")
check(devs[1]["unknown_free_count"] == 2 and devs[1]["peak_composition"][0]["frames"][0]["function"] == "ns::Trainer::step(int)", "device 1")
m0 = d["modules"][0]
check(m0["path"] == e["exe"] and m0["status"] == "ok" and len(m0["build_id"]) == 40, "module 0: %s" % m0)
check(all(m["status"] in ("ok", "unused") for m in d["modules"]), "module statuses")
check(d["warnings"] == [], "warnings")
PY

# --top / --min-bytes select groups but not the summary
"$REPORT" --json --top 3 leaks.snap > top.json
expect_eq "$(jget top.json 'len(d["leaks"])')" 3 "--top 3 groups"
expect_eq "$(jget top.json 'd["leak_summary"]["bytes"]')" 1976284 "--top keeps totals"
expect_eq "$(jget top.json '[d["leak_summary"]["groups"], d["leak_summary"]["hidden_count"]]')" "[8, 6]" "--top hidden"
"$REPORT" --json --min-bytes 1000 leaks.snap > min.json
expect_eq "$(jget min.json '[l["bytes"] for l in d["leaks"]]')" "[1048576, 524288, 196608, 196608, 8192, 1000, 1000]" "--min-bytes"
echo ok
