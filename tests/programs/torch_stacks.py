"""Many tensors, each allocated from its own Python line, on the stand-in
torch (tests/programs/torch_standin): argv[1] tensors of 512 bytes, kept
while a snapshot is requested (gpuleak_memory._dump_snapshot(argv[2])),
then freed, and another requested when argv[3] names it, before the
program exits.  Each tensor's line is distinct: one
function's code object copied with another first line, so PyTorch records
argv[1] distinct stacks (t_torch_stacks.sh, issue 34 defect 8)."""
import os
import sys
import types

import torch

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402


def make():
    return torch.empty(128)  # 512 bytes


count, path = int(sys.argv[1]), sys.argv[2]
kept = []
for i in range(count):
    at_line = types.FunctionType(make.__code__.replace(co_firstlineno=1000 + i), globals())
    kept.append(at_line())
assert gm._dump_snapshot(path) == path
print("allocated", torch.cuda.memory_allocated(), "reserved", torch.cuda.memory_reserved())
del kept
if len(sys.argv) > 3:
    assert gm._dump_snapshot(sys.argv[3]) == sys.argv[3]
