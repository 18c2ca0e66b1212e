"""Watch it write (docs/watch-it-write.md): a tiny decoder-only transformer, trained here to reverse digit strings,
writes one token at a time with the KV cache, in numpy at build time and in the reader's browser.

The model and its training are `models/decoder.py`. `make train` trains it once (seeded, one BLAS thread) and
commits the parameters to data/trained/write-decoder.json (figures_src/trained.py); this module reads them, checks
what the page claims (exact match on 1,000 held-out strings, the job head's share, the model without positions),
publishes its parameters with their byte count and SHA-256, and draws the training curve and one run.

The page's words are words/watch-it-write.md; the widget's markup, with its own words, is
docs/widgets/watch-it-write/template.html (and preset.html, one preset's button). This module fills both with data.
"""
import functools
import gzip
import hashlib
import json
import math
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from attention import attend, attention_cost
from models import decoder

from ..engine import BuildError, Example, Figure, Snippets, Template, Words
from ..engine.examples import key_size
from ..engine.heatmap import heatmap
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.site import docs_path
from ..engine.style import PHONE_WIDTH
from ..engine.text import head_label, matrix, num, table, vector
from ..engine.words import Filled
from ..trained import Trained

ROOT = Path(__file__).resolve().parents[2]
PAGE = "watch-it-write.md"  # named in the build's errors
CONFIG = decoder.Config()
TRAINING = decoder.Training()
HELD_OUT = 1000
PRESETS = {"3 1 4 1 5 9": [3, 1, 4, 1, 5, 9], "2 7 1 8 2 8": [2, 7, 1, 8, 2, 8], "0 0 1 2 3 4": [0, 0, 1, 2, 3, 4]}
SHOWN = PRESETS["3 1 4 1 5 9"]
STEP_SHOWN = 2  # ex-decode-step writes output digit 2 (counted from 0; the page says the third)
ORDINALS = ["ordinal/1", "ordinal/2", "ordinal/3", "ordinal/4", "ordinal/5", "ordinal/6"]  # WORDS: output digit 0, 1, …
INPUT_DECIMALS = 2  # ex-decode-step's printed inputs are its inputs
ACCURACY_FLOOR = 0.99
SHARE_FLOOR = 0.95
BYTES_PER_NUMBER = 8  # the page's JavaScript keeps K and V as Float64Array, as numpy's float64
WEIGHTS_LIMIT = 200_000  # bytes, gzipped
NUMBER_WORDS = {3: "number/3", 4: "number/4", 5: "number/5", 6: "number/6", 7: "number/7",
                8: "number/8"}  # the recap's "one string in five": sections of WORDS
LATE_STEPS = 100  # the training curve's caption gives the range of the last steps' loss without positions
WORDS = Words("words/watch-it-write.md")
WIDGET = Template("docs/widgets/watch-it-write/template.html", Words("words/widgets/watch-it-write.md"))  # its markup, its words; Python fills in data
PRESET = Template("docs/widgets/watch-it-write/preset.html")  # one preset string's button


def claim(holds, what):
    if not holds:
        raise BuildError(f"{PAGE}: the page says {what}, and the data no longer shows it")


def train_models():
    """Both models, with and without positions, trained on the same batches, never on a held-out string."""
    held_out = decoder.held_out_sources(CONFIG, HELD_OUT)
    params, history = decoder.train(CONFIG, TRAINING, held_out)
    blind, blind_history = decoder.train(decoder.without_positions(CONFIG), TRAINING, held_out)
    return {"params": params, "loss": history["loss"], "blind": blind, "blind_loss": blind_history["loss"]}


MODELS = Trained("write-decoder", spec={"config": vars(CONFIG), "training": vars(TRAINING), "held_out": HELD_OUT},
                 train=train_models)
TRAINED = [MODELS]  # `make train` trains it; the build reads data/trained/write-decoder.json


