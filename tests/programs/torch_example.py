"""The PyTorch example of docs/pytorch.md and docs/usage.md: a model loaded,
then two training steps, each marked as phases (gpuleak_memory.annotate),
on the stand-in torch (tests/programs/torch_standin); each step keeps its
loss, and through the loss's graph its activation (the planted leak).  One
snapshot at the end (gpuleak_memory._dump_snapshot, after
_record_memory_history() at the start, as PyTorch's own workflow goes), whose report shows
PyTorch's tensors inside its cache, the ledger and the phases.
tests/t_torch_example.sh checks that the documents show what it prints."""
import os
import sys

import torch

sys.path[:0] = [os.environ["GPULEAK_PYTHON_DIR"]] if "GPULEAK_PYTHON_DIR" in os.environ else []  # gpuleak run: on the path
import gpuleak_memory as gm  # noqa: E402

gm._record_memory_history()  # as with PyTorch's own: every tensor from here has its line
losses = []


def load():
    return torch.empty(512 * 1024)  # 2 MiB of weights


def forward(w, x):
    h = x * w  # the activation: kept by the loss's graph
    return h.sum()


def train_step(w):
    with gm.annotate("forward"):
        x = torch.empty(64 * 1024)  # the batch: 256 KiB
        loss = forward(w, x)
    with gm.annotate("backward"):
        grad = torch.empty(512 * 1024)  # a gradient as large as the weights
        del grad
    losses.append(loss)  # the planted leak: each loss keeps its graph alive


with gm.annotate("load"):
    weights = load()
for _ in range(2):
    train_step(weights)
gm._dump_snapshot(sys.argv[1])
