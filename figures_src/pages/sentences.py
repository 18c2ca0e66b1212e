"""The small sentences the worked examples follow, and the one function that runs attention on them.

Inputs are chosen so a reader can redo every step by hand and the printed digits are the same on every
platform: token vectors X hold small integers (-2 … 2) and the projection matrices hold one-decimal
numbers (-0.5 … 0.5). Then Q, K and V hold one-decimal numbers, the raw scores two-decimal numbers,
and with d_k = 4 the scale 1/√dₖ is exactly 1/2.
"""
from dataclasses import dataclass

import numpy as np

import attention

from ..engine.examples import key_size
from ..engine.notebooks import NOTEBOOK_WORDS


@dataclass(frozen=True)
class Sentence:
    tokens: tuple
    seed: int
    d_model: int = 6
    d_k: int = 4

    @property
    def n(self):
        return len(self.tokens)


# The running example: qkv, scores, softmax, output, the causal and padding masks, and multi-head.
RUNNING = Sentence(("the", "cat", "sat", "on", "mats"), seed=0)
# The demo's sentence: one more token, sharper rows.
DEMO = Sentence(("my", "dog", "chased", "the", "red", "ball"), seed=28)
# The short second sentence of the padded batch, projected by the running example's matrices.
SHORT = Sentence(("birds", "sing", "loudly"), seed=7)
PAD = "pad"


def token_vectors(sentence):
    """X (n, d_model) of small integers, drawn from the sentence's seed."""
    rng = np.random.default_rng(sentence.seed)
    return rng.integers(-2, 3, size=(sentence.n, sentence.d_model)).astype(float)


def projections(sentence):
    """W_Q, W_K, W_V (d_model, d_k) of one-decimal numbers, drawn after X from the same seed."""
    rng = np.random.default_rng(sentence.seed)
    rng.integers(-2, 3, size=(sentence.n, sentence.d_model))  # X comes first in the stream
    return tuple(rng.integers(-5, 6, size=(sentence.d_model, sentence.d_k)) / 10 for _ in range(3))


def attention_steps(X, W_Q, W_K, W_V, mask=None):
    """Every intermediate of single-head self-attention, under the library's names.

    X (..., n, d_model), W_* (d_model, d_k) -> dict of Q, K, V (..., n, d_k), scores, scaled_scores,
    weights (..., n, n), entropy (..., n), out (..., n, d_k).
    """
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # (..., n, d_model) x (d_model, d_k) -> (..., n, d_k)
    out, weights = attention.attend(Q, K, V, mask=mask)
    return {
        "Q": Q,
        "K": K,
        "V": V,
        "scores": attention.scores(Q, K),
        "scaled_scores": attention.scaled_scores(Q, K),
        "weights": weights,
        "entropy": attention.row_entropy(weights),
        "out": out,
    }


def self_attention_example(sentence, mask=None, **extra):
    """A worked example's numbers (the contract in figures_src/engine/examples.py) for one sentence and an optional mask."""
    X = token_vectors(sentence)
    W_Q, W_K, W_V = projections(sentence)
    inputs = {"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V}
    if mask is not None:
        inputs["mask"] = np.broadcast_to(mask, (sentence.n, sentence.n)).copy()
    steps = attention_steps(X, W_Q, W_K, W_V, mask=mask)
    out = steps.pop("out")
    return {
        "seed": sentence.seed,
        "tokens": list(sentence.tokens),
        **key_size(sentence.d_k),
        **extra,
        "inputs": inputs,
        "steps": steps,
        "outputs": {"out": out, "weights": steps["weights"]},
    }


def padded_batch():
    """SHORT padded to the running sentence's length, then the running sentence: tokens, X (2, n, d_model),
    lengths. The padded sequence comes first, so it is the one a reader sees first."""
    n = RUNNING.n
    X = np.zeros((2, n, RUNNING.d_model))
    X[0, : SHORT.n] = token_vectors(SHORT)  # padding positions keep the zero vector
    X[1] = token_vectors(RUNNING)
    tokens = [list(SHORT.tokens) + [PAD] * (n - SHORT.n), list(RUNNING.tokens)]
    return tokens, X, np.array([SHORT.n, RUNNING.n])


# What each sentence is for, as a notebook's first cells say (words/notebooks.md).
ROLES = {"RUNNING": "sentence/running", "DEMO": "sentence/demo", "SHORT": "sentence/short", "PAD": "sentence/pad"}


def notebook_cells(*names):
    """A notebook's first cells: the sentences `names` ("RUNNING", ...) and the functions that make their numbers,
    as they are in this module (figures_src/engine/notebooks.py). The words say what each sentence is for
    (words/notebooks.md, sentence/<NAME>) and which cell to edit to try another."""
    from ..engine.notebooks import code, markdown, source  # noqa: PLC0415

    sentences = [name for name in names if isinstance(globals()[name], Sentence)]
    roles = [NOTEBOOK_WORDS.line(ROLES[name], name=name,
                                 tokens=" ".join(globals()[name].tokens) if name in sentences else globals()[name])
             for name in names]
    defined = "\n".join(f"{name} = {globals()[name]!r}" for name in names)
    listed = "\n".join(f"- {role}" for role in roles)
    return [
        markdown(NOTEBOOK_WORDS.fill("sentence", roles=listed, first=sentences[0]) if len(sentences) == 1 else
                 NOTEBOOK_WORDS.fill("sentences", roles=listed)),
        code("from dataclasses import dataclass\n\nfrom figures_src.engine.examples import key_size"),
        source(Sentence),
        code(defined),
        markdown(NOTEBOOK_WORDS.fill("sentence-functions")),
        source(token_vectors, projections, attention_steps, self_attention_example),
    ]
