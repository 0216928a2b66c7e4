"""GPT-2 small for the race: Hugging Face's GPT2LMHeadModel (transformers'
code, random weights, nothing downloaded) with GPT-2 small's config (12
layers, d 768, 12 heads, vocabulary 50257); one sequence of 256 tokens. At
64 tokens (gpt2_small_seq64_race.py) the peak is three 50257 x 768 fp32
matrices of the tied embedding's gradient and every configuration holds
the same; at 256 the activations stand above that floor."""
from remat_torch.hf import build, token_batch

CONFIG = dict(n_layer=12, n_embd=768, n_head=12, vocab_size=50257, n_positions=1024)
BATCH, SEQ = 1, 256


def model():
    return build("gpt2", CONFIG)


def inputs():
    return token_batch(CONFIG["vocab_size"], BATCH, SEQ)
