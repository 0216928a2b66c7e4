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


# Inputs and losses (test_inputs, test_errors): SPEC tests/python/models.py:NAME,
# inputs --inputs tests/python/models.py:NAME.
VOCAB, SEQ = 50, 12


class TokenBlocks(nn.Module):
    """Token ids in (int64), logits out; with `labels`, {"loss", "logits"}."""

    def __init__(self, loss_reduction="mean"):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.blocks = nn.Sequential(*[nn.Sequential(nn.Linear(WIDTH, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, WIDTH))
                                      for _ in range(3)])
        self.head = nn.Linear(WIDTH, VOCAB)
        self.loss_reduction = loss_reduction

    def forward(self, input_ids, attention_mask=None, labels=None):
        h = self.embed(input_ids)
        if attention_mask is not None:
            h = h * attention_mask[..., None].to(h.dtype)
        logits = self.head(self.blocks(h))
        if labels is None:
            return logits
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten(), reduction=self.loss_reduction)
        return {"loss": loss, "logits": logits}


def token_blocks():
    torch.manual_seed(0)
    return TokenBlocks()


def token_blocks_unreduced_loss():
    torch.manual_seed(0)
    return TokenBlocks("none")


class MaskedBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(WIDTH, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, WIDTH))

    def forward(self, h, mask):
        return h + self.inner(h) * mask[..., None]


class MaskEveryBlock(nn.Module):
    """The input's padding mask handed to every block as it came in (no
    gradient): the input feeds every block, but only the first needs it for
    a gradient path."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.blocks = nn.ModuleList([MaskedBlock() for _ in range(4)])
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, input_ids, mask, labels):
        h = self.embed(input_ids)
        for block in self.blocks:
            h = block(h, mask)
        return nn.functional.cross_entropy(self.head(h).flatten(0, 1), labels.flatten())


def mask_every_block():
    torch.manual_seed(0)
    return MaskEveryBlock()


def mask_inputs():
    input_ids = torch.randint(0, VOCAB, (BATCH, SEQ))
    mask = torch.ones(BATCH, SEQ)
    mask[:, SEQ - 3:] = 0
    return input_ids, mask, input_ids.clone()


class ScalarLoss(nn.Module):
    """Returns its loss alone: a 0-dimensional tensor."""

    def __init__(self):
        super().__init__()
        self.net = linear_tanh()

    def forward(self, x, target):
        return ((self.net(x) - target) ** 2).mean()


def scalar_loss():
    return ScalarLoss()


def token_inputs():
    input_ids = torch.randint(0, VOCAB, (BATCH, SEQ))
    return {"input_ids": input_ids, "attention_mask": torch.ones(BATCH, SEQ, dtype=torch.int64),
            "labels": input_ids.clone()}


def positional_inputs():
    return torch.randn(BATCH, WIDTH), torch.randn(BATCH, WIDTH)


def inputs_that_raise():
    raise KeyError("no such dataset")


def inputs_none():
    return None


def inputs_unknown_key():
    return {"input_ids": torch.randint(0, VOCAB, (BATCH, SEQ)), "token_type_ids": torch.zeros(BATCH, SEQ)}


class SlowOnce(nn.Module):
    """Sleeps SLOW_SECONDS in exactly one call of its forward (the CALL-th):
    a deterministic slow step for the median."""
    SLOW_SECONDS = 0.4

    def __init__(self, call):
        super().__init__()
        self.linear = nn.Linear(WIDTH, WIDTH)
        self.call, self.calls = call, 0

    def forward(self, x):
        self.calls += 1
        if self.calls == self.call:
            import time
            time.sleep(self.SLOW_SECONDS)
        return torch.tanh(self.linear(x))


def slow_once():
    """Four blocks; block 1 sleeps in its 3rd call: trace's 2nd timed step
    (the 1st call finds the nodes)."""
    torch.manual_seed(0)
    return nn.Sequential(SlowOnce(0), SlowOnce(3), SlowOnce(0), SlowOnce(0))


class SideMaskBlock(nn.Module):
    """Attention over the padding mask and an MLP whose output the mask
    zeroes: the mask, a model input, is read by every block."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(WIDTH)
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.fc = nn.Linear(WIDTH, HIDDEN)
        self.out = nn.Linear(HIDDEN, WIDTH)
        self.drop = nn.Dropout(0.1)

    def forward(self, h, attention_mask):
        q, k, v = self.qkv(self.norm(h)).chunk(3, dim=-1)
        scores = (q @ k.transpose(-2, -1)) / WIDTH ** 0.5
        scores = scores.masked_fill(attention_mask[:, None, :] == 0, float("-inf"))
        h = h + self.proj(self.drop(scores.softmax(-1)) @ v)
        return h + self.out(torch.tanh(self.fc(h))) * attention_mask[..., None]


