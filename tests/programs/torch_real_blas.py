"""Models that use cuBLAS, trained on real PyTorch on fakecuda's cuBLAS and
cuBLASLt stand-ins, for tests/t_torch_real_blas.sh: nn.Linear, `@`,
torch.bmm, an MLP and a TransformerEncoderLayer, each 3 AdamW steps, one
after the other in this process.  For each it prints its peaks (reset
before it starts, after empty_cache) and, after asking gpuleak (when it
runs under it) for a snapshot NAME.snap, what torch holds at that moment:
    NAME peak ALLOCATED RESERVED now ALLOCATED RESERVED
tests/programs/torch_real_blas.peaks has the peaks it must print."""
import os
import sys

import torch

gm = None
if "libgpuleak" in os.environ.get("LD_PRELOAD", ""):  # under gpuleak run
    sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
    import gpuleak_memory as gm  # noqa: E402

torch.backends.cudnn.enabled = False  # cuBLAS alone (cuDNN has a stand-in of its own)
torch.manual_seed(0)
dev = "cuda"


class MatmulModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(256, 256))

    def forward(self, x):
        return x @ self.w


class BmmModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 64, 64))

    def forward(self, x):
        return torch.bmm(x, self.w)


MODELS = {
    "linear": (lambda: torch.nn.Linear(256, 512), (64, 256)),
    "matmul": (MatmulModel, (64, 256)),
    "bmm": (BmmModel, (8, 32, 64)),
    "mlp": (lambda: torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(),
                                        torch.nn.Linear(1024, 256)), (64, 256)),
    "transformer": (lambda: torch.nn.TransformerEncoderLayer(128, 4, dim_feedforward=256, batch_first=True),
                    (4, 32, 128)),
}

for name in sys.argv[1:] or MODELS:
    make, shape = MODELS[name]
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    model = make().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(3):
        x = torch.randn(*shape, device=dev)
        loss = model(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    peak = (torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved())
    del model, opt, x, loss
    if gm:
        assert gm._dump_snapshot(name + ".snap") == name + ".snap"
    print(name, "peak", *peak, "now", torch.cuda.memory_allocated(), torch.cuda.memory_reserved(), flush=True)

# Ended without the interpreter's finalization.  PyTorch's autograd device
# thread may still be releasing the last backward's graph task when the
# script ends; the release decrefs a Python object (its ThreadLocalState),
# and once finalization has begun the thread's wait for the GIL ends it
# with a forced unwind through a noexcept destructor: std::terminate,
# status 134, "terminate called without an active exception" (1 run in 20
# to 46 on the loaded 2-core machine, bare and under gpuleak alike; core:
# Engine::thread_main -> GraphTask dispose -> ~ThreadLocalState ->
# SafePyObject decref -> take_gil -> pthread_exit).  A PyTorch race at
# exit, not this test's subject (plan_models_common.main_exit ends the plan
# models the same way).
sys.stdout.flush()
os._exit(0)
