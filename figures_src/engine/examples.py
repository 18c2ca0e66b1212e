"""Worked examples: the contract every example's JSON keeps, the one writer of that JSON, and its cite line.

The contract: generated/public/examples/<id>.json (figures_src/engine/examples.py keeps it, the tests hold it).

IDs are stable (`ex-scores`, `ex-softmax`, ...) and are also the HTML anchor of the example on its page.
The numbers are frozen by `tests/golden/`: changing a published number is a deliberate act.

```json
{
  "id": "ex-scores",
  "title": "Scores for a five-token sentence",
  "page": "scores/",
  "library_version": "1.0.0",
  "precision": "Each array of numbers is rounded to 10 significant digits of its largest entry, ...",
  "seed": 0,
  "tokens": ["the", "cat", "sat", "on", "mats"],
  "d_k": 4,
  "scale": 0.5,
  "inputs":  {"X": [[...]], "W_Q": [[...]], "W_K": [[...]], "W_V": [[...]], "mask": [[true, ...]]},
  "steps":   {"Q": [[...]], "K": [[...]], "V": [[...]], "scores": [[...]], "scaled_scores": [[...]], "weights": [[...]], "entropy": [...]},
  "outputs": {"out": [[...]], "weights": [[...]]}
}
```

- `tokens` labels the queries and keys (self-attention); `key_tokens` is added when the keys differ
  (cross-attention, `ex-cross-attention`: `inputs.X` gives the queries, `inputs.memory` the keys and values).
- `scale` is the factor the scores were multiplied by (1/√d_k unless the example says otherwise).
- Arrays use the library's names; masks are booleans, True = may attend. Multi-head examples put the
  head axis first (`Q` is `(n_heads, n, d_k)`, `weights` is `(n_heads, n, n)`) and add `"n_heads"`; the
  padded-batch examples put the batch axis first and list their tokens under `batch_tokens`.
- Grouped-query attention (`ex-gqa`, docs/multi-head.md) adds `"n_kv_heads"` and `"kv_head_of"` (for each query head,
  counted from 0, the key/value head it reads): its `K` and `V` have one grid per key/value head,
  `(n_kv_heads, n, d_k)`, while `Q`, the score tables and `heads` (each query head's output; no W_O) have one per
  query head.
- The backward step (`ex-backprop-step`) adds `target`, `loss`, the gradients `dO`, `dV`, `dW`, `dS`, `dQ`, `dK`,
  `dW_Q`, `dW_K`, `dW_V`, `dX` (at the input X: what the layer below receives), and the matrices after one step
  (`W_Q_next`, ..., `loss_next`). A training run's
  checkpoints (`ex-learning-checkpoints`) put the checkpoint axis first and list the steps under `"checkpoints"`;
  the interactive layer then shows a Step slider instead of a menu. A leading axis that is neither heads nor a
  batch names itself: `"leading_axis": {"name": "step", "labels": ["0", "10", ...]}`, one label per entry (the
  contract refuses it missing or of the wrong length), and the interactive caption prints "step 10" from it.
- RoPE (`ex-rope`, docs/positions.md) has one query `inputs.Q` and one key `inputs.K` (1 × d_k), turned to every
  position in `"positions"`: `steps.angles` (position × pair), `steps.Q_rotated` and `steps.K_rotated` (one row per
  position) and `steps.scores`, query position by key position; `"frequencies"` and `"base"` give the angles.
- The real model's examples (`real-heads-<sentence>-layer<L>`) have `"seed": null` and name their model and
  source; the golden file covers the seeded ones, `tests/test_real_heads.py` the others.
- The block around attention (`ex-block`, docs/block.md) follows one token (`"position"`, from 0) through one
  layer (`"layer"`, from 0) of the real model: `inputs.X` is its vector entering the layer, `steps` holds its
  vectors as `models.minilm.LayerSteps` names them (`concat`, `attended`, `residual1`, `norm1`, `pre_activation`,
  `hidden`, `ffn_out`, `residual2`), the two layer norms' `mean1`, `variance1`, `mean2`, `variance2` and the
  layer's `norm1_gamma`, `norm1_beta`, `norm2_gamma`, `norm2_beta`; `outputs.out` is its vector leaving the layer.
  `tests/test_block.py` checks them against transformers.
- Each array is rounded to 10 significant digits of its largest entry, a lone float to 10 of its own
  (`text.published`, which the writer below applies): far beyond any printed digit, and far coarser than the 1e-15 by
  which two BLAS kernels' matrix products differ, so both write the same bytes. Integers, booleans and −∞ stay
  exact; a masked score (−∞) is `null`. `precision` says so in words (`text.published_note()`).
"""
import json
from html import escape