class MaskedTokenLM(nn.Module):
    """Token ids, a padding mask handed to every block, labels; returns
    {"loss", "logits"}, as Hugging Face's models do."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.blocks = nn.ModuleList([SideMaskBlock() for _ in range(3)])
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, input_ids, attention_mask, labels):
        h = self.embed(input_ids)
        for block in self.blocks:
            h = block(h, attention_mask)
        logits = self.head(self.norm(h))
        return {"loss": nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten()), "logits": logits}


def masked_token_lm():
    torch.manual_seed(0)
    return MaskedTokenLM()


def masked_token_inputs():
    """Every other sequence padded over its last 3 tokens."""
    input_ids = torch.randint(0, VOCAB, (BATCH, SEQ))
    mask = torch.ones(BATCH, SEQ, dtype=torch.int64)
    mask[::2, SEQ - 3:] = 0
    return {"input_ids": input_ids, "attention_mask": mask, "labels": input_ids.clone()}


class AdditiveMaskBlock(SideMaskBlock):
    """SideMaskBlock's layers with an additive mask (0 or -1e9 per key), no
    dropout, the MLP's output unmasked."""

    def forward(self, h, mask):
        q, k, v = self.qkv(self.norm(h)).chunk(3, dim=-1)
        scores = (q @ k.transpose(-2, -1)) / WIDTH ** 0.5 + mask[:, None, :]
        h = h + self.proj(scores.softmax(-1) @ v)
        return h + self.out(torch.tanh(self.fc(h)))


class AlternatingMaskLM(nn.Module):
    """Gemma2's pattern of layers: a windowed mask for the even blocks, the
    full padding mask for the odd ones, both made once before the blocks. The
    full mask skips the first block: no block and the one after it hold its
    whole life, so the op-level search cannot take the blocks one by one."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.blocks = nn.ModuleList([AdditiveMaskBlock() for _ in range(3)])
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, input_ids, attention_mask, labels):
        full = (1.0 - attention_mask.float()) * -1e9
        windowed = (1.0 - attention_mask.float() * (torch.arange(SEQ) >= 2).float()) * -1e9
        h = self.embed(input_ids)
        for i, block in enumerate(self.blocks):
            h = block(h, windowed if i % 2 == 0 else full)
        logits = self.head(h)
        return {"loss": nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten()), "logits": logits}


def alternating_mask_lm():
    torch.manual_seed(0)
    return AlternatingMaskLM()


class ShiftedLabelsLM(nn.Module):
    """Given labels alone, builds its decoder's token ids from them as Hugging
    Face's BART and T5 do (shift_tokens_right): new_zeros, a slice assigned,
    a column set, then masked_fill_ with a mask read from the same tensor."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.blocks = nn.Sequential(*[nn.Sequential(nn.Linear(WIDTH, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, WIDTH))
                                      for _ in range(3)])
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, input_ids, labels):
        shifted = labels.new_zeros(labels.shape)
        shifted[:, 1:] = labels[:, :-1].clone()
        shifted[:, 0] = 1
        shifted.masked_fill_(shifted == -100, 0)
        h = self.embed(input_ids) + self.embed(shifted)
        logits = self.head(self.blocks(h))
        return {"loss": nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten()), "logits": logits}


def shifted_labels_lm():
    torch.manual_seed(0)
    return ShiftedLabelsLM()


def shifted_labels_inputs():
    """Labels with their last 3 tokens ignored (-100), as a padded batch's are."""
    input_ids = torch.randint(0, VOCAB, (BATCH, SEQ))
    labels = input_ids.clone()
    labels[:, SEQ - 3:] = -100
    return {"input_ids": input_ids, "labels": labels}


class SharedBlock(nn.Module):
    """Its first block runs twice per forward pass (weights shared)."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.Tanh()) for _ in range(2)])

    def forward(self, x):
        return self.blocks[1](self.blocks[0](self.blocks[0](x)))


def shared_block():
    torch.manual_seed(0)
    return SharedBlock()


def causal_layers():
    """Two of bench/gpt2_layers.py's GPT-2 blocks at width 32, 4 heads: their
    Python locals (`scores`, `causal`) outlive their last reader, and their
    backward transposes saved tensors (op level, docs/pytorch.md)."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpt2_layers.py")
    spec = importlib.util.spec_from_file_location("gpt2_layers", path)
    layers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layers)
    return nn.Sequential(*[layers.Block(width=32, heads=4) for _ in range(2)])


class Rotary(nn.Module):
    """cos and sin of rotary positions, from a buffer: an output that needs no gradient, read by every layer."""

    def __init__(self, dim):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)))

    def forward(self, x):
        angles = torch.arange(x.shape[1], dtype=torch.float32)[:, None] * self.inv_freq[None, :]
        angles = torch.cat([angles, angles], dim=-1)
        return angles.cos(), angles.sin()


def _rotate(x, cos, sin):
    half = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., half:], x[..., :half]], dim=-1) * sin


