"""A GPT-2-style language model in plain PyTorch, for remat_torch (docs/pytorch.md).

Token and position embeddings, a stack of pre-LayerNorm blocks (causal
self-attention, MLP), a final LayerNorm and an LM head tied to the token
embedding. Called with `labels` (the token ids to predict, as Hugging Face's
GPT2LMHeadModel takes them: shifted inside), it returns a GPTOutput whose
`loss` is the cross-entropy of the next token; without, its `logits`.

    PYTHONPATH=python python3 -m remat_torch trace --model python/examples/gpt.py:model \\
        --inputs python/examples/gpt.py:inputs -o gpt.json

Sizes: `model()` is GPT-2 small (d 768, 12 layers, 12 heads, vocabulary
50257, context 1024); `inputs()` a batch of 4 sequences of 512 tokens with
labels; `seq1024_inputs()` one sequence of 1024. `small()` / `small_inputs()` and `tiny()` / `tiny_inputs()` are the
same model, smaller (traced files and tests)."""
import dataclasses
import math
from typing import Optional

import torch
from torch import nn
from torch.nn import functional as F


@dataclasses.dataclass
class GPTConfig:
    vocab: int = 50257
    context: int = 1024
    width: int = 768
    layers: int = 12
    heads: int = 12
    dropout: float = 0.1


@dataclasses.dataclass
class GPTOutput:
    loss: Optional[torch.Tensor]
    logits: torch.Tensor


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.heads = config.heads
        self.c_attn = nn.Linear(config.width, 3 * config.width)
        self.c_proj = nn.Linear(config.width, config.width)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        causal = torch.tril(torch.ones(config.context, config.context, dtype=torch.bool))
        self.register_buffer("causal", causal.view(1, 1, config.context, config.context), persistent=False)

    def forward(self, x):
        batch, seq, width = x.shape
        q, k, v = self.c_attn(x).split(width, dim=2)
        q, k, v = (t.view(batch, seq, self.heads, width // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(width // self.heads)
        scores = scores.masked_fill(~self.causal[:, :, :seq, :seq], float("-inf"))
        attention = self.attn_dropout(F.softmax(scores, dim=-1))
        y = (attention @ v).transpose(1, 2).contiguous().view(batch, seq, width)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.width, 4 * config.width)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.width, config.width)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.width)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.width)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Embeddings(nn.Module):
    """Token plus position embeddings, then dropout: one module, so that the
    model is a chain of modules (embeddings, blocks, final norm, head)."""

    def __init__(self, config):
        super().__init__()
        self.context = config.context
        self.wte = nn.Embedding(config.vocab, config.width)
        self.wpe = nn.Embedding(config.context, config.width)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, input_ids):
        seq = input_ids.shape[1]
        if seq > self.context:
            raise ValueError(f"sequence of {seq} tokens is longer than the context of {self.context}")
        positions = torch.arange(seq, device=input_ids.device)
        return self.drop(self.wte(input_ids) + self.wpe(positions))


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = Embeddings(config)
        self.h = nn.ModuleList([Block(config) for _ in range(config.layers)])
        self.ln_f = nn.LayerNorm(config.width)
        self.lm_head = nn.Linear(config.width, config.vocab, bias=False)
        self.lm_head.weight = self.embeddings.wte.weight  # tied, as in GPT-2
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, input_ids, labels=None):
        x = self.embeddings(input_ids)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if labels is not None:  # predict token t+1 from tokens up to t
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))
        return GPTOutput(loss=loss, logits=logits)


def _token_batch(config, batch, seq):
    """Random token ids (the same for every call after torch.manual_seed) and
    themselves as labels."""
    input_ids = torch.randint(0, config.vocab, (batch, seq))
    return {"input_ids": input_ids, "labels": input_ids.clone()}


GPT2_SMALL = GPTConfig()
SMALL = GPTConfig(vocab=8192, context=256, width=256, layers=6, heads=8)
TINY = GPTConfig(vocab=96, context=32, width=32, layers=3, heads=4)


def model():
    """GPT-2 small: d 768, 12 layers, 12 heads, vocabulary 50257."""
    return GPT(GPT2_SMALL)


def inputs():
    """4 sequences of 512 tokens, with labels."""
    return _token_batch(GPT2_SMALL, 4, 512)


def seq1024_inputs():
    """1 sequence of 1024 tokens (GPT-2's whole context), with labels: the
    op-level figures of docs/pytorch.md."""
    return _token_batch(GPT2_SMALL, 1, 1024)


def small():
    """d 256, 6 layers, 8 heads, vocabulary 8192."""
    return GPT(SMALL)


def small_inputs():
    """8 sequences of 256 tokens, with labels."""
    return _token_batch(SMALL, 8, 256)


def tiny():
    return GPT(TINY)


def tiny_inputs():
    return _token_batch(TINY, 4, 16)
