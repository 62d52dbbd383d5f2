# The PyTorch example of docs/pytorch.md and docs/usage.md ("One report: the
# tensors, the ledger, the phases"): tests/programs/torch_example.py on the
# stand-in torch, one snapshot, and the report's PYTORCH'S CACHE, PHASES and
# LEDGER sections.  docs/pytorch.md shows them whole, docs/usage.md some of their
# lines (`...` between): both must be what the report says, segment
# addresses and the phases' durations aside.
source "$ROOT/tests/lib.sh"
torch_standin_setup
traced python3 "$ROOT/tests/programs/torch_example.py" example.snap || fail "example run: exit $?"
"$REPORT" example.snap >report.txt || fail "report exit $?"
norm() { sed -E 's/^segment 0x[0-9a-f]+:/segment ADDR:/; s/\([0-9]+\.[0-9]+ s\)/(T s)/'; }
awk '/^[A-Z][A-Z'"'"' ]+$/ { on = ($0 == "PYTORCH'"'"'S CACHE" || $0 == "PHASES" || $0 == "LEDGER") } on' report.txt |
    norm >got.txt
# The block after a document's example marker, up to its closing fence.
block() { awk '/<!-- example: torch_example/ { m = 1; next } m && /^```$/ { if (in_b) exit; in_b = 1; next } in_b' "$1" | norm; }
block "$ROOT/docs/pytorch.md" >doc.txt
diff -u doc.txt got.txt >doc.diff || fail "docs/pytorch.md's example is not what the report says: $(head -20 doc.diff)"
# docs/usage.md's lines, in order, with `...` for any run of lines left out.
block "$ROOT/docs/usage.md" >readme.txt
python3 "$ROOT/tests/doc/inorder.py" --from-first readme.txt got.txt ||
    fail "docs/usage.md's example is not what the report says"
# What it shows: the loss kept by the list is a tensor at forward's line.
grep -qx "        1,024 bytes (1.0 KiB) in 2 tensors: forward (torch_example.py:$(site_line torch_example.py 'return h.sum()'))" got.txt ||
    fail "the kept losses: $(grep forward got.txt)"
grep -q 'at the peak by category: pytorch-caching-allocator 22.0 MiB' got.txt ||
    fail "PyTorch's segments are its cache in the phases"
