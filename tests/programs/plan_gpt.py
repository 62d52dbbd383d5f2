"""A small GPT trained with AdamW, for gpuleak plan's bench row (make bench,
scripts/bench-plan.sh) and the `plan` case of scripts/gpu-check.sh:

    python plan_gpt.py --batch B [--device cuda|cpu] [--steps N] [--nvml]
                       [--d-model 256] [--layers 4] [--heads 4] [--seq 128] [--vocab 8192]

Token and position embeddings, LAYERS pre-norm blocks (LayerNorm, one
Linear for Q, K and V, causal scaled_dot_product_attention, an output
Linear, LayerNorm, a 4x MLP with GELU), a final LayerNorm and a Linear head
over VOCAB, cross-entropy on random tokens, AdamW.  The model is built on
the device (no host copy of the weights), so a plan of billions of
parameters costs no host memory for them.  Prints "step N" after each step;
at the end "seconds S" (the steps' wall time) and, on cuda, "peaks
ALLOCATED RESERVED" (torch.cuda.max_memory_allocated / _reserved) and, with
--nvml, "nvml_used BYTES": the device memory NVML charges this process
(pynvml, else nvidia-smi; "-" when neither answers)."""
import argparse
import os
import subprocess
import time

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(att.transpose(1, 2).reshape(b, t, d))
        return x + self.down(F.gelu(self.up(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab, seq, d, layers, heads):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def nvml_used():
    """Device memory NVML charges this process, in bytes, or None."""
    pid = os.getpid()
    try:
        import pynvml
        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h):
            if p.pid == pid:
                return p.usedGpuMemory
    except Exception:
        pass
    try:
        out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=30).stdout
        for line in out.splitlines():
            cols = [c.strip() for c in line.split(",")]
            if len(cols) == 2 and cols[0] == str(pid):
                return int(cols[1]) << 20  # MiB
    except (OSError, ValueError, subprocess.SubprocessError):
        pass
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--nvml", action="store_true")
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=8192)
    a = ap.parse_args()
    torch.manual_seed(0)
    with torch.device(a.device):
        model = GPT(a.vocab, a.seq, a.d_model, a.layers, a.heads)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    idx = torch.randint(a.vocab, (a.batch, a.seq + 1), device=a.device)
    t0 = time.monotonic()
    for step in range(1, a.steps + 1):
        logits = model(idx[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, a.vocab), idx[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        print("step", step, flush=True)
    if a.device.startswith("cuda"):
        torch.cuda.synchronize()
    print("seconds %.3f" % (time.monotonic() - t0), flush=True)
    if a.device.startswith("cuda"):
        print("peaks", torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved(), flush=True)
        if a.nvml:
            used = nvml_used()
            print("nvml_used", "-" if used is None else used, flush=True)


if __name__ == "__main__":
    main()
