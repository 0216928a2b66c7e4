"""Small models for the remat_torch tests (SPEC: tests/python/models.py:NAME)."""
import torch
from torch import nn

BATCH, WIDTH, HIDDEN, BLOCKS = 8, 16, 48, 4


def linear_tanh():
    """Blocks Linear(W, H) -> Tanh -> Linear(H, W): each keeps the tanh output
    (B*H*4 bytes, saved by Tanh and by the second Linear: one storage) besides
    its input and output (B*W*4 bytes)."""
    torch.manual_seed(0)
    return nn.Sequential(*[nn.Sequential(nn.Linear(WIDTH, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, WIDTH))
                           for _ in range(BLOCKS)])


class Residual(nn.Module):
    """In place ops, a view and an expand, BatchNorm, dropout."""

    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.norm = nn.BatchNorm1d(width)
        self.drop = nn.Dropout(0.2)
        self.scale = nn.Parameter(torch.ones(1, width))

    def forward(self, x):
        y = self.norm(self.linear(x)).relu_()          # in place on a tensor BatchNorm made
        y = self.drop(y) * self.scale.expand_as(y)     # expand: a view of a parameter
        return (x + y).view(x.shape)                   # a view of the sum


class DictOut(nn.Module):
    """Returns a dict; the next block takes it."""

    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, width)

    def forward(self, x):
        h = torch.tanh(self.linear(x))
        return {"h": h, "gate": torch.sigmoid(h)}


class DictIn(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, width)

    def forward(self, d):
        return self.linear(d["h"] * d["gate"])


def pitfalls():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(WIDTH, HIDDEN), nn.ReLU(inplace=True), Residual(HIDDEN), Residual(HIDDEN),
                         DictOut(HIDDEN), DictIn(HIDDEN), Residual(HIDDEN), nn.Linear(HIDDEN, WIDTH))


def not_a_module():
    return 42


class Dense(nn.Module):
    def __init__(self, inputs, outputs):
        super().__init__()
        self.linear = nn.Linear(inputs, outputs)

    def forward(self, x):
        return torch.tanh(self.linear(x))


class SkipNet(nn.Module):
    """A U-Net-like long skip: the last block reads the first block's output
    through a concatenation (code between modules)."""

    def __init__(self):
        super().__init__()
        self.a = Dense(WIDTH, HIDDEN)
        self.b = Dense(HIDDEN, HIDDEN)
        self.c = Dense(HIDDEN, HIDDEN)
        self.d = nn.Linear(2 * HIDDEN, WIDTH)

    def forward(self, x):
        h = self.a(x)
        return self.d(torch.cat([self.c(self.b(h)), h], dim=-1))


def skipnet():
    torch.manual_seed(0)
    return SkipNet()
