"""A BERT-style encoder's forward pass in numpy, built around the site's own `multi_head_attention`.

Row vectors throughout, as in `attention/`: a linear layer is y = x·W + b with W (d_in, d_out), so a
PyTorch `Linear.weight` (d_out, d_in) enters as its transpose. Each of the n_layers layers is

    A = LayerNorm(X + MultiHead(X))              attention sub-layer, with a residual
    X' = LayerNorm(A + GELU(A·W_1 + b_1)·W_2 + b_2)    feed-forward sub-layer, with a residual

(post-norm, as in the original BERT). The arithmetic runs in the parameters' dtype: float32 for the
shipped model, as in PyTorch, or float64 after `params.astype(np.float64)`.
"""
import math
from dataclasses import dataclass, fields, replace

import numpy as np

from attention import attend, merge_heads, multi_head_attention, split_heads

# Abramowitz & Stegun 7.1.26: erf(x) = 1 - (a1 t + ... + a5 t^5) e^(-x^2), t = 1 / (1 + p x), x >= 0.
_AS_P = 0.3275911
_AS_A = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)  # a5 ... a1, for Horner
_erf_exact = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    """The error function, elementwise. x (...) -> (...), same dtype.

    numpy has no erf. Float64 arrays get math.erf itself, value by value (exact, slow). Other arrays get
    Abramowitz & Stegun's formula 7.1.26, a handful of array operations with |error| <= 1.5e-7, worked
    in float64 and rounded back: within 2.1e-7 of the truth, a few float32 steps, the precision the
    model runs in.
    """
    x = np.asarray(x)
    if x.dtype == np.float64:
        return _erf_exact(x).astype(np.float64)
    return erf_formula(x.astype(np.float64)).astype(x.dtype)


def erf_formula(x):
    """Abramowitz & Stegun 7.1.26 in the dtype of x: |error| <= 1.5e-7 in exact arithmetic. x (...) -> (...)."""
    a = np.abs(x)
    t = 1 / (1 + _AS_P * a)
    poly = _AS_A[0]
    for coefficient in _AS_A[1:]:
        poly = poly * t + coefficient
    poly = poly * t  # a1 t + a2 t^2 + ... + a5 t^5
    return np.copysign(1 - poly * np.exp(-a * a), x)


def gelu(x):
    """BERT's GELU, the exact form: x · Φ(x) = x · (1 + erf(x / √2)) / 2. x (...) -> (...)."""
    return 0.5 * x * (1 + erf(x * x.dtype.type(1 / np.sqrt(2))))


def layer_norm(X, gamma, beta, eps):
    """Normalise each row to mean 0 and variance 1 (biased variance, eps inside the root), then scale
    and shift. X (..., d), gamma and beta (d,) -> (..., d)."""
    centred = X - X.mean(axis=-1, keepdims=True)
    variance = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(variance + eps) * gamma + beta


@dataclass(frozen=True)
class EncoderConfig:
    """The shape of the encoder, read from the model's config.json."""

    n_layers: int
    n_heads: int
    d_model: int
    d_ff: int
    layer_norm_eps: float
    vocab_size: int
    max_positions: int
    type_vocab_size: int

    @classmethod
    def from_dict(cls, config):
        """From a Hugging Face BERT config dict; refuses a variant this forward pass does not compute."""
        expected = {"model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute"}
        for key, value in expected.items():
            if config.get(key, value) != value:
                raise ValueError(f"config.json: {key} = {config[key]!r}, but this encoder computes {key} = {value!r}")
        return cls(
            n_layers=config["num_hidden_layers"],
            n_heads=config["num_attention_heads"],
            d_model=config["hidden_size"],
            d_ff=config["intermediate_size"],
            layer_norm_eps=config["layer_norm_eps"],
            vocab_size=config["vocab_size"],
            max_positions=config["max_position_embeddings"],
            type_vocab_size=config["type_vocab_size"],
        )

    @property
    def d_k(self):
        return self.d_model // self.n_heads


