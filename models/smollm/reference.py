"""SmolLM2-135M in numpy: the forward pass and the cached decode step, on attention/'s own functions.

The weights are the GGUF file's, dequantized exactly (`dequantize`: x = d·q + m per block of 32, in float64 by
default). Row vectors throughout, as attention/ writes q = x·W_Q; a GGUF matrix is stored (out, in), so the
model uses its transpose. The model, for tokens t_0 … t_{n−1} at positions p = 0 … n − 1:

    x_p = E[t_p]                                         E (vocab, d_model), the token embedding
    per layer (30):
        h = RMSNorm(x) ⊙ g_attn                          RMSNorm(x) = x / √(mean(x²) + ε), per row
        Q = rope(h·W_Q), K = rope(h·W_K), V = h·W_V       9 query heads, 3 key/value heads, d_k = 64
        O_g = attend(Q_g, K_{g // 3}, V_{g // 3}, causal mask)     query head g reads key/value head g // 3
        x ← x + [O_0 … O_8]·W_O
        h = RMSNorm(x) ⊙ g_ffn
        x ← x + (silu(h·W_gate) ⊙ h·W_up)·W_down            SwiGLU, d_ff = 1536; silu(z) = z·σ(z)
    logits_p = (RMSNorm(x_p) ⊙ g_out)·Eᵀ                  the output head is the embedding (tied)

`attend` is attention.attend, softmax(Q·Kᵀ / √d_k)·V, and `rope` is attention.rope: pairs (2i, 2i + 1) turned by
p·ω_i with ω_i = 100000^(−2i/64). The file's W_Q and W_K rows were permuted by llama.cpp's converter so that this
interleaved RoPE on them gives Hugging Face's rotate-half RoPE on its own weights: the scores and the attention
weights are the same, head by head.

Decoding with the KV cache (`decode_step`): the new token at position n − 1 gives one query row per query head
and one key and value row per key/value head; the keys (already rotated) and values join the cache, and the
query is scored against all n of them. The cache holds 3 key/value heads per layer, not 9: grouped-query
attention's saving. `greedy` prefills the prompt in one pass and then decodes one token at a time.
"""
from dataclasses import dataclass

import numpy as np

from attention import attend, causal_mask, merge_heads, rope, share_kv_heads, split_heads

from .model import load_config, metadata, reader

BLOCK = 32  # values per quantized block, along a matrix's input dimension
LAYER_TENSORS = {"attn_norm": "attn_norm", "W_Q": "attn_q", "W_K": "attn_k", "W_V": "attn_v", "W_O": "attn_output",
                 "ffn_norm": "ffn_norm", "W_gate": "ffn_gate", "W_up": "ffn_up", "W_down": "ffn_down"}


def dequantize(tensor, dtype=np.float64):
    """One GGUF tensor's values, exactly: (rows, columns) as the file stores them (a vector stays a vector).

    Q8_0 block (34 bytes): float16 d, then 32 int8 q; x = d·q. Q4_1 block (20 bytes): float16 d, float16 m,
    then 16 bytes qs; value j (0 … 15) is the low nibble of qs[j], value j + 16 its high nibble; x = d·q + m.
    In float64 every product and sum is exact; float32 rounds d·q + m once, as gguf.quants.dequantize does.
    """
    kind = tensor.tensor_type.name
    raw = np.asarray(tensor.data)
    if kind == "F32":
        return raw.astype(dtype)
    rows = raw.shape[0]
    if kind == "Q8_0":
        blocks = raw.reshape(rows, -1, 34)  # (rows, blocks, 34 bytes)
        d = blocks[..., 0:2].copy().view(np.float16).astype(dtype)  # (rows, blocks, 1)
        q = blocks[..., 2:].view(np.int8).astype(dtype)  # (rows, blocks, 32)
        return (d * q).reshape(rows, -1)
    if kind == "Q4_1":
        blocks = raw.reshape(rows, -1, 20)
        d = blocks[..., 0:2].copy().view(np.float16).astype(dtype)
        m = blocks[..., 2:4].copy().view(np.float16).astype(dtype)
        qs = blocks[..., 4:]  # (rows, blocks, 16)
        q = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(dtype)  # (rows, blocks, 32), GGUF's order
        return (d * q + m).reshape(rows, -1)
    raise ValueError(f"{tensor.name}: quantization {kind} is not one SmolLM2's file uses (F32, Q8_0, Q4_1)")