import numpy as np

from .embed import snippet as embed_snippet
from .errors import BuildError
from .finite import check_finite
from .site import language_url, site_url
from .text import published
from .words import SITE_WORDS as WORDS

REQUIRED_KEYS = ["id", "title", "page", "library_version", "seed", "inputs", "steps", "outputs"]
# The library's names: the only keys inputs, steps and outputs may use (the contract above).
ARRAY_NAMES = {
    "X", "W_Q", "W_K", "W_V", "W_O", "Q", "K", "V", "mask",
    "memory",  # cross-attention: the encoder's vectors the keys and values come from (X gives the queries)
    "scores", "scaled_scores", "weights", "out", "entropy", "heads", "concat",
    # the backward pass (docs/learning.md): a target and its loss, the gradients, one step's new matrices
    "target", "loss", "dO", "dV", "dW", "dS", "dQ", "dK", "dW_Q", "dW_K", "dW_V", "dX",
    "W_Q_next", "W_K_next", "W_V_next", "loss_next",
    # RoPE (docs/positions.md): each pair's angle, and the queries and keys after turning
    "angles", "Q_rotated", "K_rotated",
    # one decoding step (docs/watch-it-write.md): the rest of the model's logits, the head's path to them, the logits
    "logits_rest", "W_OU", "logits",
    # one token through one layer of the real encoder (docs/block.md): models.minilm.LayerSteps' vectors, each layer
    # norm's mean and variance, and the layer's own scales and shifts (models.minilm.encoder.LayerParams)
    "attended", "residual1", "mean1", "variance1", "norm1", "pre_activation", "hidden", "ffn_out", "residual2",
    "mean2", "variance2", "norm1_gamma", "norm1_beta", "norm2_gamma", "norm2_beta",
}


def key_size(d_k):
    """An example's `d_k` and `scale` fields, the scale computed here once: `{**key_size(d_k), ...}`."""
    return {"d_k": d_k, "scale": float(1 / np.sqrt(d_k))}


def check_example(example):
    """Raise BuildError naming the example and the field when `example` breaks the contract."""
    name = example.get("id", "?") if isinstance(example, dict) else "?"
    if not isinstance(example, dict):
        raise BuildError(f"example {name}: data() must return a dict, got {type(example).__name__}")
    missing = [k for k in REQUIRED_KEYS if k not in example]
    if missing:
        raise BuildError(f"example {name}: missing keys {missing}")
    for group in ("inputs", "steps", "outputs"):
        for key, value in example[group].items():
            if key not in ARRAY_NAMES:
                raise BuildError(f"example {name}: {group}.{key} is not one of the library's names {sorted(ARRAY_NAMES)}")
            arr = np.asarray(value)
            if key == "mask" and arr.dtype != bool:
                raise BuildError(f"example {name}: {group}.mask must be boolean (True = may attend), got {arr.dtype}")
            if arr.dtype != bool and not np.issubdtype(arr.dtype, np.number):
                raise BuildError(f"example {name}: {group}.{key} must hold numbers, got {arr.dtype}")
            check_finite(arr, f"example {name}: {group}.{key}", _forbidden(example, key, arr))
    _check_leading_axis(example, name)
    tokens = example.get("tokens")
    if tokens is not None:
        n = len(tokens)
        n_keys = len(example.get("key_tokens", tokens))
        for group in ("steps", "outputs"):
            for key in ("scores", "scaled_scores", "weights"):
                if key in example[group] and np.shape(example[group][key])[-2:] != (n, n_keys):
                    raise BuildError(
                        f"example {name}: {group}.{key} has shape {np.shape(example[group][key])}, "
                        f"expected (..., {n}, {n_keys}) from its tokens"
                    )