@dataclass(frozen=True)
class LayerParams:
    """One encoder layer, in row-vector form (W is (d_in, d_out))."""

    W_Q: np.ndarray  # (d_model, d_model)
    b_Q: np.ndarray  # (d_model,)
    W_K: np.ndarray
    b_K: np.ndarray
    W_V: np.ndarray
    b_V: np.ndarray
    W_O: np.ndarray
    b_O: np.ndarray
    norm1_gamma: np.ndarray  # (d_model,), after the attention sub-layer
    norm1_beta: np.ndarray
    W_1: np.ndarray  # (d_model, d_ff)
    b_1: np.ndarray  # (d_ff,)
    W_2: np.ndarray  # (d_ff, d_model)
    b_2: np.ndarray  # (d_model,)
    norm2_gamma: np.ndarray  # (d_model,), after the feed-forward sub-layer
    norm2_beta: np.ndarray


@dataclass(frozen=True)
class EncoderParams:
    """All the weights the forward pass reads."""

    word_embeddings: np.ndarray  # (vocab_size, d_model)
    position_embeddings: np.ndarray  # (max_positions, d_model)
    token_type_embeddings: np.ndarray  # (type_vocab_size, d_model)
    embed_gamma: np.ndarray  # (d_model,)
    embed_beta: np.ndarray
    layers: tuple  # n_layers × LayerParams

    def astype(self, dtype):
        """The same parameters in another float dtype (float64 for a reference run)."""
        def cast(obj):
            return replace(obj, **{f.name: getattr(obj, f.name).astype(dtype) for f in fields(obj) if f.name != "layers"})
        return replace(cast(self), layers=tuple(cast(layer) for layer in self.layers))

    @classmethod
    def from_state_dict(cls, state, config):
        """From Hugging Face BertModel tensor names (with or without a "bert." prefix).

        state: name -> numpy array. Linear weights are stored (d_out, d_in) and transposed here,
        once, into contiguous row-vector matrices.
        """
        if not any(name.startswith("embeddings.") for name in state):
            state = {name.removeprefix("bert."): value for name, value in state.items()}

        def get(name, shape, transpose=False):
            if name not in state:
                raise KeyError(f"the model's weights have no tensor {name!r}")
            value = np.asarray(state[name])
            if value.shape != shape:
                raise ValueError(f"weight {name!r} has shape {value.shape}, expected {shape} from config.json")
            return np.ascontiguousarray(value.T) if transpose else value

        d, d_ff = config.d_model, config.d_ff

        def layer(i):
            p = f"encoder.layer.{i}."
            return LayerParams(
                W_Q=get(p + "attention.self.query.weight", (d, d), True),
                b_Q=get(p + "attention.self.query.bias", (d,)),
                W_K=get(p + "attention.self.key.weight", (d, d), True),
                b_K=get(p + "attention.self.key.bias", (d,)),
                W_V=get(p + "attention.self.value.weight", (d, d), True),
                b_V=get(p + "attention.self.value.bias", (d,)),
                W_O=get(p + "attention.output.dense.weight", (d, d), True),
                b_O=get(p + "attention.output.dense.bias", (d,)),
                norm1_gamma=get(p + "attention.output.LayerNorm.weight", (d,)),
                norm1_beta=get(p + "attention.output.LayerNorm.bias", (d,)),
                W_1=get(p + "intermediate.dense.weight", (d_ff, d), True),
                b_1=get(p + "intermediate.dense.bias", (d_ff,)),
                W_2=get(p + "output.dense.weight", (d, d_ff), True),
                b_2=get(p + "output.dense.bias", (d,)),
                norm2_gamma=get(p + "output.LayerNorm.weight", (d,)),
                norm2_beta=get(p + "output.LayerNorm.bias", (d,)),
            )

        return cls(
            word_embeddings=get("embeddings.word_embeddings.weight", (config.vocab_size, d)),
            position_embeddings=get("embeddings.position_embeddings.weight", (config.max_positions, d)),
            token_type_embeddings=get("embeddings.token_type_embeddings.weight", (config.type_vocab_size, d)),
            embed_gamma=get("embeddings.LayerNorm.weight", (d,)),
            embed_beta=get("embeddings.LayerNorm.bias", (d,)),
            layers=tuple(layer(i) for i in range(config.n_layers)),
        )