class LlamaStyleLayer(nn.Module):
    """RMSNorm, grouped-query attention with rotary positions (cos and sin
    handed in as keywords, as Hugging Face's Llama does), a SwiGLU MLP."""

    def __init__(self, width=32, heads=4, kv_heads=2, hidden=64):
        super().__init__()
        self.heads, self.kv_heads, self.head = heads, kv_heads, width // heads
        self.norm1, self.norm2 = nn.Parameter(torch.ones(width)), nn.Parameter(torch.ones(width))
        self.q = nn.Linear(width, width, bias=False)
        self.kv = nn.Linear(width, 2 * kv_heads * self.head, bias=False)
        self.o = nn.Linear(width, width, bias=False)
        self.gate_up = nn.Linear(width, 2 * hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)

    @staticmethod
    def _rms(x, weight):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * weight

    def forward(self, x, position_embeddings=None):
        cos, sin = position_embeddings
        b, s, _ = x.shape
        h = self._rms(x, self.norm1)
        q = self.q(h).view(b, s, self.heads, self.head).transpose(1, 2)
        k, v = self.kv(h).view(b, s, 2, self.kv_heads, self.head).unbind(2)
        k, v = (t.transpose(1, 2).repeat_interleave(self.heads // self.kv_heads, dim=1) for t in (k, v))
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        scores = (q @ k.transpose(-2, -1)) / self.head ** 0.5
        causal = torch.ones(s, s, dtype=torch.bool).triu(1)
        attention = scores.masked_fill(causal, float("-inf")).softmax(-1) @ v
        x = x + self.o(attention.transpose(1, 2).reshape(b, s, -1))
        gate, up = self.gate_up(self._rms(x, self.norm2)).chunk(2, dim=-1)
        return x + self.down(nn.functional.silu(gate) * up)


class LlamaStyle(nn.Module):
    """A Llama-style decoder written here, not by transformers: embedding,
    rotary cos/sin made once and handed to every layer, layers, a final
    RMSNorm scale and a head; its loss inside, in a dict."""

    def __init__(self, vocab=64, width=32, layers=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.rotary = Rotary(width // 4)
        self.layers = nn.ModuleList([LlamaStyleLayer(width) for _ in range(layers)])
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, input_ids, labels):
        h = self.embed(input_ids)
        position_embeddings = self.rotary(h)
        for layer in self.layers:
            h = layer(h, position_embeddings=position_embeddings)
        logits = self.head(h)
        loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))
        return {"loss": loss, "logits": logits}


def llama_style():
    torch.manual_seed(0)
    return LlamaStyle()


def llama_style_inputs():
    ids = torch.randint(0, 64, (4, 16))
    return {"input_ids": ids, "labels": ids.clone()}


class _CausalBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class CausalLM(nn.Module):
    """A next-token LM as people write it outside this project: the
    cross-entropy of the shifted logits computed inside `forward` right after
    the head, returned as (loss, logits). Its vocabulary is wide, so the
    logits and the loss's saved log-softmax are a large part of its peak."""

    def __init__(self, vocab=1024, width=32, layers=2, context=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Embedding(context, width)
        self.blocks = nn.ModuleList(_CausalBlock(width) for _ in range(layers))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, input_ids, labels):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        h = self.embed(input_ids) + self.position(positions)
        for block in self.blocks:
            h = block(h)
        logits = self.head(self.norm(h))
        loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))
        return loss, logits


def causal_lm():
    torch.manual_seed(0)
    return CausalLM()


def causal_lm_inputs():
    input_ids = torch.randint(0, 1024, (2, 16))
    return {"input_ids": input_ids, "labels": input_ids.clone()}


TIED_GPT2 = dict(n_layer=4, n_embd=256, n_head=4, vocab_size=4096, n_positions=256)


def tied_gpt2():
    """Hugging Face's GPT-2 (transformers needed) as the framework race runs
    it (bench/results/2026-11-27-frameworks/gpt2_race.py): its LM head's
    weight, tied to the token embedding, is 4 MiB, and autograd's engine
    holds the head's gradient of it until the embedding's is added, through
    the whole backward, where tight op-level plans peak."""
    from remat_torch.hf import build
    return build("gpt2", TIED_GPT2)


def tied_gpt2_inputs():
    from remat_torch.hf import token_batch
    return token_batch(TIED_GPT2["vocab_size"], 2, 256)


def bottlenecks():
    """torchvision's ResNet with one Bottleneck per stage, each with a
    downsample branch: `out += identity` writes the branch's BatchNorm, made
    after bn3, into bn3's output."""
    import torchvision
    return torchvision.models.resnet.ResNet(torchvision.models.resnet.Bottleneck, [1, 1, 1, 1], num_classes=10)


WIDE_HEAD_LLAMA = dict(num_hidden_layers=2, hidden_size=128, intermediate_size=256, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=4096, max_position_embeddings=64)


def wide_head_llama():
    """Hugging Face's Llama (transformers needed) whose untied LM head's weight
    gradient (1 MiB) and logits' gradient (1 MiB) make the step's peak, in the
    head's backward, as in the framework race's Llama."""
    from remat_torch.hf import build
    return build("llama", WIDE_HEAD_LLAMA)


def wide_head_llama_inputs():
    from remat_torch.hf import token_batch
    return token_batch(WIDE_HEAD_LLAMA["vocab_size"], 2, 16)
