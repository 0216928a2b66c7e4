"""GPT-2 small's transformer layers (Radford et al. 2019: width 768, 12 heads,
12 layers, GELU MLP of 3072, dropout 0.1, pre-LayerNorm, causal attention),
without embeddings and head: the input is the residual stream, batch x seq x
768. For the op-level target of bench/op_level.sh (docs/planners.md, "Op
level"). `layers(n)` builds n of them."""
import math

import torch
from torch import nn
from torch.nn import functional as F


class Block(nn.Module):
    def __init__(self, width=768, heads=12, dropout=0.1):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)
        self.dropout = dropout

    def forward(self, x):
        b, s, w = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(w, dim=2)
        q, k, v = (t.view(b, s, self.heads, w // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(w // self.heads)
        causal = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        attention = F.dropout(scores.softmax(dim=-1), self.dropout, self.training)
        context = (attention @ v).transpose(1, 2).reshape(b, s, w)
        x = x + F.dropout(self.proj(context), self.dropout, self.training)
        return x + F.dropout(self.fc2(F.gelu(self.fc1(self.ln2(x)))), self.dropout, self.training)


def layers(n=12):
    return nn.Sequential(*[Block() for _ in range(n)])


def two():
    return layers(2)


def twelve():
    return layers(12)