@dataclass(frozen=True)
class EncoderOutput:
    """What `encode` returns.

    weights: every layer's and head's attention weights, (..., n_layers, n_heads, n, n)
    hidden_states: the input to each layer and the final output, (n_layers + 1, ..., n, d_model);
        hidden_states[l] is what layer l's W_Q, W_K and W_V multiply
    last_hidden_state: hidden_states[-1], (..., n, d_model)
    """

    weights: np.ndarray
    hidden_states: tuple

    @property
    def last_hidden_state(self):
        return self.hidden_states[-1]


def embed(params, config, input_ids, token_type_ids):
    """Word + position + token-type embeddings, then LayerNorm. ids (..., n) -> (..., n, d_model)."""
    n = input_ids.shape[-1]
    X = params.word_embeddings[input_ids] + params.token_type_embeddings[token_type_ids]  # (..., n, d_model)
    X = X + params.position_embeddings[:n]  # positions 0 … n-1, broadcast over the batch
    return layer_norm(X, params.embed_gamma, params.embed_beta, config.layer_norm_eps)


def encoder_layer(X, layer, config, mask=None):
    """One layer: X (..., n, d_model) -> (X' (..., n, d_model), weights (..., n_heads, n, n))."""
    eps = config.layer_norm_eps
    attended, weights = multi_head_attention(
        X, layer.W_Q, layer.W_K, layer.W_V, layer.W_O, config.n_heads, mask=mask,
        b_Q=layer.b_Q, b_K=layer.b_K, b_V=layer.b_V, b_O=layer.b_O,
    )  # (..., n, d_model), (..., n_heads, n, n)
    Z = layer_norm(X + attended, layer.norm1_gamma, layer.norm1_beta, eps)  # the block page's z, one row a token
    hidden = gelu(Z @ layer.W_1 + layer.b_1)  # (..., n, d_model) x (d_model, d_ff) -> (..., n, d_ff)
    out = hidden @ layer.W_2 + layer.b_2  # (..., n, d_ff) x (d_ff, d_model) -> (..., n, d_model)
    return layer_norm(Z + out, layer.norm2_gamma, layer.norm2_beta, eps), weights


@dataclass(frozen=True)
class LayerSteps:
    """Every vector one encoder layer computes, in the order it computes them (`encoder_layer_steps`).

    weights: (..., n_heads, n, n), each head's attention weights
    concat: (..., n, d_model), the heads' outputs side by side (head h in columns h·d_k … (h+1)·d_k - 1)
    attended: (..., n, d_model), concat·W_O + b_O: what attention adds to each token
    residual1: (..., n, d_model), X + attended
    norm1: (..., n, d_model), LayerNorm(residual1): the input of the feed-forward layer
    pre_activation: (..., n, d_ff), norm1·W_1 + b_1
    hidden: (..., n, d_ff), GELU(pre_activation)
    ffn_out: (..., n, d_model), hidden·W_2 + b_2
    residual2: (..., n, d_model), norm1 + ffn_out
    out: (..., n, d_model), LayerNorm(residual2): the next layer's input
    """

    weights: np.ndarray
    concat: np.ndarray
    attended: np.ndarray
    residual1: np.ndarray
    norm1: np.ndarray
    pre_activation: np.ndarray
    hidden: np.ndarray
    ffn_out: np.ndarray
    residual2: np.ndarray
    out: np.ndarray


