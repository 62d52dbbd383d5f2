"""A GPT-like model trained with AdamW, for gpuleak plan's tests on real
models (tests/t_plan_gpt.sh, t_plan_models_fit.sh, t_plan_memtracker.sh,
scripts/plan-tables.sh), make bench's section 9 (scripts/bench-plan.sh) and
the `plan` case of scripts/gpu-check.sh.

    python plan_gpt.py [--batch N] [--steps N] [--device cuda|cpu]
                       [--bf16] [--checkpoint] [--fused | --foreach]
                       [--variant fp32|bf16|checkpoint|fused|foreach]
                       [--memtracker] [--layers N] [--d-model N] [--seq N]
                       [--vocab N] [--heads N] [--nvml]

The model: token and position embeddings, LAYERS pre-norm blocks
(LayerNorm, a Linear to q, k, v, scaled_dot_product_attention (causal, 4
heads by default), a Linear projection, LayerNorm, Linear-GELU-Linear MLP (4 x
d_model)), a final LayerNorm and a Linear head to the vocabulary; cross
entropy on next-token targets.  Defaults: 4 layers, d_model 256, seq 128,
vocab 8192.  --bf16 runs forward and loss under bf16 autocast;
--checkpoint recomputes each block in backward
(torch.utils.checkpoint, use_reentrant=False); --fused and --foreach pick
AdamW's implementation (default: PyTorch's choice); --variant V is the
same as --V (fp32: none of them), so that `gpuleak plan --sweep
variant=fp32,bf16` can sweep them.  STEPS 0 trains until
something stops it (gpuleak plan's --steps).

The model is built on the device (no host copy of its weights: a plan of
billions of parameters costs no host memory for them).  Prints "step N"
after each optimizer step and, at the end, "seconds S" (the steps' wall
time) and, on cuda, "peaks ALLOCATED RESERVED"
(torch.cuda.max_memory_allocated / _reserved) and, with --nvml,
"nvml_used BYTES": the device memory NVML charges this process (pynvml,
else nvidia-smi; "-" when neither answers).  With
--memtracker the whole run is inside torch.distributed._tools.mem_tracker's
MemTracker, and it also prints "memtracker PEAK" (MemTracker's peak of the
device, bytes).  Inputs are made on the device, so nothing is copied in:
under fakecuda they are zeros, which a token index may be."""
import argparse
import contextlib

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

import plan_models_common

VARIANTS = ("fp32", "bf16", "checkpoint", "fused", "foreach")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--device", default="cuda")
    p.add_argument("--bf16", action="store_true")
    p.add_argument("--checkpoint", action="store_true")
    impl = p.add_mutually_exclusive_group()
    impl.add_argument("--fused", action="store_true")
    impl.add_argument("--foreach", action="store_true")
    p.add_argument("--variant", choices=VARIANTS, default="fp32")
    p.add_argument("--memtracker", action="store_true")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--d-model", type=int, default=256)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--vocab", type=int, default=8192)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--nvml", action="store_true")
    args = p.parse_args()
    if args.variant != "fp32":  # one argument that gpuleak plan can sweep
        setattr(args, args.variant, True)
    return args


class Block(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def attention(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attention(x)
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.checkpoint = args.checkpoint
        self.tokens = nn.Embedding(args.vocab, args.d_model)
        self.positions = nn.Embedding(args.seq, args.d_model)
        self.blocks = nn.ModuleList(Block(args.d_model, args.heads) for _ in range(args.layers))
        self.ln = nn.LayerNorm(args.d_model)
        self.head = nn.Linear(args.d_model, args.vocab)

    def forward(self, idx):
        x = self.tokens(idx) + self.positions(torch.arange(idx.shape[1], device=idx.device))
        for block in self.blocks:
            if self.checkpoint:
                x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        return self.head(self.ln(x))


def optimizer(args, model):
    kw = {"fused": True} if args.fused else {"foreach": True} if args.foreach else {}
    return torch.optim.AdamW(model.parameters(), lr=1e-3, **kw)


def train(args, model, opt, idx, targets, after_step):
    autocast = torch.autocast(args.device, dtype=torch.bfloat16) if args.bf16 else contextlib.nullcontext()
    step = 0
    while args.steps == 0 or step < args.steps:
        with autocast:
            logits = model(idx)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        after_step()
        step += 1
        print("step", step, flush=True)


def main():
    args = parse_args()
    torch.manual_seed(0)
    with torch.device(args.device):
        model = GPT(args)
    opt = optimizer(args, model)
    idx = torch.randint(0, args.vocab, (args.batch, args.seq), device=args.device)
    targets = torch.randint(0, args.vocab, (args.batch, args.seq), device=args.device)
    plan_models_common.run(args, model, opt, (idx, targets),
                           lambda after_step: train(args, model, opt, idx, targets, after_step))


if __name__ == "__main__":
    plan_models_common.main_exit(main)
