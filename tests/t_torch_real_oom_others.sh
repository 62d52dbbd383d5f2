# Out of memory, classified (issue 45, item 7), on real PyTorch 2.14.1 over
# fakecuda with a 64 MiB device: the other two ways of
# tests/programs/torch_real_oom_kinds.py (tests/t_torch_real_oom_kinds.sh
# has the first two and says how): memory another process holds, and
# PyTorch's own per-process memory fraction.
source "$ROOT/tests/lib.sh"
source "$ROOT/tests/torch_oom_kinds.sh"

# Another process holds 40 MiB: one 12 MiB tensor fits in the 20 left.
run elsewhere FAKECUDA_OTHER_USED=$((40 * MiB))
expect_eq "$(kind_line elsewhere)" \
    "    kind: held by other processes or contexts: the driver's used 58,720,256 - this process's own 12,582,912 = 46,137,344 bytes, at least the 4,194,304 missing" \
    "elsewhere: the kind line"

# PyTorch's per-process memory fraction allows 16 MiB: the second 12 MiB
# tensor is refused with 48 MiB free on the device, and no cudaMalloc
# failed.
run setting
expect_eq "$(kind_line setting)" \
    "    kind: an allocator setting: PyTorch may use 16,777,216 bytes of the device's 67,108,864 (torch.cuda.set_per_process_memory_fraction), and 50,331,648 were free for the 12,582,912 asked" \
    "setting: the kind line"
expect_eq "$(jget setting/torch.json 'd["out_of_memory"]["failed_count"], len(d["out_of_memory"]["events"])')" "(0, 0)" \
    "setting: no CUDA call failed"
