"""The real model's heads as worked examples: one JSON per sentence and layer, 12 heads each.

Item name `real-heads`, so the cite line of example `real-heads-<sentence>-layer<k>` is the snippet part
`<sentence>-layer<k>-cite`, i.e. generated/snippets/real-heads-<sentence>-layer<k>-cite.md, as for every
worked example.
"""
import json

import numpy as np

import attention

from . import real_heads_common as common
from .build import site_url


def data():
    """Every (sentence, layer) as a worked example with the head axis first, as multi-head examples are."""
    meta, by_id = common.extraction()
    examples = []
    for sentence_id, heads in by_id.items():
        n_layers, n_heads, _, d_k = heads.Q.shape
        for layer in range(n_layers):
            Q, K, V = heads.Q[layer], heads.K[layer], heads.V[layer]  # (n_heads, n, d_k), stored float16
            _, weights = attention.attend(Q, K, V)  # (n_heads, n, n)
            examples.append({
                "id": common.example_id(sentence_id, layer),
                "title": f"Layer {layer} of {meta['model']} on the {sentence_id} sentence",
                "page": "real-heads/",
                "library_version": attention.__version__,
                "seed": None,  # nothing random: the numbers come from the pretrained model
                "model": meta["model"],
                "source": f"{meta['package']} {meta['package_version']}, extracted by `{meta['command']}`",
                "sentence": heads.sentence.text,
                "layer": layer,
                "n_layers": n_layers,
                "tokens": heads.tokens,
                "n_heads": n_heads,
                "d_k": d_k,
                "scale": float(1 / np.sqrt(d_k)),
                "inputs": {},
                "steps": {"Q": Q, "K": K, "V": V, "weights": weights, "entropy": attention.row_entropy(weights)},
                "outputs": {},
            })
    return examples


def public(data):
    """{examples/<id>.json: text}: arrays as nested lists, floats at full precision (Python's repr)."""
    files = {}
    for example in data:
        document = dict(example, steps={k: v.tolist() for k, v in example["steps"].items()})
        files[f"examples/{example['id']}.json"] = json.dumps(document, ensure_ascii=False, allow_nan=False) + "\n"
    return files


def snippets(data):
    """One cite line per example: its anchor on the page, its permalink, its JSON."""
    parts = {}
    for example in data:
        example_id = example["id"]
        part = example_id.removeprefix("real-heads-")
        permalink = f"{site_url()}real-heads/#{example_id}"
        parts[f"{part}-cite"] = (
            f'- <span class="aih-cite" id="{example_id}">`{example_id}`</span>: layer {example["layer"]} on the '
            f"{example_id.split('-')[2]} sentence · [JSON](examples/{example_id}.json) · "
            f"[permalink]({permalink})"
        )
    return parts
