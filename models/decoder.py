"""A tiny decoder-only transformer: token embedding + learned positions, causal multi-head attention layers
on a residual stream, and output logits. Pure numpy; trained with the library's own backward pass and Adam
(`learning.adam_step`).

The model, for a sequence of tokens t_0 … t_{n−1}:

    x_i = E[t_i] + P[i]                                   (P only when the model has positions)
    x ← x + multi_head_attention(x, W_Q, W_K, W_V, W_O, n_heads, causal mask)    once per layer
    logits_i = x_i · W_U                                  the guess for token i + 1

No layer norm and no MLP: attention alone can solve the task, and every number stays one the site explains.

Decoding one token at a time with the KV cache (`decode_step`): the new token's row x gives one query row per
head, and its key and value rows are appended to the cache; the query is scored against the cached keys only,
so step n costs n dot products per head and layer instead of the n² a full recomputation (`forward`) spends.
Both give the same logits (tests/test_decoder.py: within 1e-12).

The task (`reversal_batch`): L source digits, a separator, then the same digits reversed. At position L + t
(the separator for t = 0, else the output digit t − 1) the model must name output digit t, the source digit
at position L − 1 − t: the head that does the job attends there.
"""
from dataclasses import dataclass, replace

import numpy as np

from attention import attend, causal_mask, merge_heads, multi_head_attention, multi_head_attention_backward, split_heads

from .learning import adam_step

DIGITS = 10
SEPARATOR = 10  # the token between the source digits and their reversal
SYMBOLS = "0123456789|"
LAYER_PARTS = ("W_Q", "W_K", "W_V", "W_O")


@dataclass(frozen=True)
class Config:
    """The model's shape: L source digits (so 2L positions), d_model, heads, layers, learned positions or none."""

    length: int = 6
    d_model: int = 16
    n_heads: int = 2
    n_layers: int = 2
    positions: bool = True

    @property
    def vocab(self):
        return DIGITS + 1

    @property
    def n_positions(self):
        """Source, separator and output digits but the last, which is never read: 2L."""
        return 2 * self.length

    @property
    def d_k(self):
        return self.d_model // self.n_heads


@dataclass(frozen=True)
class Training:
    """The training run: its seed, steps, batch and Adam's settings (its own, so that the run's declaration records
    every one: watch_it_write.py's Trained spec is this dataclass's fields)."""

    seed: int = 0
    steps: int = 1000
    batch: int = 64
    learning_rate: float = 0.01
    beta1: float = 0.9
    beta2: float = 0.999
    epsilon: float = 1e-8


def initial_parameters(config, rng):
    """{"E" (vocab, d_model), "P" (n_positions, d_model) if positions, "<layer>.W_Q" … (d_model, d_model),
    "W_U" (d_model, vocab)}: embeddings of variance 1 / 2 each (two add up to 1), matrices of variance 1 / d_model."""
    d = config.d_model
    params = {"E": rng.normal(scale=np.sqrt(0.5), size=(config.vocab, d))}
    if config.positions:
        params["P"] = rng.normal(scale=np.sqrt(0.5), size=(config.n_positions, d))
    for layer in range(config.n_layers):
        for part in LAYER_PARTS:
            params[f"{layer}.{part}"] = rng.normal(scale=np.sqrt(1 / d), size=(d, d))
    params["W_U"] = rng.normal(scale=np.sqrt(1 / d), size=(d, config.vocab))
    return params


def embed(params, config, tokens, start=0):
    """tokens (..., n) -> x (..., n, d_model) = E[token] + P[start + i]."""
    tokens = np.asarray(tokens)
    n = tokens.shape[-1]
    if tokens.size and (tokens.min() < 0 or tokens.max() >= config.vocab):
        raise ValueError(f"tokens must be integers in 0 … {config.vocab - 1}, got {tokens.min()} … {tokens.max()}")
    if start + n > config.n_positions:
        raise ValueError(f"the model has {config.n_positions} positions; positions {start} … {start + n - 1} asked for")
    x = params["E"][tokens]
    if config.positions:
        x = x + params["P"][start:start + n]
    return x


def layer_weights(params, layer):
    return [params[f"{layer}.{part}"] for part in LAYER_PARTS]


