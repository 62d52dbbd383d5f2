"""cuDNN on real PyTorch (tests/t_torch_real_cudnn.sh), through fakecuda's
cuDNN stand-in.  `conv`: a conv-only net (Conv2d, cuDNN BatchNorm2d, ReLU,
max pooling, a 1x1 conv head and global average pooling to the logits)
trains 3 AdamW steps; `sdpa`: bf16 scaled_dot_product_attention forward
and backward, on the backend torch picks by itself.  Each asks gpuleak
for a snapshot at the end and prints torch's peaks.  `workspace`: one
convolution's own peak above what was allocated before it (its output and
the cuDNN workspace torch allocates for the plan), without gpuleak."""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.environ["GPULEAK_PYTHON_DIR"])
import gpuleak_memory as gm  # noqa: E402



def conv():
    torch.backends.cudnn.enabled = True
    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 10, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten()).cuda()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    x = torch.randn(16, 3, 64, 64, device="cuda")
    y = torch.randint(0, 10, (16,), device="cuda")
    for _ in range(3):
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


def sdpa():
    from torch.nn.attention import SDPBackend
    q, k, v = (torch.randn(4, 8, 512, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    print("backend", SDPBackend(torch._fused_sdp_choice(q, k, v, None, 0.0, True)).name)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out.float().pow(2).sum().backward()
    assert q.grad.shape == q.shape and v.grad.dtype == torch.bfloat16


def workspace():
    net = nn.Conv2d(3, 16, 3, padding=1).cuda()
    x = torch.randn(8, 3, 32, 32, device="cuda")
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    y = net(x)
    torch.cuda.synchronize()
    print("conv", y.numel() * y.element_size(), "above", torch.cuda.max_memory_allocated() - before)


if sys.argv[1] == "workspace":
    workspace()
    sys.exit(0)
{"conv": conv, "sdpa": sdpa}[sys.argv[1]]()
torch.cuda.synchronize()
assert gm._dump_snapshot(sys.argv[1] + ".snap") == sys.argv[1] + ".snap"
print("peak", torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved())
