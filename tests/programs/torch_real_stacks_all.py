"""Real PyTorch recording its own memory history with the C++ frames
(stacks="all", PyTorch's default) or without (stacks="python"), for
tests/t_torch_real_stacks_all.sh (issue 45, item 4): three steps of a
Linear layer, each keeping one 1 MiB tensor, a gpuleak snapshot per step.
gpuleak must name the same lines either way, and leave the program's
recorder as the program set it: at the end the program reads PyTorch's
own snapshot and prints how many trace entries it kept (max_entries) and
whether any frame is a C++ one (torch::unwind::unwind()).

usage: torch_real_stacks_all.py all|python"""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

MAX_ENTRIES = 16
torch.cuda.memory._record_memory_history(stacks=sys.argv[1], max_entries=MAX_ENTRIES)
layer = torch.nn.Linear(256, 256, device="cuda")  # LAYER-LINE
kept = []
for step in range(3):
    x = torch.ones(64, 256, device="cuda")  # INPUT-LINE
    layer(x).sum().backward()
    kept.append(torch.empty(256 * 1024, device="cuda"))  # PLANTED-LINE: 1 MiB per step
    del x
    gm._dump_snapshot("step%d.snap" % step)
trace = torch.cuda.memory._snapshot()["device_traces"][0]
cxx = any(f["name"] == "torch::unwind::unwind()" for e in trace for f in e.get("frames", ()))
print("entries", len(trace), "cxx", cxx)