def forward(params, config, tokens):
    """Every position at once (the full recomputation): tokens (..., n) ->
    {"logits" (..., n, vocab), "weights": [(..., n_heads, n, n) per layer], "states": [x before each layer, x after the last]}."""
    x = embed(params, config, tokens)
    mask = causal_mask(x.shape[-2])
    states, weights = [x], []
    for layer in range(config.n_layers):
        out, layer_attention = multi_head_attention(x, *layer_weights(params, layer), config.n_heads, mask)
        x = x + out  # the residual stream
        states.append(x)
        weights.append(layer_attention)
    return {"logits": x @ params["W_U"], "weights": weights, "states": states}  # (..., n, d_model) x (d_model, vocab)


def empty_cache(config):
    """The KV cache before the first token: per layer, keys and values (n_heads, 0, d_k)."""
    empty = np.zeros((config.n_heads, 0, config.d_k))
    return [{"K": empty, "V": empty} for _ in range(config.n_layers)]


def cache_length(cache):
    return cache[0]["K"].shape[-2]


def decode_step(params, config, cache, token, trace=False):
    """One token in, with the KV cache: -> (logits (vocab,), new cache, [weights (n_heads, n) per layer]).

    The token sits at position n − 1, n = cache length + 1. In each layer its row x gives one query, key and
    value row per head; the key and value rows join the cache and the query is scored against all n cached
    keys: n dot products per head, where `forward` computes n² of them.

    With trace=True a fourth item is returned: per layer, what that layer computed for the new token,
    {"x" (1, d_model) the row entering it, "q" (n_heads, 1, d_k), "K", "V" (n_heads, n, d_k) the cache with the
    new row last, "out" (n_heads, 1, d_k) each head's output, "weights" (n_heads, 1, n)}.
    """
    position = cache_length(cache)
    x = embed(params, config, np.array([token]), start=position)  # (1, d_model)
    new_cache, weights, layers = [], [], []
    for layer in range(config.n_layers):
        W_Q, W_K, W_V, W_O = layer_weights(params, layer)
        q, k, v = (split_heads(x @ W, config.n_heads) for W in (W_Q, W_K, W_V))  # (n_heads, 1, d_k) each
        K = np.concatenate([cache[layer]["K"], k], axis=-2)  # (n_heads, n, d_k)
        V = np.concatenate([cache[layer]["V"], v], axis=-2)
        out, row = attend(q, K, V)  # (n_heads, 1, d_k), (n_heads, 1, n): the newest row sees every cached key
        layers.append({"x": x, "q": q, "K": K, "V": V, "out": out, "weights": row})
        x = x + merge_heads(out) @ W_O  # (1, d_model)
        new_cache.append({"K": K, "V": V})
        weights.append(row[:, 0, :])
    logits = (x @ params["W_U"])[0]
    return (logits, new_cache, weights, layers) if trace else (logits, new_cache, weights)


def generate(params, config, source, use_cache=True):
    """Greedy decoding of `source` (L digits): the prompt (source and separator), then L digits, one at a time.

    -> {"tokens" (2L + 1,), "logits" (2L, vocab): the logits read at each position, "weights": per layer
    (2L, n_heads, 2L), row i the weights of position i (zeros right of i)}. With use_cache=False every step
    recomputes the whole prefix with `forward` and keeps its last row, the same numbers at n² the cost.
    """
    source = check_source(config, source)
    tokens = list(source) + [SEPARATOR]
    n = config.n_positions
    logits = np.zeros((n, config.vocab))
    weights = np.zeros((config.n_layers, n, config.n_heads, n))
    cache = empty_cache(config)
    for position in range(n):
        if use_cache:
            step_logits, cache, rows = decode_step(params, config, cache, tokens[position])
        else:
            full = forward(params, config, np.array(tokens[:position + 1]))
            step_logits = full["logits"][-1]
            rows = [layer[:, -1, :] for layer in full["weights"]]
        logits[position] = step_logits
        for layer, row in enumerate(rows):
            weights[layer, position, :, :position + 1] = row
        if position >= config.length:  # from the separator on, each position writes the next digit
            tokens.append(int(np.argmax(step_logits)))
    return {"tokens": np.array(tokens), "logits": logits, "weights": weights}


def check_source(config, source):
    source = np.asarray(source)
    if source.shape != (config.length,) or not np.issubdtype(source.dtype, np.integer) \
            or source.min() < 0 or source.max() >= DIGITS:
        raise ValueError(f"source must be {config.length} digits 0 … 9, got {source.tolist()!r}")
    return source


def greedy_outputs(params, config, sources):
    """Greedy decoding of a batch of sources (batch, L) by full recomputation -> the written digits (batch, L)."""
    tokens = np.concatenate([sources, np.full((len(sources), 1), SEPARATOR)], axis=1)
    for _ in range(config.length):
        logits = forward(params, config, tokens)["logits"][:, -1]
        tokens = np.concatenate([tokens, logits.argmax(axis=-1)[:, None]], axis=1)
    return tokens[:, config.length + 1:]


