"""Attention in a real model (docs/real-heads.md): all-MiniLM-L6-v2's heads on three sentences.

committed.py reads the committed Q, K and V and scores every head; grid.py draws the 6 × 12 grid of one
sentence; rollout.py the attention rollout of each sentence, from the float32 model's weights in float64; text.py
fills the page's sentences and tables. Here: the worked examples (one per sentence and
layer, twelve heads each), the grids, the viewer, the heads the page names, and the page's cite list.
Every word a reader sees is in words/real-heads.md, read through committed.WORDS.
"""
import functools

import attention
from models.minilm.data import SENTENCES
from models.minilm.model import MODEL_NAME

from ...engine import Example, Figure, Snippets
from ...engine.errors import BuildError
from ...engine.examples import key_size, permalink
from ...engine.heatmap import heatmap
from ...engine.notebooks import code, markdown, notebook
from ...engine.sources import source_listings
from ...engine.style import PHONE_WIDTH
from ...engine.text import num
from .committed import (KIND_SENTENCE, N_LAYERS, WORDS, extraction, pick_label, picks, runner_up_label, scores,
                        sentence_name)
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
        "source": WORDS.line("real-heads-layer-source", package=meta["package"], version=meta["package_version"],
                             command=meta["command"]),
        "sentence": heads.sentence.text,
        "layer": layer,
        "n_layers": n_layers,
        "tokens": heads.tokens,
        "n_heads": n_heads,
        **key_size(d_k),
        "inputs": {},
        "steps": {"Q": Q, "K": K, "V": V, "weights": weights, "entropy": attention.row_entropy(weights)},
        "outputs": {},
    }


LAYER_EXAMPLES = {
    (sentence.id, layer): Example(
        f"real-heads-{sentence.id}-layer{layer}",
        title=WORDS.line("real-heads-layer-title", layer=layer + 1, model=MODEL_NAME,
                         sentence=sentence_name(sentence.id)),
        data=functools.partial(layer_example, sentence.id, layer),
        cite_line=False,  # listed together in the page's "Cite and download" section
    )
    for sentence in SENTENCES
    for layer in range(N_LAYERS)
}


def cite_list(_):
    """One line per layer example: its anchor, its JSON, its permalink, its embed page (engine/embed.py)."""
    return {"": "\n".join(
        WORDS.fill("real-heads-cite", id=example.id, layer=layer + 1, sentence=sentence_name(sentence_id),
                   permalink=permalink(example))
        for (sentence_id, layer), example in LAYER_EXAMPLES.items()
    )}


# ---------------------------------------------------------------- the code listings

SOURCES = ("models/minilm/encoder.py", "models/minilm/analysis.py")  # listed under "The code" in docs/real-heads.md


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
    text = WORDS.line("real-heads-head-caption", head=WORDS.line("real-heads-head/capital", layer=pick.layer + 1,
                                                                 head=pick.head + 1),
                      sentence=sentence_name(heads.sentence.id), n=n)
    if kind in data["scores"].links:
        link = data["scores"].links[kind]["link"]
        text = WORDS.line("real-heads-head-caption/link", caption=text, query=link.query,
                          row=heads.position(link.query) + 1, key=link.key, column=heads.position(link.key) + 1,
                          runner_up=runner_up_label(pick), lead=lead_text(pick))
    return text


def viewer_caption(data):
    pick = data["pick"]
    return WORDS.line("real-heads-viewer-caption", head=pick_label(pick), lead=lead_text(pick),
                      runner_up=runner_up_label(pick))


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


# ---------------------------------------------------------------- the page as a notebook

