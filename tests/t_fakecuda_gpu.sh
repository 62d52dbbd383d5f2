# Card profiles (issue 44, item 2): `fakecuda-run --gpu NAME` makes the
# devices answer as that card -- name, compute capability, SMs, L2, total
# memory and the context's own memory (cudaMemGetInfo's used once the
# primary context exists) -- through the runtime, the driver and NVML
# (tests/programs/gpu_profile.c), and through real PyTorch 2.14.1.  Every
# row of tools/fakecuda/gpus.tsv is checked against what the runtime and
# the driver report; two profiles against literal figures.  --gpu-memory
# overrides the total; an unknown name is refused with the known names,
# exit 2.
source "$ROOT/tests/lib.sh"
RUN=$FAKECUDA/fakecuda-run
P=$TPROG/gpu_profile

out=$("$RUN" --gpu h100-sxm-80gb --devices 1 -- "$P")
expect_eq "$out" "runtime NVIDIA H100 80GB HBM3|9.0|132|52428800|85027979264|85027979264|536870912
driver NVIDIA H100 80GB HBM3|9.0|132|52428800|85027979264
nvml NVIDIA H100 80GB HBM3" "h100-sxm-80gb"
out=$("$RUN" --gpu l4 -- "$P")
expect_eq "$out" "runtime NVIDIA L4|8.9|58|50331648|23569891328|23569891328|402653184
driver NVIDIA L4|8.9|58|50331648|23569891328
nvml NVIDIA L4" "l4"
# No profile: the stand-in as before.
out=$("$RUN" --devices 1 -- "$P")
expect_eq "$(head -1 <<<"$out")" "runtime fakecuda device 0|9.0|132|52428800|1073741824|1073741824|4194304" "no profile"

# Every row of the table, as the runtime and the driver report it.
rows=0
while IFS=$'\t' read -r key name major minor sms l2 total ctx _; do
    [[ $key == \#* || -z $key ]] && continue
    rows=$((rows + 1))
    out=$("$RUN" --gpu "$key" -- "$P")
    expect_eq "$out" "runtime $name|$major.$minor|$sms|$l2|$total|$total|$ctx
driver $name|$major.$minor|$sms|$l2|$total
nvml $name" "$key"
done <"$FAKECUDA/gpus.tsv"
expect_eq "$rows" 7 "profiles in gpus.tsv"

# --gpu-memory: the total (bytes, or a unit), whatever the profile says.
out=$("$RUN" --gpu a100-80gb --gpu-memory 40GiB -- "$P")
expect_eq "$(sed -n 2p <<<"$out")" "driver NVIDIA A100-SXM4-80GB|8.0|108|41943040|42949672960" "--gpu-memory 40GiB"
out=$("$RUN" --gpu-memory 3000000000 --gpu h200-141gb -- "$P")
expect_eq "$(sed -n 2p <<<"$out")" "driver NVIDIA H200|9.0|132|62914560|3000000000" "--gpu-memory 3000000000"
out=$("$RUN" --gpu h200-141gb --gpu-memory 2GB -- "$P")
expect_eq "$(sed -n 2p <<<"$out")" "driver NVIDIA H200|9.0|132|62914560|2000000000" "--gpu-memory 2GB"

# Refusals: one line, exit 2, the program never runs.
rc=0; err=$("$RUN" --gpu h100 -- "$P" 2>&1) || rc=$?
expect_eq "$rc:$err" "2:fakecuda-run: unknown GPU 'h100'; known: h100-sxm-80gb h100-pcie-80gb h200-141gb a100-40gb a100-80gb l4 rtx-4090" "unknown GPU"
rc=0; err=$("$RUN" --gpu l4 --gpu-memory 40G -- "$P" 2>&1) || rc=$?
expect_eq "$rc:$err" "2:fakecuda-run: --gpu-memory wants bytes or a size such as 40GiB, not '40G'" "bad --gpu-memory"

# Real PyTorch reads the profile (cudaGetDeviceProperties, cudaMemGetInfo);
# not under a sanitizer (torch_real_setup skips there, so last).
torch_real_setup
props='import torch
p = torch.cuda.get_device_properties(0)
print(p.name, p.major, p.minor, p.multi_processor_count, p.total_memory, p.L2_cache_size, torch.cuda.mem_get_info(0)[1], sep="|")'
out=$("$RUN" --gpu h100-sxm-80gb --devices 1 -- "$PY" -c "$props")
expect_eq "$out" "NVIDIA H100 80GB HBM3|9|0|132|85027979264|52428800|85027979264" "torch on h100-sxm-80gb"
out=$("$RUN" --gpu rtx-4090 --devices 1 -- "$PY" -c "$props")
expect_eq "$out" "NVIDIA GeForce RTX 4090|8|9|128|25756172288|75497472|25756172288" "torch on rtx-4090"