def _check_leading_axis(example, name):
    """A leading axis that is neither heads (n_heads) nor a padded batch (batch_tokens) names itself:
    "leading_axis": {"name": a word, "labels": one string per entry}, which the interactive caption prints
    ("step 20", not "sequence 4"); optionally "captions": {quantity: one caption per entry}, the build's caption of
    each grid, which the interactive figure shows while it shows that grid as the build computed it."""
    axis = example.get("leading_axis")
    q = np.shape(example["steps"].get("Q", []))
    count = q[0] if len(q) == 3 else None
    if axis is None:
        if count is not None and not any(key in example for key in ("n_heads", "batch_tokens")):
            raise BuildError(f"example {name}: its {count} grids on a leading axis are neither heads nor a batch, and "
                             "leading_axis does not name them")
        return
    labels = axis.get("labels") if isinstance(axis, dict) else None
    if not (isinstance(axis, dict) and isinstance(axis.get("name"), str) and axis["name"].strip()
            and isinstance(labels, list) and all(isinstance(label, str) and label for label in labels)):
        raise BuildError(f"example {name}: leading_axis must be {{'name': a word, 'labels': [one string per entry]}}, "
                         f"got {axis!r}")
    if count is None or len(labels) != count:
        raise BuildError(f"example {name}: leading_axis has {len(labels)} labels for a leading axis of "
                         f"{'no' if count is None else count} entries")
    captions = axis.get("captions", {})
    if not (isinstance(captions, dict) and all(
            quantity in example["steps"] and isinstance(texts, list) and len(texts) == count
            and all(isinstance(text, str) and text for text in texts) for quantity, texts in captions.items())):
        raise BuildError(f"example {name}: leading_axis.captions must be {{quantity of its steps: [one caption per "
                         f"entry, {count} in all]}}, got {captions!r}")


def _forbidden(example, key, arr):
    """Where `key` may hold −∞: a score table, at the pairs its example's inputs.mask forbids; nowhere else."""
    mask = example["inputs"].get("mask")
    if key not in ("scores", "scaled_scores") or mask is None:
        return None
    forbidden = ~np.asarray(mask, dtype=bool)
    try:
        return np.broadcast_to(forbidden, arr.shape)
    except ValueError:
        return None


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return None if value == -np.inf else value  # a masked score: null
    return value


def example_json(example):
    """The published JSON of a checked example: each array to 10 significant digits of its largest entry
    (text.published), −∞ as null."""
    check_example(example)
    try:
        return json.dumps(_jsonable(published(example)), ensure_ascii=False, allow_nan=False) + "\n"
    except (TypeError, ValueError) as exc:
        raise BuildError(f"example {example['id']}: cannot be written as JSON: {exc}") from None


def permalink(example):
    """The address a reader cites: the page's URL and the example's anchor."""
    return f"{site_url()}{example.url_path}#{example.id}"


def cite_line(example, embeddable=False):
    """The paragraph that anchors example `example` (an Example declaration) on its page and cites it; for an
    example the interactive heatmap can draw, with a link to its embed page and the <iframe> to copy (kept out
    of the search index: thirty copies of the same markup would be a tenth of it)."""
    embed = ""
    if embeddable:
        url = f"{language_url()}embed/{example.id}/"  # the embed page in the reader's language
        embed = (" " + WORDS.line("example-cite/embed", id=example.id) + "</p>\n"
                 '<details class="aih-embed-code" data-search-exclude><summary>'
                 + WORDS.line("example-cite/iframe-summary", id=example.id)
                 + f"</summary><pre><code>{escape(embed_snippet(example.id, url))}</code></pre></details>\n")
    return (f'<p class="aih-cite" id="{example.id}" markdown>'
            + WORDS.line("example-cite", id=example.id, permalink=permalink(example), page=example.markdown)
            + (embed or "</p>\n"))
