"""Real PyTorch whose backward pass makes a cudaMalloc on autograd's own
thread, for tests/t_torch_real_internals.sh (issue 45, item 5): a Linear
layer's forward (before.snap), then its backward, whose matmul asks cuBLAS
for a workspace (a 32 MiB segment) from autograd's engine thread: a stack
of PyTorch's C++ frames only, above the thread start in libstdc++
(after.snap)."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

layer = torch.nn.Linear(256, 256, device="cuda")
loss = layer(torch.ones(64, 256, device="cuda")).sum()  # FORWARD-LINE
gm._dump_snapshot("before.snap")
loss.backward()
gm._dump_snapshot("after.snap")
