"""An nn.Linear AdamW loop on real PyTorch, for tests/t_torch_real_sampled.sh
(issue 45, item 3): 6 steps, each keeping its activation (64 x 256 floats,
64 KiB) in a global list, no snapshot call and no setting, so the lines
come from gpuleak's sampled steps alone.  After each step it prints what
torch says it holds, and at the end whether PyTorch's recorder is on.

`python torch_real_sampled.py own` records PyTorch's history itself first,
with its default stacks="all" (C++ frames) and max_entries=MAX_ENTRIES, as
a user would (item 4); at the end it also prints what its recorder still
is: its trace's length (max_entries kept), whether the last allocation's
frames are C++ ones (stacks="all" kept) and whether that last entry is the
allocation made after the loop (the recorder still records).

`python torch_real_sampled.py request` asks gpuleak for a snapshot
(gpuleak_memory._dump_snapshot()) right after step 1, while gpuleak's
sampler has PyTorch's recorder on for step 2: the request's recorder, on
for good from then on."""
import os
import sys

import torch

MAX_ENTRIES = 40
own = len(sys.argv) > 1 and sys.argv[1] == "own"
request = len(sys.argv) > 1 and sys.argv[1] == "request"
if request:
    sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
    import gpuleak_memory as gm
if own:
    torch.cuda.memory._record_memory_history(stacks="all", max_entries=MAX_ENTRIES)
model = torch.nn.Linear(256, 256, device="cuda")
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
kept = []

for i in range(6):
    x = torch.ones(64, 256, device="cuda")
    h = model(x)  # KEPT-LINE: 64 KiB a step, kept below
    kept.append(h.detach())
    loss = (h**2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", i + 1, "allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved(),
          flush=True)
    if request and i == 0:
        gm._dump_snapshot("request.snap")

print("history", torch._C._cuda_isHistoryEnabled(), flush=True)
if own:
    probe = torch.empty(1024, device="cuda")  # PROBE-LINE: made after the last step
    trace = torch.cuda.memory._snapshot()["device_traces"][0]
    last = trace[-1]
    print("entries", len(trace),
          "cxx", any(f["name"] == "torch::unwind::unwind()" for f in last.get("frames", ())),
          "probe", last["size"] == 4096 and last["action"] == "alloc")