def notebook_cells():
    """Every layer example from the committed extraction, read through the page's own loader (the committed Q, K
    and V are float16: a model run anew would differ in the fourth decimal), and the heads the page names."""
    return [
        markdown(WORDS.fill("nb-extraction")),
        code("""
            from figures_src.engine.text import head_label
            from figures_src.pages.real_heads.committed import extraction, picks

            meta, by_id = extraction()  # data/real_heads.npz and data/real_heads.json, as the page reads them
            print(meta["model"], "from", meta["package"], meta["package_version"])
            print("Q, K and V:", meta["stored"]["Q"])
            for sentence_id, heads in by_id.items():
                print(f"{sentence_id} ({len(heads.tokens)} tokens):", " ".join(heads.tokens))"""),
        markdown(WORDS.fill("nb-layers")),
        code("""
            layers = {}
            for sentence_id, heads in by_id.items():
                for layer in range(len(heads.Q)):
                    Q, K, V = heads.Q[layer], heads.K[layer], heads.V[layer]  # (n_heads, n, d_k)
                    _, weights = attention.attend(Q, K, V)  # every head at once: (n_heads, n, n)
                    layers[sentence_id, layer] = {
                        "tokens": heads.tokens, "layer": layer, "inputs": {}, "outputs": {},
                        "steps": {"Q": Q, "K": K, "V": V, "weights": weights, "entropy": attention.row_entropy(weights)},
                    }
            print(len(layers), "layer examples; the weights of one layer:", layers["coreference", 0]["steps"]["weights"].shape)"""),
        markdown(WORDS.fill("nb-heads")),
        code("""
            named = picks()  # scored over the three sentences, as the page scores them
            for kind, pick in named.items():
                print(f"{kind}: {head_label(pick.layer, pick.head)} (code: layer {pick.layer}, head {pick.head})")"""),
        markdown(WORDS.fill("nb-draw")),
        code("""
            fig, axes = plt.subplots(1, 2, figsize=(11, 5.6))
            for ax, (kind, sentence_id) in zip(axes, (("coreference", "coreference"), ("previous", "long"))):
                pick, tokens = named[kind], by_id[sentence_id].tokens
                weights = layers[sentence_id, pick.layer]["steps"]["weights"][pick.head]
                heatmap(ax, weights, tokens, tokens, quantity="weights", show_values=False, colorbar=False, as_image=True,
                        title=f"{kind}: {head_label(pick.layer, pick.head)}")
                ax.tick_params(axis="x", labelrotation=90)
            fig.tight_layout()
            plt.show()

            heads = by_id["coreference"]
            pick = named["coreference"]
            it, animal, street = (heads.position(word) for word in ("it", "animal", "street"))
            row = layers["coreference", pick.layer]["steps"]["weights"][pick.head, it]
            print(f"the row of 'it' (the page's row {it + 1}, index {it}): weight {row[animal]:.3f} on 'animal', "
                  f"{row[street]:.3f} on 'street'")"""),
    ]


ITEMS = [
    *LAYER_EXAMPLES.values(),
    Snippets("real-heads-cite", data=lambda: None, snippets=cite_list),
    Snippets("real-heads-text", data=text_data, snippets=text_snippets),
    Snippets("real-heads-grid-images", data=lambda: None, public=lambda _: grid_images()),
    Snippets("real-heads-code", data=lambda: None, public=source_listings(*SOURCES)),
    *(
        Figure(f"real-heads-grid-{sentence.id}",
               title=WORDS.line("real-heads-grid-title", sentence=sentence_name(sentence.id)),
               data=functools.partial(grid_data, sentence.id), render=render_grid, caption=grid_caption,
               alt=grid_alt, table=grid_table, size=GRID_SIZE)
        for sentence in SENTENCES
    ),
    *ROLLOUT_ITEMS,
    head_figure("real-heads-viewer", "coreference", WORDS.line("real-heads-viewer-title"),
                caption=viewer_caption),  # it opens on the head linking "it" to "animal"
    head_figure("real-heads-previous", "previous", WORDS.line("real-heads-previous-title")),
    head_figure("real-heads-next", "next", WORDS.line("real-heads-next-title")),
    head_figure("real-heads-sink", "sink", WORDS.line("real-heads-sink-title")),
    head_figure("real-heads-coreference", "coreference", WORDS.line("real-heads-coreference-title")),
    head_figure("real-heads-agreement", "agreement", WORDS.line("real-heads-agreement-title")),
    notebook("real-heads.md", notebook_cells,
             examples={example: f"layers[{sentence_id!r}, {layer}]" for (sentence_id, layer), example in LAYER_EXAMPLES.items()}),
]