@functools.cache
def trained():
    """Both models (with and without positions) as committed, their loss curves, and what the page measures of
    them on the held-out strings."""
    models = MODELS.load()
    params, blind = models["params"], models["blind"]
    held_out = decoder.held_out_sources(CONFIG, HELD_OUT)
    with threadpool_limits(limits=1, user_api="blas"):  # tiny matrices: one thread is fastest
        accuracy = decoder.exact_match(params, CONFIG, held_out)
        blind_accuracy = decoder.exact_match(blind, decoder.without_positions(CONFIG), held_out)
        shares = decoder.source_share(params, CONFIG, held_out)
    layer, head = np.unravel_index(np.argmax(shares), shares.shape)
    claim(accuracy >= ACCURACY_FLOOR, f"exact match of at least {ACCURACY_FLOOR:.0%} (measured {accuracy})")
    claim(shares[layer, head] >= SHARE_FLOOR, f"the job head's share is at least {SHARE_FLOOR:.0%}")
    claim(blind_accuracy < 0.5, "the model without positions gets fewer than half the strings right")
    weights_file = (json.dumps({"config": {"length": CONFIG.length, "d_model": CONFIG.d_model, "n_heads": CONFIG.n_heads,
                                           "n_layers": CONFIG.n_layers, "vocab": CONFIG.vocab},
                                "symbols": decoder.SYMBOLS, "job_head": [int(layer), int(head)],
                                "params": {name: value.tolist() for name, value in params.items()}}) + "\n").encode()
    gzipped = len(gzip.compress(weights_file, 9, mtime=0))
    claim(gzipped <= WEIGHTS_LIMIT, f"the parameters are at most {WEIGHTS_LIMIT} bytes gzipped (they are {gzipped})")
    return {
        "params": params, "loss": models["loss"], "blind_loss": models["blind_loss"], "accuracy": accuracy,
        "blind_accuracy": blind_accuracy, "shares": shares, "job_head": (int(layer), int(head)),
        "weights_file": weights_file, "weights_name": f"models/reverse-digits.{hashlib.sha256(weights_file).hexdigest()[:12]}.json",
        "gzipped": gzipped,
    }


def run_shown():
    data = trained()
    run = decoder.generate(data["params"], CONFIG, np.array(SHOWN))
    return {**data, "run": run}


def markdown_symbol(symbol):
    """The separator "|" would end a Markdown table's cell: escaped."""
    return symbol.replace("|", "\\|")


def labels(tokens):
    """Position labels a reader counts from 1: "1: 3", "7: |"."""
    return [f"{i + 1}: {decoder.SYMBOLS[t]}" for i, t in enumerate(tokens)]


def cache_bytes(n):
    """The KV cache after n tokens: per layer, a key and a value row of d_k numbers per head and token."""
    return CONFIG.n_layers * attention_cost(n, CONFIG.d_k, n_heads=CONFIG.n_heads, itemsize=BYTES_PER_NUMBER)["kv_cache_bytes"]


def dot_products(n, cached):
    """Query–key dot products of the step that reads token n (counted from 1), over every layer and head: one query
    row against the n cached keys, or every row of the n × n table again."""
    full = attention_cost(n, CONFIG.d_k, n_heads=CONFIG.n_heads)["score_entries"]
    return CONFIG.n_layers * (CONFIG.n_heads * n if cached else full)


# ---------------------------------------------------------------- the widget and the page's numbers

def presets():
    """The preset buttons: a preset's name is its digits, spaced."""
    return Filled("".join(PRESET.html(digits="".join(map(str, digits)), name=name).strip()
                          for name, digits in PRESETS.items()))


