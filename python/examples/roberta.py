"""Seed 002's encoder, RoBERTa, in plain PyTorch, for remat_torch (docs/pytorch.md).

Built as Hugging Face's RobertaForMaskedLM is: embeddings (word, position
counted past the padding, token type, LayerNorm, dropout); an encoder of
RobertaLayer blocks, each a self-attention with the padding mask (query,
key, value, softmax, dropout) and its output sublayer (dense, dropout,
LayerNorm over the residual), an intermediate sublayer (dense, GELU) and an
output sublayer (dense, dropout, LayerNorm over the residual); a masked-LM
head (dense, GELU, LayerNorm, decoder tied to the word embeddings). Called
with `labels` (-100 where no token is masked), it returns {"loss", "logits"}
with the masked-LM cross-entropy as "loss".

    PYTHONPATH=python python3 -m remat_torch trace --model python/examples/roberta.py:small \\
        --inputs python/examples/roberta.py:small_inputs -o roberta.json

Sizes: `model()` is RoBERTa-base (hidden 768, 12 layers, 12 heads,
intermediate 3072, vocabulary 50265), `inputs()` 8 sequences of 512 tokens
(`base_seq512_batch2()`: 2 of them);
`small()` / `small_inputs()` and `tiny()` / `tiny_inputs()` the same model,
smaller. Inputs are padded (attention_mask 0 at the end of every other
sequence) and 15 % of the real tokens are masked for the loss."""
import dataclasses
import math

import torch
from torch import nn
from torch.nn import functional as F

PAD, MASK_TOKEN_OFFSET, FIRST_TOKEN = 1, 1, 3  # <pad> is 1; <mask> is the last id; ids below 3 are special


@dataclasses.dataclass
class RobertaConfig:
    vocab: int = 50265
    hidden: int = 768
    layers: int = 12
    heads: int = 12
    intermediate: int = 3072
    max_positions: int = 514
    dropout: float = 0.1
    eps: float = 1e-5


class RobertaEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab, config.hidden, padding_idx=PAD)
        self.position_embeddings = nn.Embedding(config.max_positions, config.hidden, padding_idx=PAD)
        self.token_type_embeddings = nn.Embedding(1, config.hidden)
        self.LayerNorm = nn.LayerNorm(config.hidden, eps=config.eps)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, input_ids):
        # Positions count real tokens only, from PAD + 1 (RoBERTa's create_position_ids_from_input_ids).
        real = input_ids.ne(PAD).int()
        positions = (torch.cumsum(real, dim=1) * real).long() + PAD
        token_types = torch.zeros_like(input_ids)
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions) \
            + self.token_type_embeddings(token_types)
        return self.dropout(self.LayerNorm(x))


class RobertaSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.heads = config.heads
        self.head_size = config.hidden // config.heads
        self.query = nn.Linear(config.hidden, config.hidden)
        self.key = nn.Linear(config.hidden, config.hidden)
        self.value = nn.Linear(config.hidden, config.hidden)
        self.dropout = nn.Dropout(config.dropout)

    def _heads(self, x):
        batch, seq, _ = x.shape
        return x.view(batch, seq, self.heads, self.head_size).permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        q, k, v = (self._heads(f(hidden_states)) for f in (self.query, self.key, self.value))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_size) + attention_mask
        probabilities = self.dropout(F.softmax(scores, dim=-1))
        context = torch.matmul(probabilities, v).permute(0, 2, 1, 3).contiguous()
        return context.view(context.shape[0], context.shape[1], -1)


class RobertaSelfOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden, config.hidden)
        self.LayerNorm = nn.LayerNorm(config.hidden, eps=config.eps)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class RobertaAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self = RobertaSelfAttention(config)
        self.output = RobertaSelfOutput(config)

    def forward(self, hidden_states, attention_mask):
        return self.output(self.self(hidden_states, attention_mask), hidden_states)


class RobertaIntermediate(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden, config.intermediate)
        self.intermediate_act_fn = nn.GELU()

    def forward(self, hidden_states):
        return self.intermediate_act_fn(self.dense(hidden_states))


class RobertaOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.intermediate, config.hidden)
        self.LayerNorm = nn.LayerNorm(config.hidden, eps=config.eps)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class RobertaLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = RobertaAttention(config)
        self.intermediate = RobertaIntermediate(config)
        self.output = RobertaOutput(config)

    def forward(self, hidden_states, attention_mask):
        attention_output = self.attention(hidden_states, attention_mask)
        return self.output(self.intermediate(attention_output), attention_output)


class RobertaEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layer = nn.ModuleList([RobertaLayer(config) for _ in range(config.layers)])

    def forward(self, hidden_states, attention_mask):
        for layer_module in self.layer:
            hidden_states = layer_module(hidden_states, attention_mask)
        return hidden_states


class RobertaModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = RobertaEmbeddings(config)
        self.encoder = RobertaEncoder(config)

    def forward(self, input_ids, attention_mask=None):
        if attention_mask is None:
            attention_mask = input_ids.ne(PAD)
        # 0 where a token may be attended to, the dtype's lowest where it is padding.
        dtype = self.embeddings.word_embeddings.weight.dtype
        extended = (1.0 - attention_mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min
        return self.encoder(self.embeddings(input_ids), extended)


class RobertaLMHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden, config.hidden)
        self.layer_norm = nn.LayerNorm(config.hidden, eps=config.eps)
        self.decoder = nn.Linear(config.hidden, config.vocab)

    def forward(self, features):
        return self.decoder(self.layer_norm(F.gelu(self.dense(features))))


class RobertaForMaskedLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.roberta = RobertaModel(config)
        self.lm_head = RobertaLMHead(config)
        self.lm_head.decoder.weight = self.roberta.embeddings.word_embeddings.weight  # tied, as in RoBERTa
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)
        if isinstance(module, nn.Embedding) and module.padding_idx is not None:
            with torch.no_grad():
                module.weight[module.padding_idx].zero_()

    def forward(self, input_ids, attention_mask=None, labels=None):
        logits = self.lm_head(self.roberta(input_ids, attention_mask))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, self.config.vocab), labels.view(-1), ignore_index=-100)
        return {"loss": loss, "logits": logits}


def masked_batch(config, batch, seq, mask_fraction=0.15):
    """Random token ids, every other sequence padded over its last quarter,
    15 % of the real tokens replaced by <mask> with the original as label
    (-100 elsewhere). The same after torch.manual_seed."""
    input_ids = torch.randint(FIRST_TOKEN, config.vocab - MASK_TOKEN_OFFSET, (batch, seq))
    attention_mask = torch.ones(batch, seq, dtype=torch.int64)
    attention_mask[1::2, seq - seq // 4:] = 0
    input_ids[attention_mask == 0] = PAD
    chosen = (torch.rand(batch, seq) < mask_fraction) & attention_mask.bool()
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, -100))
    input_ids[chosen] = config.vocab - MASK_TOKEN_OFFSET
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


ROBERTA_BASE = RobertaConfig()
SMALL = RobertaConfig(vocab=8192, hidden=256, layers=6, heads=4, intermediate=1024, max_positions=258)
TINY = RobertaConfig(vocab=96, hidden=32, layers=3, heads=4, intermediate=64, max_positions=34)


def model():
    """RoBERTa-base: hidden 768, 12 layers, 12 heads, vocabulary 50265."""
    return RobertaForMaskedLM(ROBERTA_BASE)


def inputs():
    """8 sequences of 512 tokens."""
    return masked_batch(ROBERTA_BASE, 8, 512)


def base_seq512_batch2():
    """2 sequences of 512 tokens for RoBERTa-base (the traced example in resources/models)."""
    return masked_batch(ROBERTA_BASE, 2, 512)


def small():
    """hidden 256, 6 layers, 4 heads, intermediate 1024, vocabulary 8192."""
    return RobertaForMaskedLM(SMALL)


def small_inputs():
    """8 sequences of 256 tokens."""
    return masked_batch(SMALL, 8, 256)


def tiny():
    return RobertaForMaskedLM(TINY)


def tiny_inputs():
    return masked_batch(TINY, 4, 16)