def encoder_layer_steps(X, layer, config, mask=None):
    """`encoder_layer` with its intermediate vectors kept: X (..., n, d_model) -> LayerSteps.

    The same arithmetic, written out step by step (multi_head_attention's split, attend and merge, then
    W_O), so that a page can follow one token through it; `out` and `weights` are encoder_layer's.
    """
    eps = config.layer_norm_eps
    if mask is not None:
        mask = np.asarray(mask)[..., None, :, :]  # (..., 1, n, n) or (..., 1, 1, n): every head
    Q = split_heads(X @ layer.W_Q + layer.b_Q, config.n_heads)  # (..., n, d_model) -> (..., n_heads, n, d_k)
    K = split_heads(X @ layer.W_K + layer.b_K, config.n_heads)
    V = split_heads(X @ layer.W_V + layer.b_V, config.n_heads)
    heads, weights = attend(Q, K, V, mask)  # (..., n_heads, n, d_k), (..., n_heads, n, n)
    concat = merge_heads(heads)  # (..., n, d_model)
    attended = concat @ layer.W_O + layer.b_O  # (..., n, d_model) x (d_model, d_model) -> (..., n, d_model)
    residual1 = X + attended
    norm1 = layer_norm(residual1, layer.norm1_gamma, layer.norm1_beta, eps)
    pre_activation = norm1 @ layer.W_1 + layer.b_1  # (..., n, d_model) x (d_model, d_ff) -> (..., n, d_ff)
    hidden = gelu(pre_activation)
    ffn_out = hidden @ layer.W_2 + layer.b_2  # (..., n, d_ff) x (d_ff, d_model) -> (..., n, d_model)
    residual2 = norm1 + ffn_out
    out = layer_norm(residual2, layer.norm2_gamma, layer.norm2_beta, eps)
    return LayerSteps(weights=weights, concat=concat, attended=attended, residual1=residual1, norm1=norm1,
                      pre_activation=pre_activation, hidden=hidden, ffn_out=ffn_out, residual2=residual2, out=out)


def encode(params, config, input_ids, token_type_ids=None, attention_mask=None):
    """The whole encoder on token ids.

    input_ids int (..., n); token_type_ids int (..., n), default all 0 (one segment);
    attention_mask (..., n), 1/True for a real token and 0/False for padding (as the tokenizer
    returns it), default all real. Padding keys get weight exactly 0 in every head; padding queries
    still attend (to the real tokens), as in Hugging Face's BertModel.
    -> EncoderOutput (weights (..., n_layers, n_heads, n, n), hidden states).
    """
    input_ids = _token_array("input_ids", input_ids)
    n = input_ids.shape[-1]
    if n == 0 or n > config.max_positions:
        raise ValueError(f"input_ids has {n} tokens; this model takes 1 to {config.max_positions}")
    if input_ids.min() < 0 or input_ids.max() >= config.vocab_size:
        raise ValueError(f"input_ids must lie in [0, {config.vocab_size}), got {input_ids.min()} … {input_ids.max()}")
    if token_type_ids is None:
        token_type_ids = np.zeros_like(input_ids)
    token_type_ids = _token_array("token_type_ids", token_type_ids, input_ids.shape)
    if token_type_ids.min() < 0 or token_type_ids.max() >= config.type_vocab_size:
        raise ValueError(f"token_type_ids must lie in [0, {config.type_vocab_size})")
    mask = None
    if attention_mask is not None:
        attention_mask = np.asarray(attention_mask)
        if attention_mask.shape != input_ids.shape:
            raise ValueError(f"attention_mask has shape {attention_mask.shape}, input_ids {input_ids.shape}")
        if not np.isin(attention_mask, (0, 1)).all():
            raise ValueError("attention_mask must hold 1 (a real token) or 0 (padding)")
        mask = attention_mask.astype(bool)[..., None, :]  # (..., 1, n): the same keys for every query
    X = embed(params, config, input_ids, token_type_ids)
    hidden_states, weights = [X], []
    for layer in params.layers:
        X, layer_weights = encoder_layer(X, layer, config, mask)
        hidden_states.append(X)
        weights.append(layer_weights)
    return EncoderOutput(weights=np.stack(weights, axis=-4), hidden_states=tuple(hidden_states))


def _token_array(name, ids, shape=None):
    ids = np.asarray(ids)
    if not np.issubdtype(ids.dtype, np.integer):
        raise TypeError(f"{name} must hold integer token ids, got dtype {ids.dtype}")
    if ids.ndim < 1:
        raise ValueError(f"{name} must have shape (..., n), got a scalar")
    if shape is not None and ids.shape != shape:
        raise ValueError(f"{name} has shape {ids.shape}, input_ids {shape}")
    return ids