def page_snippets(data):
    layer, head = data["job_head"]
    widget = WIDGET.html(
        model=data["weights_name"], sha256=hashlib.sha256(data["weights_file"]).hexdigest(),
        bytes=len(data["weights_file"]), layer=layer, head=head, length=CONFIG.length, digits="".join(map(str, SHOWN)),
        presets=presets(), head_number=head + 1, layer_number=layer + 1, layers=CONFIG.n_layers, heads=CONFIG.n_heads)
    L = CONFIG.length
    share = data["shares"][layer, head]
    layer_shares = data["shares"][layer]
    claim(len(layer_shares) == 2 and all(layer_shares >= SHARE_FLOOR),
          f"both heads of layer {layer + 1} point at the source digit (at least {SHARE_FLOOR:.0%} of the steps each)")
    results = WORDS.fill(
        "watch-it-write-results", steps=f"{TRAINING.steps:,}", batch=TRAINING.batch,
        accuracy=num(100 * data["accuracy"], 1, trim=True), held_out=f"{HELD_OUT:,}", layer=layer + 1, source=L + 1,
        head=head + 1, share=num(100 * share, 1, trim=True),
        blind_accuracy=num(100 * data["blind_accuracy"], 1, trim=True))
    rows = [[head_label(l, h), f"{num(100 * data['shares'][l, h], 1)}%"]
            for l in range(CONFIG.n_layers) for h in range(CONFIG.n_heads)]
    shares = table([WORDS.line("watch-it-write-shares/head"), WORDS.line("watch-it-write-shares/share")], rows)
    columns = ("watch-it-write-counts/step", "watch-it-write-counts/cache", "watch-it-write-counts/cached",
               "watch-it-write-counts/recomputed")
    counts = table([WORDS.line(column) for column in columns],
                   [[n, f"{cache_bytes(n):,}", dot_products(n, True), dot_products(n, False)]
                    for n in range(1, CONFIG.n_positions + 1)])
    size = WORDS.fill("watch-it-write-size", bytes=f"{len(data['weights_file']):,}", gzipped=f"{data['gzipped']:,}",
                      file=data["weights_name"])
    job = WORDS.fill("watch-it-write-job", source=L + 1, length=L)
    recap_claims(data["blind_accuracy"])
    return {"": widget, "results": results, "shares": shares, "counts": counts, "size": size, "job": job}


def recap_claims(blind_accuracy):
    """The recap is plain Markdown with no typed number (tests/test_guidance.py), so its words are computed and
    checked here: the model without positions reverses "about one string in five", one in the whole number nearest
    1 / its accuracy; and that is far more than a random order of the digits would get, which is what "only the
    causal mask hints at the digits' order" needs (the mask alone, with no hint, would leave it at about 1 in L!)."""
    one_in = round(1 / blind_accuracy)
    claim(one_in in NUMBER_WORDS, f"in its recap that the model without positions reverses about one string in a few "
          f"(it reverses {blind_accuracy:.1%}, one in {1 / blind_accuracy:.1f})")
    recap = WORDS.line("watch-it-write-recap", count=WORDS.line(NUMBER_WORDS[one_in]))
    if recap not in docs_path(PAGE).read_text(encoding="utf-8"):
        raise BuildError(f"{docs_path(PAGE).relative_to(ROOT)}: its recap must read {recap!r}, as the model without positions now reverses "
                         f"{blind_accuracy:.1%} of the held-out strings; edit that line of the recap")
    guess = 1 / math.factorial(CONFIG.length)
    claim(blind_accuracy > 10 * guess, f"in its recap that the causal mask hints at the order: the model without "
          f"positions does far better than a random order of the digits ({blind_accuracy:.1%}, against {guess:.2%})")


def public_files(data):
    return {data["weights_name"]: data["weights_file"]}


# ---------------------------------------------------------------- figures

