"""A nanoGPT-style decoder LM for the graph planner's bench
(bench/graph_planner.sh, docs/planners.md "Graphs: a MILP with a proven
bound"): token and position embeddings are two modules of their own, added
between modules, so that the traced model is a graph (the two embeddings
join at the first block), not a chain. Pre-LayerNorm blocks (causal
self-attention written out, as PyTorch 1.13 has no
F.scaled_dot_product_attention; a GELU MLP), a final LayerNorm, a head tied to
the token embedding and the model's own cross-entropy loss. After
bench/results/2026-11-27-frameworks/nanogpt_race.py. 4 layers, d 256,
8 heads, vocabulary 8192; 4 sequences of 256 tokens.

    PYTHONPATH=python python3 -m remat_torch trace --model bench/models/nanogpt_2emb.py:model \\
        --inputs bench/models/nanogpt_2emb.py:inputs -o nanogpt.json"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

LAYERS, D, HEADS, VOCAB, CONTEXT = 4, 256, 8, 8192, 256
BATCH, SEQ = 4, 256


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        mask = torch.tril(torch.ones(CONTEXT, CONTEXT, dtype=torch.bool))
        self.register_buffer("mask", mask.view(1, 1, CONTEXT, CONTEXT), persistent=False)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(c // HEADS)
        scores = scores.masked_fill(~self.mask[:, :, :t, :t], float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(b, t, c))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(D, 4 * D)
        self.proj = nn.Linear(4 * D, D)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(D), CausalSelfAttention()
        self.ln2, self.mlp = nn.LayerNorm(D), MLP()

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class NanoGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(VOCAB, D), nn.Embedding(CONTEXT, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)
        self.head.weight = self.wte.weight  # tied, as nanoGPT does
        for name, p in self.named_parameters():
            if name.endswith("proj.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * LAYERS))
            elif p.dim() > 1:
                nn.init.normal_(p, std=0.02)

    def forward(self, idx, targets):
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(t, device=idx.device))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        return {"loss": F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1)), "logits": logits}


def model():
    torch.manual_seed(0)
    return NanoGPT()


def inputs():
    torch.manual_seed(1)
    idx = torch.randint(0, VOCAB, (BATCH, SEQ + 1))
    return {"idx": idx[:, :-1].contiguous(), "targets": idx[:, 1:].contiguous()}
