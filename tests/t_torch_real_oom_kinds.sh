# Out of memory, classified (issue 45, item 7), on real PyTorch 2.14.1 over
# fakecuda with a 64 MiB device (4 MiB of it the context's): each way of
# tests/programs/torch_real_oom_kinds.py (here exceeded and fragmentation;
# tests/t_torch_real_oom_others.sh the other two), and the kind line of PyTorch's
# own out-of-memory snapshot (the one gpuleak takes from PyTorch's OOM
# observer, with its view at the error; report/analysis/oomkind.h), with
# its numbers.  Fragmentation is checked against torch's own _snapshot()
# after the error; that run also sets both allocator variables, and the
# PyTorch block names both, says which one PyTorch uses, and carries its
# allocator_settings and maxima.  The allocator-setting clash of
# expandable segments with memory pools is not constructed here
# (docs/reporter.md says what is classified).
source "$ROOT/tests/lib.sh"
source "$ROOT/tests/torch_oom_kinds.sh"

# A real out of memory: 5 tensors of 12 MiB hold 60 of the 64 MiB.
run exceeded
expect_eq "$(cat exceeded/out.txt)" "oom 5 $((60 * MiB)) $((60 * MiB)) $((60 * MiB)) $((60 * MiB)) 0 0" "torch at the error"
expect_eq "$(kind_line exceeded)" \
    "    kind: the request exceeded what was free: 12,582,912 bytes asked, 0 free; this process held 62,914,560 of the 67,108,864 in use, 4,194,304 elsewhere" \
    "exceeded: the kind line"
expect_eq "$(jget exceeded/torch.json 'd["snapshot"]["reason"], d["out_of_memory"]["torch"]["classification"]["kind"]')" \
    "('oom', 'exceeded')" "exceeded: reason and kind in JSON"

# Fragmentation: torch itself says 18 MiB allocated in 60 reserved, its
# largest free block 8 MiB (6 free blocks), and the 12 MiB did not fit.
run fragmentation GPULEAK_TORCH_LINES=start PYTORCH_ALLOC_CONF=garbage_collection_threshold:0.9 PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:64
expect_eq "$(cat fragmentation/out.txt)" \
    "oom 3 $((18 * MiB)) $((60 * MiB)) $((54 * MiB)) $((60 * MiB)) $((8 * MiB)) 6" "torch's own view after the error"
expect_eq "$(kind_line fragmentation)" \
    "    kind: fragmentation: PyTorch's reserved - allocated = 62,914,560 - 18,874,368 = 44,040,192 bytes >= the 12,582,912 asked, but its largest free block is 8,388,608" \
    "fragmentation: the kind line"
# The PyTorch block: both maxima as torch gave them, both variables, the
# one PyTorch 2.14 uses, and its own settings (max_split_size from
# PYTORCH_CUDA_ALLOC_CONF; the garbage collection threshold of the other
# one not taken).
# Its top line: the 3 kept 6 MiB tensors, at the line that made them.
fill=$(site_line torch_real_oom_kinds.py FILL-LINE)
sed -n '/^PYTORCH.S CACHE$/,/^segment /p' fragmentation/torch.txt | grep -E '^    (peak|settings|note|top)|^      [0-9]' >block.txt
cat >want.txt <<EOT
    peak allocated: 56,623,104 bytes (54.0 MiB) (torch.cuda.max_memory_allocated())
    peak reserved:  62,914,560 bytes (60.0 MiB) (torch.cuda.max_memory_reserved())
    settings:  PYTORCH_ALLOC_CONF=garbage_collection_threshold:0.9, PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:64
    note: both are set and differ: PyTorch 2.14 uses PYTORCH_CUDA_ALLOC_CONF and ignores PYTORCH_ALLOC_CONF
    top lines by live bytes, all segments:
      18,874,368 bytes (18.0 MiB) as 3 tensors: <listcomp> (torch_real_oom_kinds.py:$fill)
EOT
diff -u want.txt block.txt || fail "the PyTorch block"
expect_eq "$(jget fragmentation/torch.json '(d["torch"]["max_allocated_bytes"], d["torch"]["max_reserved_bytes"],
    d["torch"]["settings"]["in_force"], d["torch"]["settings"]["differ"],
    d["torch"]["settings"]["allocator_settings"]["max_split_size"],
    d["torch"]["settings"]["allocator_settings"]["garbage_collection_threshold"],
    [(l["bytes"], l["count"], l["line"]) for l in d["torch"]["top_lines"]])')" \
    "($((54 * MiB)), $((60 * MiB)), 'PYTORCH_CUDA_ALLOC_CONF', True, '67108864', '0.0', [($((18 * MiB)), 3, $fill)])" \
    "the PyTorch block in JSON"
