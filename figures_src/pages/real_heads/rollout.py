"""Attention rollout on the real-heads page: for each of its three sentences, how much of each input token
reaches each position after the six layers (realheads/rollout.py), from the float32 model.

The rest of the page reads the committed extraction (Q, K, V in float16); rollout multiplies six layers'
weights, so it runs the float32 model itself, read from the pinned model package with numpy alone, as the
your-sentence page's build does. The build checks that its weights agree with the committed extraction's.
"""
import functools

import numpy as np

from realheads.encoder import EncoderParams, encode
from realheads.model import load_config, model_folder
from realheads.rollout import attention_rollout
from realheads.shipped import read_safetensors

from ...engine import Figure
from ...engine.errors import BuildError
from ...engine.heatmap import heatmap
from ...engine.style import PHONE_WIDTH
from ...engine.text import num
from .committed import extraction

INPUTS = ["realheads/rollout.py", "realheads/shipped.py", "realheads/encoder.py", "realheads/model.py",
          "data/real_heads.npz", "data/real_heads.json"]
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
    params, config = float32_model()
    weights = encode(params, config, heads.ids).weights  # (L, H, n, n)
    worst = float(np.abs(weights - heads.weights).max())
    if worst > EXTRACTION_TOLERANCE:
        raise BuildError(f"real-heads rollout: the float32 model's weights on the {sentence_id} sentence differ from the "
                         f"committed extraction's by {worst:.4f} (> {EXTRACTION_TOLERANCE}): run make real-heads")
    rollout = attention_rollout(weights)  # (L, n, n)
    final = rollout[-1]
    n = len(heads.tokens)
    return {"heads": heads, "rollout": final,
            "own": float(np.diag(final).mean()),  # the mean share a position keeps of its own token
            "special": float((final[:, 0] + final[:, n - 1]).mean())}  # … and gets from [CLS] and [SEP]


def rollout_size(data):
    return (PHONE_WIDTH, PHONE_WIDTH - 0.2)


def render_rollout(data, ax):
    tokens = data["heads"].tokens
    drawn = heatmap(ax, data["rollout"], tokens, tokens, quantity="weights", show_values=False, as_image=True)
    ax.tick_params(axis="x", labelrotation=90)
    ax.set_ylabel("position after layer 6")
    ax.set_xlabel("input token")
    return drawn


def rollout_caption(data):
    heads = data["heads"]
    n = len(heads.tokens)
    return (f"Attention rollout through all six layers on the {heads.sentence.id} sentence ({n} tokens), from the "
            f"float32 model: row i is how the position of token i would be made of the input tokens if attention "
            f"(averaged over the heads, plus the residual path) were all there is. Each row adds up to 1; on "
            f"average a position keeps {num(data['own'], 2)} of its own token and takes {num(data['special'], 2)} "
            "from [CLS] and [SEP] together.")


def rollout_figure(sentence):


    return Figure(f"real-heads-rollout-{sentence.id}",
                  title=f"Attention rollout on the {sentence.id} sentence: where each position's information comes from.",
                  data=functools.partial(rollout_data, sentence.id), render=render_rollout, caption=rollout_caption,
                  size=rollout_size)
