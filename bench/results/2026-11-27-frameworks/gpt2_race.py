"""The decoder LM of this race: Hugging Face's GPT2LMHeadModel (transformers'
code, random weights, nothing downloaded) at a size two shared cores run
the whole race on in minutes: 4 layers, d 256, 4 heads, vocabulary 4096;
2 sequences of 256 tokens."""
from remat_torch.hf import build, token_batch

CONFIG = dict(n_layer=4, n_embd=256, n_head=4, vocab_size=4096, n_positions=256)


def model():
    return build("gpt2", CONFIG)


def inputs():
    return token_batch(CONFIG["vocab_size"], 2, 256)
