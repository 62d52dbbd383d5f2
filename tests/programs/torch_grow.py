"""A job that grows on the stand-in torch (tests/programs/torch_standin):
each step keeps a new 12 MiB tensor (its own segment: the stand-in's
caching allocator makes it with cudaMalloc from inside torch/cuda/, on
behalf of the line grow() marks), then a snapshot.  Every segment's
stack starts in PyTorch's allocator: a label by the innermost frame reads
`malloc (_allocator.py:N)` for every row (issue 35).  argv: the number of
steps; snapshots stepN.snap.  With "hold" after it, no snapshots: says
"ready PID" after the steps and runs until its standard input ends (for
`gpuleak top`)."""
import os
import sys

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402

kept = []


def grow():
    kept.append(torch.empty(3 * 1024 * 1024))  # KEPT-LINE: 12 MiB a step


hold = sys.argv[2:] == ["hold"]
for i in range(int(sys.argv[1])):
    grow()
    if not hold:
        assert gm._dump_snapshot("step%d.snap" % i) == "step%d.snap" % i
if hold:
    print("ready", os.getpid(), flush=True)
    sys.stdin.read()
