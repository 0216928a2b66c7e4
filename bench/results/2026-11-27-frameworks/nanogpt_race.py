"""A decoder LM written outside the project and outside transformers, in the
style of nanoGPT: a plain nn.Module with its own token and position
embeddings, pre-LayerNorm blocks (causal self-attention through
F.scaled_dot_product_attention, a GELU MLP), a final LayerNorm, a head tied
to the token embedding, and its own cross-entropy loss. 6 layers, d 384,
6 heads, vocabulary 8192; 2 sequences of 128 tokens."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

LAYERS, D, HEADS, VOCAB, CONTEXT = 6, 384, 6, 8192, 256
BATCH, SEQ = 2, 128


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, HEADS, c // HEADS).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
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
    return NanoGPT()


def inputs():
    idx = torch.randint(0, VOCAB, (BATCH, SEQ + 1))
    return {"idx": idx[:, :-1].contiguous(), "targets": idx[:, 1:].contiguous()}
