"""A ResNet-18-shaped network trained with AdamW, cuDNN on, for gpuleak
plan's tests on real models (tests/t_plan_resnet.sh,
t_plan_memtracker.sh, scripts/plan-tables.sh).

    python plan_resnet.py [--batch N] [--steps N] [--device cuda|cpu]
                          [--image N] [--classes N] [--memtracker]

The network: a 7x7 stride-2 Conv2d (64), BatchNorm2d, ReLU, 3x3 max
pooling, four stages of two basic blocks (two 3x3 Conv2d + BatchNorm2d
each; 64, 128, 256, 512 channels; the first block of stages 2-4 strides 2
and projects its shortcut with a 1x1 Conv2d + BatchNorm2d), global
average pooling and a Linear head; cross entropy.  Defaults: 224x224
images, 1000 classes.  STEPS 0 trains until something stops it.

Prints what tests/programs/plan_models_common.py says: "step N" after
each optimizer step, "peaks ALLOCATED RESERVED" at the end, and with
--memtracker, inside MemTracker, "memtracker PEAK"."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

import plan_models_common


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--device", default="cuda")
    p.add_argument("--image", type=int, default=224)
    p.add_argument("--classes", type=int, default=1000)
    p.add_argument("--memtracker", action="store_true")
    return p.parse_args()


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


def resnet18(classes):
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, classes)]
    return nn.Sequential(*layers)


def train(args, model, opt, x, y, after_step):
    step = 0
    while args.steps == 0 or step < args.steps:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        after_step()
        step += 1
        print("step", step, flush=True)


def main():
    args = parse_args()
    torch.backends.cudnn.enabled = True
    torch.manual_seed(0)
    model = resnet18(args.classes).to(args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(args.batch, 3, args.image, args.image, device=args.device)
    y = torch.randint(0, args.classes, (args.batch,), device=args.device)
    plan_models_common.run(args, model, opt, (x, y), lambda after_step: train(args, model, opt, x, y, after_step))


if __name__ == "__main__":
    plan_models_common.main_exit(main)
