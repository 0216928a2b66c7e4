"""GPT-2 small for the race: Hugging Face's GPT2LMHeadModel (transformers'
code, random weights, nothing downloaded) with GPT-2 small's config (12
layers, d 768, 12 heads, vocabulary 50257); one sequence of 64 tokens, chosen so
that two shared cores run the whole race in minutes (it took 20 under a
load average of 7 to 11). The race ran
this file as gpt2_small_race.py (the name gpt2-small-seq64.json gives). At
64 tokens the step's peak is the tied embedding's gradients, not
activations, and no checkpointing moves it; 256 tokens, where activations
would stand above that floor, was not feasible on the loaded machine
(docs/pytorch.md)."""
from remat_torch.hf import build, token_batch

CONFIG = dict(n_layer=12, n_embd=768, n_head=12, vocab_size=50257, n_positions=1024)
BATCH, SEQ = 1, 64


def model():
    return build("gpt2", CONFIG)


def inputs():
    return token_batch(CONFIG["vocab_size"], BATCH, SEQ)
