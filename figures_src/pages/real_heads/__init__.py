"""Attention in a real model (docs/real-heads.md): all-MiniLM-L6-v2's heads on three sentences.

committed.py reads the committed Q, K and V and scores every head; grid.py draws the 6 × 12 grid of one
sentence; rollout.py the attention rollout of each sentence, from the float32 model's weights in float64; text.py
writes the page's sentences and tables. Here: the worked examples (one per sentence and
layer, twelve heads each), the grids, the viewer, the heads the page names, and the page's cite list.
"""
import functools

import numpy as np

import attention
from realheads.data import SENTENCES
from realheads.model import MODEL_NAME

from ...engine import Example, Figure, Snippets
from ...engine.errors import BuildError
from ...engine.examples import permalink
from ...engine.heatmap import heatmap
from ...engine.sources import source_listings
from ...engine.style import PHONE_WIDTH
from ...engine.text import num
from .committed import KIND_SENTENCE, N_LAYERS, extraction, picks, scores
from .rollout import ROLLOUT_ITEMS
from .grid import GRID_SIZE, grid_alt, grid_caption, grid_data, grid_images, grid_table, render_grid
from .text import text_data, text_snippets


# ---------------------------------------------------------------- one worked example per sentence and layer


def layer_example(sentence_id, layer):
    """One layer's twelve heads on one sentence, head axis first, as multi-head examples are."""
    meta, by_id = extraction()
    heads = by_id[sentence_id]
    n_layers, n_heads, _, d_k = heads.Q.shape
    Q, K, V = heads.Q[layer], heads.K[layer], heads.V[layer]  # (n_heads, n, d_k), stored float16
    _, weights = attention.attend(Q, K, V)  # (n_heads, n, n)
    return {
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
    }


LAYER_EXAMPLES = {
    (sentence.id, layer): Example(
        f"real-heads-{sentence.id}-layer{layer}",
        title=f"Layer {layer + 1} of {MODEL_NAME} on the {sentence.id} sentence",
        data=functools.partial(layer_example, sentence.id, layer),
        cite_line=False,  # listed together in the page's "Cite and download" section
    )
    for sentence in SENTENCES
    for layer in range(N_LAYERS)
}


def cite_list(_):
    """One line per layer example: its anchor, its JSON, its permalink, its embed page (engine/embed.py)."""
    return {"": "\n".join(
        f'- <span class="aih-cite" id="{example.id}">`{example.id}`</span>: layer {layer + 1} on the {sentence_id} '
        f"sentence · [JSON](examples/{example.id}.json) · [permalink]({permalink(example)})"
        f" · [embed](embed/{example.id}/index.html)"
        for (sentence_id, layer), example in LAYER_EXAMPLES.items()
    )}


# ---------------------------------------------------------------- the code listings

SOURCES = ("realheads/encoder.py", "realheads/analysis.py")  # listed under "The code" in docs/real-heads.md


# ---------------------------------------------------------------- one head, drawn in full


def head_data(kind, sentence_id=None):
    """The head picked for `kind`, on `sentence_id` (default: the sentence that shows that kind best)."""
    _, by_id = extraction()
    pick = picks()[kind]
    heads = by_id[sentence_id or KIND_SENTENCE[kind]]
    return {"kind": kind, "pick": pick, "heads": heads, "weights": heads.weights[pick.layer, pick.head], "scores": scores()}


def head_example(data):
    """The layer example holding the head: the interactive layer opens it there."""
    return LAYER_EXAMPLES[(data["heads"].sentence.id, data["pick"].layer)]


def head_size(data):
    """Inches for an n × n heatmap: a phone's width (its numbers are in the table after it and in the grid)."""
    return (PHONE_WIDTH, PHONE_WIDTH - 0.2)


def render_head(data, ax):
    """One image of n × n cells (hundreds of them: the numbers are in the table after it and in the viewer)."""
    heads, pick = data["heads"], data["pick"]
    drawn = heatmap(ax, data["weights"], heads.tokens, heads.tokens, quantity="weights", head=pick.head,
                    show_values=False, as_image=True)
    ax.tick_params(axis="x", labelrotation=90)
    return drawn


def head_caption(data):
    """Which head, on which sentence; the callout above the figure gives the numbers that picked it."""
    kind, pick, heads = data["kind"], data["pick"], data["heads"]
    n = len(heads.tokens)
    text = (f"{pick.label.capitalize()} on the {heads.sentence.id} sentence: its {n} × {n} weights, queries down "
            "and keys across.")
    if kind in data["scores"].links:
        link = data["scores"].links[kind]["link"]
        text += f" The row of “{link.query}” is row {heads.position(link.query) + 1}; “{link.key}” is column {heads.position(link.key) + 1}."
        text += (f" No head gives “{link.key}” more weight in that row; the next-best, {pick.runner_up_label}, gives "
                 f"{lead_text(pick)} less.")
    return text


def viewer_caption(data):
    pick = data["pick"]
    return (f"It opens on {pick.label}, the head that links “it” to “animal” most strongly (by {lead_text(pick)}, "
            f"over {pick.runner_up_label}). Choose a "
            "thumbnail in any grid above to open that head here; the menu switches between the heads of the "
            "same layer, the slider rescales the scores, and hovering a cell shows how its weight is computed.")


def lead(pick):
    """How far the named head's score is ahead of the next-best head's: > 0, else the page would not name it alone."""
    margin = float(pick.score - pick.runner_up)
    if not margin > 0:
        raise BuildError(f"real-heads: {pick.label} is named the strongest head but leads {pick.runner_up_label} by {margin}")
    return margin


def lead_text(pick):
    """The lead as printed: 2 decimals, as the scores it is the difference of, or 4 where 2 would print 0.00 or 0.01."""
    margin = lead(pick)
    return num(margin, 2 if margin >= 0.02 else 4)


def head_figure(name, kind, title, caption=head_caption):
    return Figure(name, title=title, data=functools.partial(head_data, kind), render=render_head, caption=caption,
                  size=head_size, example=head_example)


ITEMS = [
    *LAYER_EXAMPLES.values(),
    Snippets("real-heads-cite", data=lambda: None, snippets=cite_list),
    Snippets("real-heads-text", data=text_data, snippets=text_snippets),
    Snippets("real-heads-grid-images", data=lambda: None, public=lambda _: grid_images()),
    Snippets("real-heads-code", data=lambda: None, public=source_listings(*SOURCES)),
    *(
        Figure(f"real-heads-grid-{sentence.id}",
               title=f"Every head of a real model on the {sentence.id} sentence: 6 layers × 12 heads.",
               data=functools.partial(grid_data, sentence.id), render=render_grid, caption=grid_caption,
               alt=grid_alt, table=grid_table, size=GRID_SIZE)
        for sentence in SENTENCES
    ),
    *ROLLOUT_ITEMS,
    head_figure("real-heads-viewer", "coreference", "The head viewer: one head's weights, any head, chosen from the grids.",
                caption=viewer_caption),  # it opens on the head linking "it" to "animal"
    head_figure("real-heads-previous", "previous", "The previous-token head: each word looks at the word before it."),
    head_figure("real-heads-next", "next", "The next-token head: each word looks at the word after it."),
    head_figure("real-heads-sink", "sink", "The [CLS]/[SEP] sink: most of every row on the special tokens."),
    head_figure("real-heads-coreference", "coreference", "The head that links “it” to “animal” most strongly."),
    head_figure("real-heads-agreement", "agreement", "The head that links “are” to its subject “keys” most strongly."),
]
