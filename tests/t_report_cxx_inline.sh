#!/usr/bin/env bash
# C++ names are demangled; a pc inside an inlined body yields the inlined
# function (marked) and then the function it was inlined into, each with
# its own file:line.
source "$ROOT/tests/lib.sh"
"$TPROG/snapgen" leaks l.snap > expect.json
"$REPORT" --json l.snap > out.json
expect_eq "$(jget out.json '[f["function"] for f in d["leaks"][1]["frames"]]')" \
    '["ns::Trainer::step(int)", "cxx_train", "capture"]' "demangled frames"
expect_eq "$(jget out.json 'd["leaks"][1]["frames"][0]["file"].endswith("snapgen_cxx.cc")')" True "C++ file"
"$REPORT" l.snap | grep -qE '^    #0 ns::Trainer::step\(int\) \(snapgen_cxx\.cc:[0-9]+\) \[snapgen\]$' || fail "text demangled"

"$TPROG/snapgen" inline i.snap > iexp.json
"$REPORT" --json i.snap > i.json
python3 - i.json iexp.json <<'PY' || fail "inline frames"
import json, os, sys
d = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2]))
got = [(f["function"], os.path.basename(f["file"]), f["line"], f["inlined"]) for f in d["leaks"][0]["frames"]]
want = [(x["function"], x["file"], x["line"], x["inlined"]) for x in e["stacks"]["1"]]
assert got == want, (got, want)
# the inlined frame and its caller come from the same pc
fr = d["leaks"][0]["frames"]
assert fr[0]["address"] == fr[1]["address"] != fr[2]["address"]
PY
"$REPORT" i.snap | grep -qE '^    #0 inl_helper \(snapgen_inl\.c:[0-9]+\) \[snapgen\] \(inlined\)$' || fail "text inlined"
echo ok