def reversal_sequences(sources):
    """(batch, L) digits -> (batch, 2L + 1): source, separator, source reversed."""
    separator = np.full((len(sources), 1), SEPARATOR)
    return np.concatenate([sources, separator, sources[:, ::-1]], axis=1)


def loss_and_gradients(params, config, sequences):
    """Mean cross-entropy of the L output digits, read at positions L … 2L − 1, and every parameter's gradient.

    The gradient at the logits is (softmax − one-hot(answer)) / (number of guesses) at the output positions and 0
    elsewhere; it goes back through W_U, then through each layer, last first: the residual passes it on unchanged
    and `multi_head_attention_backward` adds the attention's share.
    """
    inputs, answers = sequences[:, :-1], sequences[:, config.length + 1:]  # (batch, 2L), (batch, L)
    run = forward(params, config, inputs)
    logits = run["logits"][:, config.length:]  # (batch, L, vocab)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    loss = -np.take_along_axis(log_p, answers[..., None], axis=-1).mean()
    d_logits = np.zeros_like(run["logits"])
    d_logits[:, config.length:] = (np.exp(log_p) - np.eye(config.vocab)[answers]) / answers.size
    grads = {"W_U": np.einsum("bnd,bnv->dv", run["states"][-1], d_logits)}
    dx = d_logits @ params["W_U"].T  # (batch, 2L, d_model)
    mask = causal_mask(inputs.shape[-1])
    for layer in reversed(range(config.n_layers)):
        layer_grads = multi_head_attention_backward(run["states"][layer], *layer_weights(params, layer),
                                                    config.n_heads, dx, mask)
        dx = dx + layer_grads["X"]
        for part in LAYER_PARTS:
            grads[f"{layer}.{part}"] = layer_grads[part]
    grads["E"] = np.zeros_like(params["E"])
    np.add.at(grads["E"], inputs, dx)
    if config.positions:
        grads["P"] = dx.sum(axis=0)
    return loss, grads


def as_numbers(sources):
    """(batch, L) digits -> the integers they spell, to tell strings apart."""
    return sources @ (10 ** np.arange(sources.shape[-1])[::-1])


def held_out_sources(config, count=1000, seed=1):
    """`count` distinct source strings that training never draws (its batches skip them)."""
    rng = np.random.default_rng(seed)
    numbers = rng.choice(10**config.length, size=count, replace=False)
    return (numbers[:, None] // 10 ** np.arange(config.length)[::-1]) % 10


def train(config, training=Training(), held_out=None):
    """Train on fresh random batches from the run's seed, never drawing a held-out string.

    -> (params, history {"loss" (steps,)}).
    """
    rng = np.random.default_rng(training.seed)
    params = initial_parameters(config, rng)
    moments = {name: (np.zeros_like(p), np.zeros_like(p)) for name, p in params.items()}
    excluded = as_numbers(held_out) if held_out is not None else np.array([], dtype=int)
    losses = np.empty(training.steps)
    for step in range(training.steps):
        sources = rng.integers(0, DIGITS, size=(training.batch, config.length))
        sources = sources[~np.isin(as_numbers(sources), excluded)]
        loss, grads = loss_and_gradients(params, config, reversal_sequences(sources))
        losses[step] = loss
        adam_step(params, grads, moments, step, learning_rate=training.learning_rate, beta1=training.beta1,
                  beta2=training.beta2, epsilon=training.epsilon)
    return params, {"loss": losses}


def exact_match(params, config, sources):
    """The share of sources whose L written digits are exactly the source reversed."""
    return float((greedy_outputs(params, config, sources) == sources[:, ::-1]).all(axis=1).mean())


def source_share(params, config, sources):
    """For every layer and head, the share of output steps whose largest weight falls on the source digit being
    written (query L + t, key L − 1 − t) -> (n_layers, n_heads)."""
    weights = np.stack(forward(params, config, reversal_sequences(sources)[:, :-1])["weights"])  # (layers, batch, heads, 2L, 2L)
    L = config.length
    queries = np.arange(L, 2 * L)
    largest = weights[..., queries, :].argmax(axis=-1)  # (layers, batch, heads, L)
    return (largest == (L - 1 - np.arange(L))).mean(axis=(1, 3))


def without_positions(config):
    return replace(config, positions=False)