def curve_render(data, ax):
    steps = np.arange(1, TRAINING.steps + 1)
    ax.plot(steps, data["loss"], label=WORDS.line("write-training/with"))
    ax.plot(steps, data["blind_loss"], label=WORDS.line("write-training/without"))
    ax.set_yscale("log")
    ax.set_xlabel(WORDS.line("write-training/x"))
    ax.set_ylabel(WORDS.line("write-training/y"))
    ax.legend(frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def late_blind_loss(data):
    """The model without positions over the last LATE_STEPS steps: its lowest and highest loss, checked to stay far
    above the other model's (the caption says it falls "only" that far)."""
    late, blind = data["loss"][-LATE_STEPS:], data["blind_loss"][-LATE_STEPS:]
    claim(blind.min() > 10 * late.max(), "the model without positions ends far above the one with them")
    return blind.min(), blind.max()


def curve_numbers(data):
    """The numbers the training curve's caption and alt text print."""
    low, high = late_blind_loss(data)
    return {"first": num(data["loss"][0], 2), "last": num(data["loss"][-1], 6),
            "blind_first": num(data["blind_loss"][0], 2), "low": num(low, 2), "high": num(high, 2), "late": LATE_STEPS,
            "blind_last": num(data["blind_loss"][-1], 2)}


def curve_caption(data):
    return WORDS.line("write-training-caption", batch=TRAINING.batch, **curve_numbers(data))


def curve_alt(data):
    return WORDS.line("write-training-alt", steps=TRAINING.steps, **curve_numbers(data))


def curve_table(data):
    steps = sorted({*range(0, TRAINING.steps, 50), TRAINING.steps - 1})
    columns = ("write-training-table/step", "write-training/with", "write-training/without")
    return {"caption": WORDS.line("write-training-table"), "columns": [WORDS.line(column) for column in columns],
            "rows": [[s + 1, f"{data['loss'][s]:.6f}", f"{data['blind_loss'][s]:.4f}"] for s in steps]}


def run_render(data, ax):
    layer, head = data["job_head"]
    tokens = data["run"]["tokens"]
    n = CONFIG.n_positions
    return heatmap(ax, data["run"]["weights"][layer, :, head, :], labels(tokens[:n]), [str(i + 1) for i in range(n)],
                   quantity="weights", show_values=False)


def run_caption(data):
    layer, head = data["job_head"]
    written = "".join(decoder.SYMBOLS[t] for t in data["run"]["tokens"][CONFIG.length + 1:])
    return WORDS.line("write-run-caption", head=head + 1, layer=layer + 1, source="".join(map(str, SHOWN)),
                      written=written)


def run_claims(data):
    layer, head = data["job_head"]
    L = CONFIG.length
    tokens = data["run"]["tokens"]
    claim(list(tokens[L + 1:]) == SHOWN[::-1], f"the model reverses {SHOWN} correctly")
    rows = data["run"]["weights"][layer, L:, head, :]
    claim(list(rows.argmax(axis=-1)) == list(range(L - 1, -1, -1)), "each output row's largest weight is on its source digit")
    every_row = data["run"]["weights"][layer, :, head, :]
    claim(np.all(np.triu(every_row, 1) == 0), "the cells right of the diagonal, the tokens not yet read, have weight 0")


ITEMS_FIGURES = [
    Figure("write-training", title=WORDS.line("write-training-title"),
           data=trained, render=curve_render, caption=curve_caption, alt=curve_alt, table=curve_table,
           size=(PHONE_WIDTH, 3.0)),
]


def run_data():
    data = run_shown()
    run_claims(data)
    return data


# ---------------------------------------------------------------- training and decoding agree

AGREEMENT_TOLERANCE = 1e-12  # far above float64's rounding in sums this size, far below any digit the page prints
# The page prints the smallest power of ten above AGREEMENT_MARGIN times the largest difference, not the difference:
# its last digits are float noise that another CPU's BLAS kernel changes (issue 55). A margin of 3 (about √10) leaves
# the printed power unchanged while another machine's difference stays within about 3× of this one's.
AGREEMENT_MARGIN = 3


def agreement_bound(largest):
    """The exponent p of the power of ten the page says the largest difference is below: the smallest with
    AGREEMENT_MARGIN · largest ≤ 10^p. A difference of exactly 0 is given float64's epsilon, the least it can be."""
    return math.ceil(math.log10(AGREEMENT_MARGIN * max(largest, np.finfo(float).eps)))


def agreement_data():
    """The shown run's string through both passes: the cached decode (`decoder.generate`, one row per step from the
    KV cache) and the training-style pass (`decoder.forward` on the whole string at once, every row under the causal
    mask), and the largest difference between them over every logit and every head's weights."""
    data = run_shown()
    run = data["run"]
    tokens = run["tokens"][:-1]  # the last written digit is never read
    full = decoder.forward(data["params"], CONFIG, tokens)
    full_weights = np.stack(full["weights"]).transpose(0, 2, 1, 3)  # (layers, heads, n, n) -> (layers, n, heads, n)
    return {"tokens": tokens, "decode": run["logits"], "training": full["logits"],
            "largest": max(np.abs(full["logits"] - run["logits"]).max(), np.abs(full_weights - run["weights"]).max())}


def agreement_snippets(data):
    decode, training = data["decode"], data["training"]
    claim(data["largest"] < AGREEMENT_TOLERANCE,
          f"that the training-style pass and the cached decode differ by less than {AGREEMENT_TOLERANCE:g} "
          f"(the largest difference is {data['largest']:.3g})")
    rows = []
    for position, token in enumerate(data["tokens"]):
        best = [int(np.argmax(logits[position])) for logits in (decode, training)]
        printed = [num(logits[position].max(), 4) for logits in (decode, training)]
        claim(best[0] == best[1] and printed[0] == printed[1],
              f"that both passes give row {position + 1} the same largest logit, for the same symbol")
        rows.append([position + 1, markdown_symbol(decoder.SYMBOLS[token]), *printed,
                     markdown_symbol(decoder.SYMBOLS[best[0]])])
    n, vocab = decode.shape
    heads = CONFIG.n_layers * CONFIG.n_heads
    exponent = agreement_bound(data["largest"])
    claim(10.0**exponent <= AGREEMENT_TOLERANCE,
          f"that the training-style pass and the cached decode differ by less than {AGREEMENT_TOLERANCE:g}")
    return {
        "table": table([WORDS.line(column) for column in ("write-agree-table/row", "write-agree-table/reads",
                                                          "write-agree-table/decode", "write-agree-table/training",
                                                          "write-agree-table/names")], rows),
        "largest": WORDS.fill("write-agree-largest", rows=n, vocab=vocab, logits=f"{n * vocab:,}", heads=heads,
                              exponent=str(exponent)),
    }


# ---------------------------------------------------------------- one decoding step, by hand

def job_head_step(data, position):
    """The job head at the step that reads token `position`, the model's own numbers, unrounded: its query row q
    (1, d_k), the cached keys and values with the new token's row last (n, d_k), the head's path to the logits
    W_OU = (its rows of W_O) · W_U (d_k, vocab), what the rest of the model adds to the logits ("rest"), and the
    step's scores (1, n), weights (1, n) and logits (vocab,), as `decoder.decode_step` computes them (its trace)."""
    layer, head = data["job_head"]
    tokens = data["run"]["tokens"]
    params = data["params"]
    cache = decoder.empty_cache(CONFIG)
    for token in tokens[:position]:
        _, cache, _ = decoder.decode_step(params, CONFIG, cache, int(token))
    logits, _, _, layers = decoder.decode_step(params, CONFIG, cache, int(tokens[position]), trace=True)
    q, K, V, out, weights = (layers[layer][name][head] for name in ("q", "K", "V", "out", "weights"))
    columns = slice(head * CONFIG.d_k, (head + 1) * CONFIG.d_k)
    _, _, _, W_O = decoder.layer_weights(params, layer)
    W_OU = W_O[columns] @ params["W_U"]  # (d_k, vocab): the head's rows of W_O, then W_U
    rest = logits - (out @ W_OU)[0]  # what every other part of the model adds to the logits
    return {"q": q, "K": K, "V": V, "W_OU": W_OU, "rest": rest, "scores": q @ K.T, "weights": weights, "logits": logits}


def decode_step_example():
    """The job head at the step that writes output digit STEP_SHOWN of SHOWN: its new query row against the cached
    keys and values, the weights, the head's output, and the logits: those of the rest of the model plus the head's
    output times (the head's rows of W_O) · W_U, which the residual stream carries straight to the output (the JSON
    names that product W_OU; the page writes it out, since a W with a subscript is always a learned projection)."""
    data = run_shown()
    layer, head = data["job_head"]
    L, d_k = CONFIG.length, CONFIG.d_k
    tokens = data["run"]["tokens"]
    position = L + STEP_SHOWN  # the token read at this step
    own = job_head_step(data, position)
    # The printed inputs are the example's inputs: rounded to two decimals, and everything after computed from them
    q, K, V, W_OU, rest = (np.round(own[name], INPUT_DECIMALS) for name in ("q", "K", "V", "W_OU", "rest"))
    size = key_size(d_k)
    scores = q @ K.T  # (1, d_k) x (d_k, n) -> (1, n)
    out, weights = attend(q, K, V)  # (1, d_k), (1, n)
    logits = rest + (out @ W_OU)[0]
    chosen = int(np.argmax(logits))
    claim(chosen == tokens[position + 1], "the step, redone from its rounded numbers, writes the token the run wrote")
    claim(int(np.argmax(weights)) == L - 1 - STEP_SHOWN, "the step's largest weight is on its source digit")
    return {
        "seed": TRAINING.seed,
        "tokens": [decoder.SYMBOLS[tokens[position]]],
        "key_tokens": [decoder.SYMBOLS[t] for t in tokens[:position + 1]],
        **size, "layer": layer, "head": head, "position": position,
        "symbols": decoder.SYMBOLS, "chosen": chosen,
        "inputs": {"Q": q, "K": K, "V": V, "W_OU": W_OU, "logits_rest": rest},
        "steps": {"scores": scores, "scaled_scores": scores * size["scale"], "weights": weights, "out": out},
        "outputs": {"logits": logits[None]},
    }


def bound_above(value):
    """A round number a little above `value` > 0, with one significant digit: 0.0471 -> 0.05, 9.47e-5 -> 0.0001.
    Never `value` itself, so that a difference in the last bits of `value` (another CPU's) cannot change it."""
    exponent = math.floor(math.log10(value))
    leading = math.ceil(value / 10.0**exponent * (1 + 1e-9))
    return (leading, exponent) if leading < 10 else (1, exponent + 1)


def rounding_differences(example):
    """How far the model's own numbers at the step (`job_head_step`) are from the example's, which are computed
    from inputs rounded to INPUT_DECIMALS: -> {quantity: printed bound} for the scores, the weights and the logits,
    each bound a round number above the largest difference. A BuildError if the model's own logits write another
    digit, since the page says they write the same one."""
    own = job_head_step(run_shown(), example["position"])
    shown = {"scores": example["steps"]["scores"], "weights": example["steps"]["weights"],
             "logits": example["outputs"]["logits"][0]}
    claim(int(np.argmax(own["logits"])) == example["chosen"],
          "that the model's own numbers, unrounded, write the digit its rounded ones do")
    bounds = {}
    for name, values in shown.items():
        leading, exponent = bound_above(np.abs(np.asarray(own[name]) - np.asarray(values)).max())
        bounds[name] = num(leading * 10.0**exponent, max(-exponent, 0))
    return bounds


def decode_step_snippets(example):
    n = len(example["key_tokens"])
    keys = [f"{i + 1}: {markdown_symbol(t)}" for i, t in enumerate(example["key_tokens"])]
    d_k = example["d_k"]
    dims = [f"{i + 1}" for i in range(d_k)]
    symbols = [markdown_symbol(symbol) for symbol in example["symbols"]]
    inputs, step = example["inputs"], example["steps"]
    chosen = example["chosen"]
    step_number = example["position"] + 1  # the Generate table counts steps from 1, by the token they read
    differences = rounding_differences(example)
    return {
        "intro": WORDS.fill("ex-decode-step-intro", reads_digit=WORDS.line(ORDINALS[STEP_SHOWN - 1]),
                            writes_digit=WORDS.line(ORDINALS[STEP_SHOWN]), step=step_number, reads=example["tokens"][0],
                            writes=example["symbols"][chosen], scores=differences["scores"],
                            weights=differences["weights"], logits=differences["logits"]),
        "query": WORDS.fill("ex-decode-step-query", step=step_number, row=vector(inputs["Q"][0], INPUT_DECIMALS)),
        "keys": matrix(inputs["K"], keys, dims, corner="$K$", digits=INPUT_DECIMALS),
        "values": matrix(inputs["V"], keys, dims, corner="$V$", digits=INPUT_DECIMALS),
        "scores": matrix(np.stack([step["scores"][0], step["scaled_scores"][0], step["weights"][0]]),
                         score_rows(step_number), keys, corner=WORDS.line("ex-decode-step-scores"), digits=4),
        "out": WORDS.fill("ex-decode-step-out", row=vector(step["out"][0], 4)),
        "logits": matrix(np.stack([inputs["logits_rest"], example["outputs"]["logits"][0]]).T, symbols,
                         [WORDS.line("ex-decode-step-logits/rest"), WORDS.line("ex-decode-step-logits/logits")],
                         corner=WORDS.line("ex-decode-step-logits/symbol"), digits=INPUT_DECIMALS),
        "w_ou": matrix(inputs["W_OU"], dims, symbols, corner=WORDS.line("ex-decode-step-w-ou"), digits=INPUT_DECIMALS),
        "token": WORDS.fill("ex-decode-step-token", logit=num(example["outputs"]["logits"][0][chosen], INPUT_DECIMALS),
                            symbol=example["symbols"][chosen], cached=n, recomputed=n * n, rows=n),
    }


def score_rows(step_number):
    """The labels of ex-decode-step's rows of scores, scaled scores and weights, in TeX as the page's prose writes them."""
    return [f"$q_{{{step_number}}} \\cdot k_j$", f"$q_{{{step_number}}} \\cdot k_j / \\sqrt{{d_k}}$", f"$a_{{{step_number}j}}$"]


EX_DECODE_STEP = Example("ex-decode-step", title=WORDS.line("ex-decode-step-title"),
                         data=decode_step_example, snippets=decode_step_snippets)

# ---------------------------------------------------------------- the page as a notebook

def notebook_cells():
    """The committed decoder, read as the page reads it, writes the shown string with the KV cache; then
    ex-decode-step, redone from its rounded inputs."""
    return [
        markdown(WORDS.fill("nb-model")),
        code("""
            from models import decoder
            from figures_src.pages.watch_it_write import CONFIG, HELD_OUT, INPUT_DECIMALS, MODELS, SHOWN, STEP_SHOWN
            from figures_src.engine.text import head_label

            params = MODELS.load()["params"]  # data/trained/write-decoder.json, as the page reads it
            print(CONFIG)
            print("symbols:", decoder.SYMBOLS)"""),
        markdown(WORDS.fill("nb-decode-step")),
        code("""
            from attention import attend, merge_heads, split_heads
            from models.decoder import cache_length, embed, layer_weights  # what decode_step calls"""),
        source(decoder.decode_step),
        code("""
            L = CONFIG.length
            cache = decoder.empty_cache(CONFIG)
            for token in [*SHOWN, decoder.SEPARATOR]:  # the prompt: the source digits, then the separator
                logits, cache, _ = decode_step(params, CONFIG, cache, token)
                print("read", decoder.SYMBOLS[token], "-> cache length", decoder.cache_length(cache))
            print("the largest logit writes", decoder.SYMBOLS[int(np.argmax(logits))])

            run = decoder.generate(params, CONFIG, np.array(SHOWN))  # decode_step at each position, with the cache
            print("source:", " ".join(decoder.SYMBOLS[t] for t in run["tokens"][:L]))
            print("written:", " ".join(decoder.SYMBOLS[t] for t in run["tokens"][L + 1:]))"""),
        markdown(WORDS.fill("nb-job-head")),
        code("""
            shares = decoder.source_share(params, CONFIG, decoder.held_out_sources(CONFIG, HELD_OUT))
            layer, head = (int(i) for i in np.unravel_index(np.argmax(shares), shares.shape))
            print("share of output steps on the source digit, layers by heads:", np.round(shares, 3), sep="\\n")
            print(f"the job head: {head_label(layer, head)} (code: layer {layer}, head {head})")

            symbols = [decoder.SYMBOLS[t] for t in run["tokens"][:CONFIG.n_positions]]
            fig, ax = plt.subplots(figsize=(5, 4.4))
            heatmap(ax, run["weights"][layer, :, head, :], symbols, symbols, quantity="weights", show_values=False,
                    title=head_label(layer, head))
            plt.show()"""),
        markdown(WORDS.fill("nb-job-head-step")),
        source(job_head_step),
        code("""
            position = L + STEP_SHOWN  # the token this step reads
            own = job_head_step({"params": params, "run": run, "job_head": (layer, head)}, position)
            print(f"reads {decoder.SYMBOLS[run['tokens'][position]]} at position {position + 1} (index {position});",
                  f"the cache then holds {own['K'].shape[0]} keys and values")"""),
        markdown(WORDS.fill("nb-rounded")),
        code("""
            q, K, V, W_OU, rest = (np.round(own[name], INPUT_DECIMALS) for name in ("q", "K", "V", "W_OU", "rest"))
            scores = q @ K.T  # (1, d_k) x (d_k, n) -> (1, n)
            out, weights = attention.attend(q, K, V)  # (1, d_k), (1, n)
            logits = rest + (out @ W_OU)[0]  # the rest of the model, plus this head through W_O's rows and W_U
            chosen = int(np.argmax(logits))
            print("weights:", weights)
            print("writes", decoder.SYMBOLS[chosen], "with logit", round(logits[chosen], 2))"""),
        markdown(WORDS.fill("nb-decode-example")),
        code("""
            d_k = CONFIG.d_k
            decode = {
                "tokens": [decoder.SYMBOLS[run["tokens"][position]]],
                "key_tokens": [decoder.SYMBOLS[t] for t in run["tokens"][:position + 1]],
                "layer": layer, "head": head, "position": position, "chosen": chosen,
                "inputs": {"Q": q, "K": K, "V": V, "W_OU": W_OU, "logits_rest": rest},
                "steps": {"scores": scores, "scaled_scores": scores / np.sqrt(d_k), "weights": weights, "out": out},
                "outputs": {"logits": logits[None]},
            }"""),
    ]


ITEMS = [
    Snippets("watch-it-write", data=trained, snippets=page_snippets, public=public_files),
    *ITEMS_FIGURES,
    Figure("write-run", title=WORDS.line("write-run-title"),
           data=run_data, render=run_render, caption=run_caption, size=(PHONE_WIDTH, PHONE_WIDTH)),
    Snippets("write-agree", data=agreement_data, snippets=agreement_snippets),
    EX_DECODE_STEP,
    notebook(PAGE, notebook_cells, examples={EX_DECODE_STEP: "decode"}),
]
