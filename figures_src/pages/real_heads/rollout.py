"""Attention rollout on the real-heads page: for each of its three sentences, how much of each input token
reaches each position after the six layers (models/minilm/rollout.py), from the float32 model. One figure (the
coreference sentence; three would overrun the page's DOM and byte budgets), and for all three sentences the
shares in the text and the whole table as CSV.

The rest of the page reads the committed extraction (Q, K, V in float16); rollout multiplies six layers'
weights, so it runs the float32 model itself, read from the pinned model package with numpy alone, as the
your-sentence page's build does. It runs the model's float32 weights in float64, as block.py does: float32 sums
come out of two BLAS kernels apart by 1e-7, float64 ones by 1e-15, which the published CSV's rounding
(engine.text.published) absorbs. The build checks that its weights agree with the committed extraction's.
"""
import functools

import numpy as np

from models.minilm.data import SENTENCES
from models.minilm.encoder import EncoderParams, encode
from models.minilm.model import load_config, model_folder
from models.minilm.rollout import attention_rollout
from models.minilm.shipped import read_safetensors

from ...engine import Figure, Snippets
from ...engine.downloads import csv_text
from ...engine.errors import BuildError
from ...engine.heatmap import heatmap
from ...engine.style import PHONE_WIDTH
from ...engine.text import num
from ...engine.words import listed
from .committed import WORDS, extraction, sentence_name

EXTRACTION_TOLERANCE = 2e-3  # the committed weights come from float16 Q and K


@functools.cache
def float32_model():
    folder = model_folder()
    config = load_config(folder)
    state = {name: value for name, value in read_safetensors(folder / "model.safetensors").items() if value.dtype != np.int64}
    return EncoderParams.from_state_dict(state, config), config


def rollout_data(sentence_id):
    _, by_id = extraction()
    heads = by_id[sentence_id]
    params32, config = float32_model()
    weights = encode(params32.astype(np.float64), config, heads.ids).weights  # (L, H, n, n)
    worst = float(np.abs(weights - heads.weights).max())
    if worst > EXTRACTION_TOLERANCE:
        raise BuildError(f"real-heads rollout: the float32 model's weights on the {sentence_id} sentence differ from the "
                         f"committed extraction's by {worst:.4f} (> {EXTRACTION_TOLERANCE}): run make real-heads")
    rollout = attention_rollout(weights)  # (L, n, n)
    final = rollout[-1]
    n = len(heads.tokens)
    own = np.diag(final)  # the share each position keeps of its own token
    words = slice(1, n - 1)  # the sentence's own tokens: every position but [CLS] (first) and [SEP] (last)
    return {"heads": heads, "rollout": final,
            "own": float(own[words].mean()),  # the mean share a token of the sentence keeps of itself
            "special": float((final[words, 0] + final[words, n - 1]).mean()),  # … and gets from [CLS] and [SEP]
            "own_cls": float(own[0]), "own_sep": float(own[-1]), "own_all": float(own.mean())}


def rollout_size(data):
    return (PHONE_WIDTH, PHONE_WIDTH - 0.2)


def render_rollout(data, ax):
    tokens = data["heads"].tokens
    drawn = heatmap(ax, data["rollout"], tokens, tokens, quantity="weights", show_values=False, as_image=True)
    ax.tick_params(axis="x", labelrotation=90)
    ax.set_ylabel(WORDS.line("real-heads-rollout-ylabel"))  # not "queries": a rollout row is a position after six layers
    ax.set_xlabel(WORDS.line("real-heads-rollout-xlabel"))
    return drawn


def rollout_caption(data):
    return WORDS.line("real-heads-rollout-caption", sentence=sentence_name(data["heads"].sentence.id))


def rollout_alt(data):
    tokens = data["heads"].tokens
    values = data["rollout"]
    return WORDS.line("real-heads-rollout-alt", n=len(tokens), tokens=listed(tokens, "comma"),
                      low=num(values.min()), high=num(values.max()))


def rollout_table(data):
    """A rollout row is a position after six layers, its columns input tokens (the corner says so)."""
    tokens = data["heads"].tokens
    return {"caption": WORDS.line("real-heads-rollout-values"),
            "columns": [WORDS.line("real-heads-rollout-table-corner"), *tokens],
            "rows": [[token, *map(float, row)] for token, row in zip(tokens, data["rollout"])]}


def rollout_figure(sentence):
    return Figure(f"real-heads-rollout-{sentence.id}",
                  title=WORDS.line("real-heads-rollout-title", sentence=sentence_name(sentence.id)),
                  data=functools.partial(rollout_data, sentence.id), render=render_rollout, caption=rollout_caption,
                  alt=rollout_alt, table=rollout_table, size=rollout_size, values=WORDS.line("real-heads-rollout-values"))


FIGURED = "coreference"  # the sentence drawn; the others are summarised and downloadable


def rollout_csv(data):
    """The same CSV as the figure's own download (engine/downloads.py writes both)."""
    table = rollout_table(data)
    return csv_text([(table["caption"], table["columns"], table["rows"])]).encode()


def csv_path(sentence_id):
    """The CSV the text links: the figure's own download for the sentence drawn, else one written here."""
    if sentence_id == FIGURED:
        return f"figures/real-heads-rollout-{sentence_id}.csv"
    return f"figures/real-heads-rollout-{sentence_id}-matrix.csv"


def all_rollouts():
    _, by_id = extraction()
    return {sentence_id: rollout_data(sentence_id) for sentence_id in by_id}


def rollout_text(rollouts):
    """The shares a token of the sentence keeps of itself and takes from [CLS] and [SEP], per sentence; and what
    [CLS] and [SEP] keep of themselves, which would lift the first share if they were counted in (checked)."""
    (first_id, first), *others = rollouts.items()
    for sentence_id, data in rollouts.items():
        if not (min(data["own_cls"], data["own_sep"]) > data["own"] and num(data["own_all"], 2) != num(data["own"], 2)):
            raise BuildError(f"real-heads-rollout-text: the page says [CLS] and [SEP] keep more of themselves than the "
                             f"sentence's tokens and would lift their mean share; in the {sentence_id} sentence they keep "
                             f"{data['own_cls']:.3f} and {data['own_sep']:.3f}, the tokens {data['own']:.3f}, every "
                             f"position {data['own_all']:.3f}")
    shares = listed([WORDS.line("real-heads-rollout-text/share", sentence=sentence_name(sentence_id),
                                own=num(data["own"], 2), special=num(data["special"], 2))
                     for sentence_id, data in others], "semicolon")
    tables = listed([WORDS.line("real-heads-rollout-text/table", sentence=sentence_name(sentence_id),
                                path=csv_path(sentence_id))
                     for sentence_id in rollouts], "comma")
    return {"": WORDS.fill("real-heads-rollout-text", own=num(first["own"], 2), special=num(first["special"], 2),
                           sentence=sentence_name(first_id), shares=shares, own_cls=num(first["own_cls"], 2),
                           own_sep=num(first["own_sep"], 2), own_all=num(first["own_all"], 2), tables=tables)}


def rollout_files(rollouts):
    return {csv_path(sentence_id): rollout_csv(data) for sentence_id, data in rollouts.items()
            if sentence_id != FIGURED}  # the figure publishes its own


ROLLOUT_ITEMS = [
    rollout_figure(next(sentence for sentence in SENTENCES if sentence.id == FIGURED)),
    Snippets("real-heads-rollout-text", data=all_rollouts, snippets=rollout_text, public=rollout_files),
]