@dataclass(frozen=True)
class Layer:
    """One layer's weights, row-vector convention: W_Q (d_model, n_heads·d_k), W_K and W_V (d_model, n_kv_heads·d_k),
    W_O (n_heads·d_k, d_model), W_gate and W_up (d_model, d_ff), W_down (d_ff, d_model); the norms' gains (d_model,)."""

    attn_norm: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray
    ffn_norm: np.ndarray
    W_gate: np.ndarray
    W_up: np.ndarray
    W_down: np.ndarray


@dataclass(frozen=True)
class Weights:
    config: object  # models.smollm.model.Config
    embedding: np.ndarray  # E (vocab, d_model), also the output head
    layers: tuple
    output_norm: np.ndarray
    eos: int  # the token that ends a reply (<|im_end|>)


def load_weights(dtype=np.float64, path=None):
    """The GGUF file's weights, dequantized to `dtype` (float64 by default: ~1.1 GB; float32 halves it)."""
    config = load_config(path)
    tensors = {tensor.name: tensor for tensor in reader(path).tensors}

    def matrix(name):  # (out, in) in the file -> (in, out): x·W; a view, no copy
        return dequantize(tensors[name], dtype).T

    def vector(name):
        return dequantize(tensors[name], dtype)

    layers = tuple(Layer(**{field: (vector if field.endswith("norm") else matrix)(f"blk.{index}.{name}.weight")
                            for field, name in LAYER_TENSORS.items()})
                   for index in range(config.n_layers))
    return Weights(config=config, embedding=dequantize(tensors["token_embd.weight"], dtype), layers=layers,
                   output_norm=vector("output_norm.weight"), eos=int(metadata("tokenizer.ggml.eos_token_id", path)))


def rms_norm(x, gain, epsilon):
    """x (..., d_model) -> x / √(mean(x²) + ε) ⊙ gain, row by row."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + epsilon) * gain


def silu(z):
    """z·σ(z), written with tanh (σ(z) = (1 + tanh(z/2)) / 2) so that no exponential overflows."""
    return z * (0.5 + 0.5 * np.tanh(0.5 * z))


class Cache:
    """The KV cache: per layer, the keys (rotated) and values of every token so far, (n_kv_heads, n, d_k) each."""

    def __init__(self, config, dtype=np.float64):
        empty = np.zeros((config.n_kv_heads, 0, config.d_k), dtype=dtype)
        self.keys = [empty] * config.n_layers
        self.values = [empty] * config.n_layers

    def __len__(self):
        return self.keys[0].shape[-2]

    def extend(self, layer, k, v):
        """Append k, v (n_kv_heads, n_new, d_k) to a layer's cache; -> the layer's whole K, V."""
        self.keys[layer] = np.concatenate([self.keys[layer], k], axis=-2)
        self.values[layer] = np.concatenate([self.values[layer], v], axis=-2)
        return self.keys[layer], self.values[layer]

    @property
    def numbers(self):
        """How many numbers the cache holds: layers · n_kv_heads · 2 · n · d_k."""
        return sum(k.size + v.size for k, v in zip(self.keys, self.values))


def check_ids(weights, ids):
    """Token ids as a 1-D integer array, each in 0 … vocab − 1, at least one; else a ValueError naming the culprit."""
    array = np.asarray(ids)
    if array.ndim != 1:
        raise ValueError(f"ids must be a 1-D sequence of token ids, got shape {array.shape}")
    if array.size == 0:
        raise ValueError("ids is empty: the model needs at least one token to predict the next")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"ids must be integers, got dtype {array.dtype}: {list(ids)[:5]}")
    vocab = weights.config.vocab
    bad = (array < 0) | (array >= vocab)
    if bad.any():
        index = int(np.argmax(bad))
        raise ValueError(f"ids[{index}] = {array[index]} is not a token id: the vocabulary has ids 0 … {vocab - 1}")
    return array


def forward(weights, ids, cache=None):
    """The tokens `ids` (n,) after those already in `cache` (none if no cache is given); the cache is extended.

    -> (logits (n, vocab), attention weights (layers, n_heads, n, n_keys)), n_keys = len(cache) + n: row i is
    the query at position len(cache) + i over every key up to it (zeros above the causal diagonal).
    Without a cache, n_keys = n: the full recomputation.
    """
    config = weights.config
    ids = check_ids(weights, ids)
    cache = Cache(config, weights.embedding.dtype) if cache is None else cache
    start, n = len(cache), len(ids)
    positions = np.arange(start, start + n)
    mask = causal_mask(start + n)[start:]  # (n, n_keys): position start + i sees keys 0 … start + i
    x = weights.embedding[ids]  # (n, d_model)
    every_layer = []
    for index, layer in enumerate(weights.layers):
        h = rms_norm(x, layer.attn_norm, config.norm_epsilon)
        q = rope(split_heads(h @ layer.W_Q, config.n_heads), positions, config.rope_base)  # (n_heads, n, d_k)
        k = rope(split_heads(h @ layer.W_K, config.n_kv_heads), positions, config.rope_base)  # (n_kv_heads, n, d_k)
        v = split_heads(h @ layer.W_V, config.n_kv_heads)
        K, V = cache.extend(index, k, v)  # (n_kv_heads, n_keys, d_k) each
        out, attention = attend(q, share_kv_heads(K, config.n_heads), share_kv_heads(V, config.n_heads), mask)
        x = x + merge_heads(out) @ layer.W_O  # (n_heads, n, d_k) -> (n, d_model)
        h = rms_norm(x, layer.ffn_norm, config.norm_epsilon)
        x = x + (silu(h @ layer.W_gate) * (h @ layer.W_up)) @ layer.W_down  # (n, d_ff) -> (n, d_model)
        every_layer.append(attention)  # (n_heads, n, n_keys)
    logits = rms_norm(x, weights.output_norm, config.norm_epsilon) @ weights.embedding.T  # (n, vocab)
    return logits, np.stack(every_layer)


def decode_step(weights, cache, token_id):
    """One token in, after the cache's: -> (logits (vocab,), rows (layers, n_heads, n_keys)), the new query's
    attention row in every layer and head; the cache grows by one key and value row per layer and KV head."""
    vocab = weights.config.vocab
    if not isinstance(token_id, (int, np.integer)) or isinstance(token_id, bool) or not 0 <= token_id < vocab:
        raise ValueError(f"token_id = {token_id!r} is not a token id: the vocabulary has ids 0 … {vocab - 1}")
    logits, attention = forward(weights, [token_id], cache)
    return logits[0], attention[:, :, 0, :]


def greedy(weights, ids, steps, stop=True):
    """Greedy decoding: the prompt in one pass, then `steps` tokens, each the argmax of the logits, fed back
    through the cache. Stops after the end-of-reply token (weights.eos) when `stop`. -> the new ids (list)."""
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    cache = Cache(weights.config, weights.embedding.dtype)
    logits = forward(weights, ids, cache)[0][-1]
    new = []
    for step in range(steps):
        token = int(np.argmax(logits))
        new.append(token)
        if (stop and token == weights.eos) or step == steps - 1:
            break
        logits = decode_step(weights, cache, token)[0]
    return new
