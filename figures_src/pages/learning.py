"""Watch it learn (docs/learning.md): one backward step by hand, a layer trained in numpy, and √d_k tested by training.

The worked example pushes one gradient step back through a three-token sentence, at build time, with the library's
own backward pass. The training run and the √d_k experiment (`models/learning.py`) are trained once by `make train` and
read from data/trained/ (figures_src/trained.py); the build computes every claim from them.
"""
import functools

import matplotlib.ticker
import numpy as np

import attention
from models import learning as training

from ..engine import BuildError, Example, Figure, Snippets, Words
from ..engine.examples import key_size
from ..engine.heatmap import heatmap
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.sources import source_listings
from ..engine.style import PHONE_WIDTH
from ..engine.text import by_hand, dims, latex_number, matrix, num, table
from ..engine.words import listed
from ..trained import Trained
from . import sentences

WORDS = Words("words/learning.md")


def claim(holds, where, what):
    """A sentence the page prints about the data: a BuildError naming the item and the claim when it is false."""
    if not holds:
        raise BuildError(f"{where}: the page says {what}, and the data no longer shows it")


# ---------------------------------------------------------------- one step of backprop, by hand

LEARNING_RATE = 0.02


def backprop_target(sentence):
    """The target T (n, d_k) the output should match: one-decimal numbers drawn from the sentence's seed + 100."""
    rng = np.random.default_rng(sentence.seed + 100)
    return rng.integers(-5, 6, size=(sentence.n, sentence.d_k)) / 10


def backprop_step():
    """SHORT's attention (d_k = 4, scale 1/2), a loss ½‖out − target‖², every gradient, one step of
    gradient descent on W_Q, W_K, W_V and the loss after it."""
    example = sentences.self_attention_example(sentences.SHORT)
    X, W_Q, W_K, W_V = (example["inputs"][k] for k in ("X", "W_Q", "W_K", "W_V"))
    target = backprop_target(sentences.SHORT)
    steps = example["steps"]
    Q, K, V, W = steps["Q"], steps["K"], steps["V"], steps["weights"]
    out = example["outputs"]["out"]
    dO = out - target  # ∂(½‖out − target‖²)/∂out
    backward = attention.self_attention_backward(X, W_Q, W_K, W_V, dO)
    dQ, dK, dV = backward["Q"], backward["K"], backward["V"]
    dW = dO @ V.T  # (n, d_v) x (d_v, n) -> (n, n)
    dS = attention.softmax_backward(W, dW)
    grads = {f"d{name}": backward[name] for name in ("W_Q", "W_K", "W_V")}  # Xᵀ dQ …: (d_model, n) x (n, d_k)
    W_next = {name: M - LEARNING_RATE * grads[f"d{name}"] for name, M in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V))}
    out_next, _ = attention.attend(X @ W_next["W_Q"], X @ W_next["W_K"], X @ W_next["W_V"])
    example["learning_rate"] = LEARNING_RATE
    example["inputs"]["target"] = target
    steps.update({"loss": 0.5 * ((out - target) ** 2).sum(), "dO": dO, "dV": dV, "dW": dW, "dS": dS,
                  "dQ": dQ, "dK": dK, **grads, "dX": backward["X"]})  # dX = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ
    example["outputs"].update({f"{name}_next": M for name, M in W_next.items()})
    example["outputs"]["loss_next"] = 0.5 * ((out_next - target) ** 2).sum()
    return example


SCALED = "S̃"  # the scaled scores S/√d_k (S itself is QKᵀ), as the page writes them outside LaTeX


def scaled_scores_after(example):
    """The scaled scores once W_Q and W_K have taken their step: what the forward pass computes next."""
    X, o = np.asarray(example["inputs"]["X"]), example["outputs"]
    return attention.scaled_scores(X @ np.asarray(o["W_Q_next"]), X @ np.asarray(o["W_K_next"]))


def descent_claim(example):
    """The entry of dS̃ the page works out (the row with the largest weight, at that weight's key) and what the
    step did to its score: -> i, j, the scores before and after, and how many of all the scores moved against
    the sign of their gradient. A BuildError if the cited score did not move against its gradient, since the
    page says it does."""
    s, tokens = example["steps"], example["tokens"]
    A, dS = np.asarray(s["weights"]), np.asarray(s["dS"])
    i, j = np.unravel_index(np.argmax(A), A.shape)
    before, after = np.asarray(s["scaled_scores"]), scaled_scores_after(example)
    against = np.sign(after - before) == -np.sign(dS)
    if dS[i, j] == 0 or not against[i, j]:
        raise BuildError(
            f"ex-backprop-step: the score of ({tokens[i]!r}, {tokens[j]!r}) went from {before[i, j]:.3f} to "
            f"{after[i, j]:.3f} with a gradient of {dS[i, j]:+.4f}: the step did not move it against its gradient, "
            "as the page says it does")
    return {"i": int(i), "j": int(j), "before": before, "after": after, "against": int(against.sum()),
            "total": against.size}


PRINTED_DIGITS = {"A": 4, "dA": 4, "dQ": 4, "dK": 4, "dV": 3, "dX": 3}  # as the page's tables print them


def dx_by_hand(example):
    """The entry of dX the page works out (the largest in size) from the printed rows of dQ, dK and dV and the
    projections' one-decimal rows: -> i, a, per path the printed factors and their exact sum, and the total.
    A BuildError if that total, rounded as the dX table prints, is not the table's entry."""
    s, i_ = example["steps"], example["inputs"]
    dX = np.asarray(s["dX"])
    i, a = np.unravel_index(np.argmax(np.abs(dX)), dX.shape)
    paths = []
    for part in "QKV":
        row = [by_hand(g, PRINTED_DIGITS[f"d{part}"]) for g in np.asarray(s[f"d{part}"])[i]]
        weights = [by_hand(w, 1) for w in np.asarray(i_[f"W_{part}"])[a]]
        paths.append({"part": part, "terms": list(zip(row, weights)), "sum": sum(g[1] * w[1] for g, w in zip(row, weights))})
    total = sum(path["sum"] for path in paths)
    printed = num(dX[i, a], PRINTED_DIGITS["dX"])
    if num(float(total), PRINTED_DIGITS["dX"]) != printed:
        raise BuildError(f"ex-backprop-step: dX's entry ({i + 1}, {a + 1}) redone from the printed numbers is {total}, "
                         f"which does not print as the table's {printed}")
    return {"i": int(i), "a": int(a), "paths": paths, "total": total}


def dx_snippets(example):
    """The projections (one decimal each: the numbers themselves), dX as a table, and its largest entry worked out
    as the sum of its three paths from the printed numbers (`dx_by_hand`)."""
    tokens, d_k = example["tokens"], example["d_k"]
    d_model = np.shape(example["inputs"]["X"])[1]
    projections = "\n".join(matrix(example["inputs"][f"W_{part}"], dims("", d_model), dims("", d_k), corner=f"$W_{part}$",
                                    digits=1) for part in "QKV")
    worked = dx_by_hand(example)
    i, a = worked["i"], worked["a"]
    exact = lambda value: num(float(value), max(-value.normalize().as_tuple().exponent, 0))  # noqa: E731
    # one column per path, one row per term c of its dot product: narrow enough for a phone, and a table, where
    # three long display formulas ran past the column and cost the page's DOM a MathML element per symbol
    # c counts a vector's entries (Home); k is a key
    columns = ["c", *(WORDS.line("ex-backprop-step-dx/via-column", part=part) for part in "QKV")]
    factor = lambda text: f"({text})" if text.startswith("−") else text  # noqa: E731  −0.1120 · (−0.4)
    rows = [[str(c + 1), *(f"{g[0]} · {factor(w[0])}" for g, w in (path["terms"][c] for path in worked["paths"]))]
            for c in range(d_k)]
    rows.append([WORDS.line("ex-backprop-step-dx/sum-row"), *(exact(path["sum"]) for path in worked["paths"])])
    total = " + ".join(factor(exact(path["sum"])) for path in worked["paths"])  # a + (−b) + c, as the site writes sums
    return {
        "projections": projections,
        "dX": (
            matrix(example["steps"]["dX"], tokens, dims("", d_model), corner="dX", digits=PRINTED_DIGITS["dX"])
            # plain words where TeX would do: the page is at its budget of DOM elements, and MathML costs one a symbol
            + "\n" + WORDS.fill("ex-backprop-step-dx", row=i + 1, token=tokens[i], column=a + 1) + "\n\n"
            + table(columns, rows)
            # plain text, not TeX: a formula this long does not wrap, and ran past a phone's screen
            + "\n" + WORDS.fill("ex-backprop-step-dx/sums", sums=total, total=exact(worked["total"]),
                                printed=num(example["steps"]["dX"][i][a], PRINTED_DIGITS["dX"])) + "\n"
        ),
    }


def backprop_snippets(example):
    """Each intermediate as a table, and one entry of dS̃ worked out from the printed numbers, with the
    direction the descent step moved its score, checked (`descent_claim`)."""
    s, tokens = example["steps"], example["tokens"]
    A, dA, dS = np.array(s["weights"]), np.array(s["dW"]), np.array(s["dS"])
    columns = dims("", example["d_k"])

    def by_dims(values, corner, digits=3):
        return matrix(values, tokens, columns, corner=corner, digits=digits)

    def by_keys(values, corner, digits=3):
        return matrix(values, tokens, tokens, corner=corner, digits=digits)

    descent = descent_claim(example)
    i, j = descent["i"], descent["j"]  # the row with the largest weight, and the key it gives it to
    pull = (dA[i] * A[i]).sum()
    # the worked line's factors with the digits the A and dA tables print them with, so a learner finds each there
    terms = " + ".join(f"{latex_number(dA[i, k], PRINTED_DIGITS['dA'])} \\cdot {latex_number(A[i, k], PRINTED_DIGITS['A'])}"
                       for k in range(len(tokens)))
    rate = num(example["learning_rate"], 2)
    gradient = dS[i, j]
    sign = WORDS.line("ex-backprop-step-ds/positive" if gradient > 0 else "ex-backprop-step-ds/negative")
    before, after = descent["before"][i, j], descent["after"][i, j]
    moved = (WORDS.line("ex-backprop-step-step/each") if descent["against"] == descent["total"] else
             WORDS.line("ex-backprop-step-step/some", against=descent["against"]))
    claim(example["outputs"]["loss_next"] < s["loss"], "ex-backprop-step", "the step makes the loss drop")
    return {
        **dx_snippets(example),
        "inputs": (
            matrix(example["inputs"]["X"], tokens, dims("", np.shape(example["inputs"]["X"])[1]), corner="X", digits=0)
            + "\n" + by_dims(s["Q"], "Q", 1) + "\n" + by_dims(s["K"], "K", 1)
            + "\n" + by_keys(s["scaled_scores"], SCALED, 3)
        ),
        "forward": (
            by_keys(A, "A", PRINTED_DIGITS["A"]) + "\n" + by_dims(s["V"], "V", 1) + "\n"
            + by_dims(example["outputs"]["out"], "O") + "\n" + by_dims(example["inputs"]["target"], "T", 1)
            + "\n" + WORDS.fill("ex-backprop-step-forward", loss=latex_number(s["loss"], 4)) + "\n"
        ),
        "dO": by_dims(s["dO"], "dO"),
        "dV": by_dims(s["dV"], "dV", PRINTED_DIGITS["dV"]),
        "dW": by_keys(dA, "dA", PRINTED_DIGITS["dA"]),
        "dS": (
            by_keys(dS, f"d{SCALED}", 4)
            # the weighted average on a line of its own (inline, it ran 100 px past a phone's screen), last, so the
            # paragraph stays one: the page is at its budget of elements
            + "\n" + WORDS.fill("ex-backprop-step-ds", row=i + 1, token=tokens[i], key=tokens[j],
                                weight=latex_number(A[i, j], PRINTED_DIGITS["A"]),
                                gradient_in=latex_number(dA[i, j], PRINTED_DIGITS["dA"]), pull=latex_number(pull, 3),
                                gradient=latex_number(gradient, 3), direction=sign, terms=terms) + "\n"
        ),
        "dQ": by_dims(s["dQ"], "dQ", PRINTED_DIGITS["dQ"]),
        "dK": by_dims(s["dK"], "dK", PRINTED_DIGITS["dK"]),
        "step": WORDS.fill(
            "ex-backprop-step-step", rate=rate, loss=num(s["loss"], 4),
            loss_next=num(example["outputs"]["loss_next"], 4),
            query=tokens[i], key=tokens[j], row=i + 1, column=j + 1, before=num(before, 3), after=num(after, 3),
            direction=WORDS.line("ex-backprop-step-step/down" if after < before else "ex-backprop-step-step/up"),
            moved=moved, total=descent["total"]) + "\n",
    }


EX_BACKPROP = Example("ex-backprop-step", title=WORDS.line("ex-backprop-step-title"),
                      data=backprop_step, snippets=backprop_snippets)

# ---------------------------------------------------------------- the training run

MAIN = training.Run(seed=0, d_k=8, steps=120)
CHECKPOINTS = (0, 10, 20, 30, 45, 120)
SHOWN_SEED = 99  # the sequence the heatmap follows


def shown_tokens():
    return np.random.default_rng(SHOWN_SEED).integers(0, training.VOCAB, size=training.N_POSITIONS)


# What every run of this page is trained with, besides its own Run: recorded with the committed data
SETTINGS = {"vocab": training.VOCAB, "n_positions": training.N_POSITIONS, "batch": training.BATCH, "adam": training.ADAM}


def train_main():
    run = training.train(MAIN, checkpoints=CHECKPOINTS)
    return {**run, "snapshots": {str(done): params for done, params in run["snapshots"].items()}}


MAIN_RUN = Trained("learning-main", spec={"run": vars(MAIN), "checkpoints": CHECKPOINTS, **SETTINGS}, train=train_main)


@functools.cache
def main_run():
    """The training history of MAIN and its parameters at CHECKPOINTS (data/trained/learning-main.json)."""
    data = MAIN_RUN.load()
    return {**data, "snapshots": {int(done): params for done, params in data["snapshots"].items()}}


def checkpoints_example():
    """The shown sequence's attention at each checkpoint: checkpoints on the leading axis."""
    tokens = shown_tokens()
    X = training.embed(tokens)
    snapshots = main_run()["snapshots"]
    per_step = [training.forward(snapshots[c], X, None) for c in CHECKPOINTS]
    Q, K, V, out, weights = (np.stack(parts) for parts in zip(*per_step))  # (checkpoints, n, ·)
    words = [training.TOKENS[t] for t in tokens]
    return {
        "seed": MAIN.seed,
        "tokens": [training.TOKENS[t] for t in tokens],
        **key_size(MAIN.d_k),
        "checkpoints": list(CHECKPOINTS),
        # the caption's and the slider's "after 20 steps" (checkpoints count the updates done: 0 is before training),
        # and the caption the interactive figure shows at each checkpoint
        "leading_axis": {"name": WORDS.line("ex-learning-checkpoints/axis-name"),
                         "labels": [WORDS.line("ex-learning-checkpoints/axis-label", steps=c) for c in CHECKPOINTS],
                         "captions": {"weights": [checkpoint_caption(words, c, w) for c, w in zip(CHECKPOINTS, weights)]}},
        "inputs": {"X": X},
        "steps": {"Q": Q, "K": K, "V": V, "scores": attention.scores(Q, K), "scaled_scores": attention.scaled_scores(Q, K),
                  "weights": weights, "entropy": attention.row_entropy(weights)},
        "outputs": {"out": out, "weights": weights},
    }


EX_CHECKPOINTS = Example("ex-learning-checkpoints",
                         title=WORDS.line("ex-learning-checkpoints-title"),
                         data=checkpoints_example)

SHOWN_PANELS = (0, 20, 30, 120)  # of CHECKPOINTS, drawn side by side in the static figure


def checkpoints_render(example, fig):
    axes = fig.subplots(2, len(SHOWN_PANELS) // 2).flat  # two by two: each keeps a readable size on a phone
    drawn = []
    for ax, step in zip(axes, SHOWN_PANELS):
        c = example["checkpoints"].index(step)
        drawn.append(heatmap(ax, example["steps"]["weights"][c], example["tokens"], example["tokens"],
                             quantity="weights", panel=f"step{step}",
                             title=WORDS.line("learning-checkpoints/panel-title", steps=step),
                             show_values=False, colorbar=False, as_image=True))
    return drawn


def brightness():
    """How the weights' colours read: heatmap.py's WEIGHT_CMAP, viridis."""
    return WORDS.line("learning-checkpoints/brightness")


def checkpoint_caption(tokens, step, weights):
    """The interactive figure's caption while it shows the checkpoint at `step` as the build computed it."""
    return WORDS.line("ex-learning-checkpoints-caption", tokens=" ".join(tokens), steps=step, brightness=brightness(),
                      checkpoints=listed(map(str, CHECKPOINTS)),
                      weight=num(training.previous_token_weight(np.asarray(weights)), 2))


def checkpoints_caption(example):
    """The static figure's caption (the print edition's, and the page's without JavaScript)."""
    target = listed([num(training.previous_token_weight(w), 2) for w in np.asarray(example["steps"]["weights"])],
                    "comma")
    return WORDS.line("learning-checkpoints-caption", tokens=" ".join(example["tokens"]),
                      shown=listed(map(str, SHOWN_PANELS)), brightness=brightness(),
                      checkpoints=listed(map(str, example["checkpoints"])), weights=target)


def checkpoints_table(example):
    return [
        {"caption": WORDS.line("learning-checkpoints-table", steps=step),
         "columns": [WORDS.line("learning-checkpoints-table/corner"), *example["tokens"]],
         "rows": [[t, *row] for t, row in zip(example["tokens"], example["steps"]["weights"][c])]}
        for c, step in enumerate(example["checkpoints"])
    ]


def checkpoints_alt(example):
    weights = np.asarray(example["steps"]["weights"])
    n = weights.shape[-1]
    claim((weights[-1, 1:].argmax(axis=-1) == np.arange(n - 1)).all(), "learning-checkpoints",
          "after the last step every row after the first has its largest weight just left of the diagonal")
    claim(training.previous_token_weight(weights[0]) < 0.5, "learning-checkpoints",
          "before training the weights are scattered (less than half of each row on the previous token, on average)")
    return WORDS.line("learning-checkpoints-alt", panels=len(SHOWN_PANELS), n=len(example["tokens"]),
                      tokens=" ".join(example["tokens"]), steps=SHOWN_PANELS[-1])


def trim_ticks(axes):
    """Stacked panels sharing their steps: the step ticks only under the bottom one, and no minor ticks on a
    log axis (each tick is an element of the page's DOM)."""
    for ax in axes[:-1]:
        ax.tick_params(axis="x", which="both", bottom=False)
    for ax in axes:
        ax.yaxis.set_minor_locator(matplotlib.ticker.NullLocator())


SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def power_of_ten(value, _position):
    """A log axis's tick label, 10⁻²⁷, as plain text: one SVG element where mathtext's 10^{-27} makes six."""
    return "10" + str(round(np.log10(value))).translate(SUPERSCRIPT)


def history_render(data, fig):
    loss_ax, match_ax, grad_ax = fig.subplots(3, 1, sharex=True)
    steps = np.arange(1, MAIN.steps + 1)  # counted from 1, as the page counts them
    loss_ax.plot(steps, data["loss"])
    loss_ax.set_ylabel(WORDS.line("learning-history/loss-axis"))
    loss_ax.set_ylim(0, np.log(training.VOCAB) * 1.2)
    loss_ax.axhline(np.log(training.VOCAB), color="#9e9e9e", linestyle=":", linewidth=1)
    loss_ax.text(steps[-1], np.log(training.VOCAB), WORDS.line("learning-history/guessing", vocab=training.VOCAB),
                 ha="right", va="bottom")
    match_ax.plot(steps, data["match"])
    match_ax.set_ylim(0, 1.05)
    # plain text: one SVG element, where mathtext makes 13
    match_ax.set_ylabel(WORDS.line("learning-history/match-axis"))
    grad_ax.plot(steps, data["grad_W_Q"])
    grad_ax.set_ylabel(r"$\|dW_Q\|$")
    grad_ax.set_xlabel(WORDS.line("learning-history/step-axis"))
    for ax in (loss_ax, match_ax, grad_ax):
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    trim_ticks((loss_ax, match_ax, grad_ax))


def history_caption(data):
    return WORDS.line("learning-history-caption", batch=training.BATCH)


def history_alt(data):
    history_claims(data)
    return WORDS.line("learning-history-alt", steps=MAIN.steps, loss_first=num(data["loss"][0], 2),
                      loss_last=num(data["loss"][-1], 3), match_first=num(data["match"][0], 2),
                      match_last=num(data["match"][-1], 3), gradient_first=num(data["grad_W_Q"][0], 3),
                      gradient_peak=num(data["grad_W_Q"].max(), 3), gradient_last=num(data["grad_W_Q"][-1], 5))


def history_table(data):
    return {
        "caption": WORDS.line("learning-history-table"),
        "columns": [WORDS.line("learning-history-table/step-column"), WORDS.line("learning-history-table/loss-column"),
                    WORDS.line("learning-history-table/match-column"), "‖dW_Q‖"],
        "rows": [[s, f"{data['loss'][s - 1]:.4f}", f"{data['match'][s - 1]:.4f}", f"{data['grad_W_Q'][s - 1]:.5f}"]
                 for s in history_table_steps()],
    }


def history_table_steps():
    """The steps the table shows, counted from 1: the first, every fifth and the last (which the page's sentence on
    the gradient cites). Row s - 1 of the history is step s."""
    return sorted({1, *range(5, MAIN.steps + 1, 5), MAIN.steps})


def history_claims(data):
    """What the page says about the run: the loss falls, the weight on i − 1 rises past 0.9, and the gradient at
    W_Q grows while the pattern forms, peaks inside the run and shrinks. -> the step of the peak."""
    grad = np.asarray(data["grad_W_Q"])
    peak = int(np.argmax(grad))
    claim(data["loss"][-1] < data["loss"][0], "learning-history", "the loss falls")
    claim(data["match"][-1] > 0.9 > data["match"][0], "learning-history", "the weight on i − 1 rises past 0.9")
    claim(0 < peak < len(grad) - 1 and grad[-1] < grad[peak] and grad[0] < grad[peak], "learning-history",
          "the gradient at W_Q grows, then shrinks")
    return peak


def history_snippets(data):
    reached = training.first_step_below(-data["match"], -0.9)  # counted from 1
    peak = history_claims(data)
    return {
        "gradient": WORDS.fill("learning-history-gradient", first=num(data["grad_W_Q"][0], 3),
                               peak=num(data["grad_W_Q"][peak], 3), peak_step=peak + 1,
                               last=f"{data['grad_W_Q'][-1]:.5f}", steps=MAIN.steps) + "\n",
        "numbers": WORDS.fill("learning-history-numbers", steps=MAIN.steps, match=num(data["match"][-1], 3),
                              reached=reached, loss_first=num(data["loss"][0], 3),
                              uniform=num(np.log(training.VOCAB), 3), vocab=training.VOCAB,
                              loss_last=num(data["loss"][-1], 3)) + "\n",
    }


# ---------------------------------------------------------------- √d_k, tested by training

WIDE_D_K = 128
SEEDS = range(5)
WIDE_STEPS = 300
THRESHOLD = 0.1  # nats: "learned"
LATE = 50  # the last steps, over which the gradient at W_Q is summarised by its median


def train_experiment():
    """Each seed trained at d_k = WIDE_D_K with and without the 1/√d_k scale: (seeds, steps) curves."""
    result = {}
    for scaled in (True, False):
        runs = [training.train(training.Run(seed, WIDE_D_K, scaled, WIDE_STEPS)) for seed in SEEDS]
        label = "scaled" if scaled else "unscaled"
        for key in ("loss", "match", "grad_W_Q", "entropy"):
            result[f"{key}_{label}"] = np.stack([run[key] for run in runs])
    return result


EXPERIMENT = Trained("learning-scale", spec={"d_k": WIDE_D_K, "seeds": list(SEEDS), "steps": WIDE_STEPS, **SETTINGS},
                         train=train_experiment)
TRAINED = [MAIN_RUN, EXPERIMENT]  # `make train` trains them; the build reads data/trained/


@functools.cache
def experiment():
    """The committed curves of `train_experiment` (data/trained/learning-scale.json)."""
    return EXPERIMENT.load()


def summary(data, label):
    """Per seed: final loss, first step with loss < THRESHOLD (None: never), final weight on i − 1."""
    return {
        "final": data[f"loss_{label}"][:, -1],
        "reached": [training.first_step_below(curve, THRESHOLD) for curve in data[f"loss_{label}"]],
        "match": data[f"match_{label}"][:, -1],
        "late_grad": np.median(data[f"grad_W_Q_{label}"][:, -LATE:], axis=1),
    }


BAND_STEP = 3  # the bands' resolution in steps: 2.5 CSS px on a desktop, a third of the path data


def band(curves):
    """The band's outline at every BAND_STEP-th step: from the lowest to the highest seed over the steps
    around it (those within BAND_STEP − 1), so the band still holds every seed's curve at every step."""
    lows, highs = curves.min(axis=0), curves.max(axis=0)
    at = np.arange(0, len(lows) + BAND_STEP - 1, BAND_STEP).clip(max=len(lows) - 1)
    at = np.unique(at)
    window = [slice(max(s - BAND_STEP + 1, 0), s + BAND_STEP) for s in at]
    return at, [lows[w].min() for w in window], [highs[w].max() for w in window]


def experiment_render(data, fig):
    axes = fig.subplots(3, 1, sharex=True)
    steps = np.arange(1, WIDE_STEPS + 1)  # counted from 1, as the page counts them
    for label, name, color in (("scaled", WORDS.line("learning-scale/scaled-legend"), "C0"),
                               ("unscaled", WORDS.line("learning-scale/unscaled-legend"), "C1")):
        for ax, key in zip(axes, ("loss", "grad_W_Q", "entropy")):
            curves = data[f"{key}_{label}"]
            at, lows, highs = band(curves)
            ax.fill_between(at + 1, lows, highs, color=color, alpha=0.25, linewidth=0)  # row at is step at + 1
            ax.plot(steps, np.median(curves, axis=0), color=color, label=name)
    axes[0].set_ylabel(WORDS.line("learning-scale/loss-axis"))
    axes[1].set_ylabel(r"$\|dW_Q\|$")
    axes[1].set_yscale("log")
    axes[1].yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(power_of_ten))
    axes[2].set_ylabel(WORDS.line("learning-scale/entropy-axis"))
    axes[2].set_xlabel(WORDS.line("learning-scale/step-axis"))
    axes[0].legend(frameon=False)
    for ax in axes:
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    trim_ticks(axes)


def experiment_caption(data):
    return WORDS.line("learning-scale-caption", d_k=WIDE_D_K, first_seed=SEEDS.start, last_seed=SEEDS.stop - 1,
                      band_step=BAND_STEP)


def experiment_alt(data):
    scaled, unscaled = summary(data, "scaled"), summary(data, "unscaled")
    return WORDS.line("learning-scale-alt", steps=WIDE_STEPS,
                      entropy_scaled=num(np.median(data["entropy_scaled"][:, 0]), 3),
                      entropy_unscaled=num(np.median(data["entropy_unscaled"][:, 0]), 3),
                      loss_scaled=num(np.median(scaled["final"]), 4),
                      loss_unscaled=num(np.median(unscaled["final"]), 4))


def experiment_table(data):
    rows = []
    for label, name in (("scaled", WORDS.line("learning-scale-table/scaled")),
                        ("unscaled", WORDS.line("learning-scale-table/unscaled"))):
        s = summary(data, label)
        for seed, final, reached, match in zip(SEEDS, s["final"], s["reached"], s["match"]):
            rows.append([name, seed, f"{final:.4f}",
                         WORDS.line("learning-scale-table/never") if reached is None else reached, f"{match:.3f}",
                         f"{data[f'entropy_{label}'][seed, 0]:.3f}", f"{data[f'grad_W_Q_{label}'][seed, 0]:.4f}"])
    return {
        "caption": WORDS.line("learning-scale-table", d_k=WIDE_D_K),
        "columns": [WORDS.line("learning-scale-table/scale-column"), WORDS.line("learning-scale-table/seed-column"),
                    WORDS.line("learning-scale-table/loss-column", steps=WIDE_STEPS),
                    WORDS.line("learning-scale-table/reached-column", threshold=str(THRESHOLD)),
                    WORDS.line("learning-scale-table/match-column"), WORDS.line("learning-scale-table/entropy-column"),
                    WORDS.line("learning-scale-table/gradient-column")],
        "rows": rows,
    }


def spread(values, digits):
    """The median over the seeds, then the lowest and the highest seed's value in brackets: every number printed
    is one a run reached (mean ± half the range implied values no run had, a negative loss among them)."""
    values = np.asarray(values, dtype=float)
    return WORDS.line("learning-scale/spread", median=num(np.median(values), digits), lowest=num(values.min(), digits),
                      highest=num(values.max(), digits))


def power(value):
    """A positive number that may be many powers of ten from 1, as 1.4e−06."""
    return f"{value:.1e}".replace("-", "−")


def spread_log(values):
    """The smallest and the largest of some positive numbers that span many powers of ten: "a to b"."""
    return WORDS.line("learning-scale/range", lowest=power(np.min(values)), highest=power(np.max(values)))


def scale_story(data):
    """What the runs measured, as the √d_k story on learning/ and scaling/ tells it: the step-1 row entropy and
    gradient at W_Q, how many runs got their loss below THRESHOLD and how fast. Each sentence the story prints is a
    claim checked here (a BuildError when the runs stop showing it), worded to hold on any CPU: one unscaled seed
    sits one-hot on a wrong key for most of its steps, and whether it lets go within WIDE_STEPS depends on the last
    bits of the arithmetic, so the pages promise only that at most one run of each kind never gets there."""
    sc, un = summary(data, "scaled"), summary(data, "unscaled")
    start = lambda key: data[key][:, 0]  # noqa: E731  each seed's value at step 1, before any update
    claim(np.median(start("entropy_unscaled")) < np.median(start("entropy_scaled")), "learning-scale",
          "the unscaled rows start nearer one-hot (a lower entropy) than the scaled ones")
    claim(start("grad_W_Q_unscaled").min() > start("grad_W_Q_scaled").max(), "learning-scale",
          "at step 1 the gradient reaching W_Q is larger without the scale, every unscaled run's above every scaled run's")
    reached = {label: [r for r in s["reached"] if r is not None] for label, s in (("scaled", sc), ("unscaled", un))}
    runs = len(SEEDS)
    claim(len(reached["scaled"]) == runs, "learning-scale",
          f"every scaled run gets its loss below {THRESHOLD} within {WIDE_STEPS} steps")
    claim(len(reached["unscaled"]) >= runs - 1, "learning-scale",
          f"most unscaled runs (all but at most one) get their loss below {THRESHOLD} within {WIDE_STEPS} steps")
    # the medians as the pages print them (whole steps), so the ratio and the comparison follow from the printed numbers
    steps = {label: float(num(np.median(r), 0)) for label, r in reached.items()}
    claim(steps["unscaled"] > steps["scaled"], "learning-scale",
          "the unscaled runs take longer to get their loss below the threshold (a larger median step)")
    gradient = {label: float(num(np.median(start(f"grad_W_Q_{label}")), 4)) for label in ("scaled", "unscaled")}
    return {
        "runs": runs,
        "entropy": {label: float(np.median(start(f"entropy_{label}"))) for label in ("scaled", "unscaled")},
        "gradient": gradient, "gradient_ratio": gradient["unscaled"] / gradient["scaled"],
        "reached": {label: len(r) for label, r in reached.items()},
        "steps": steps, "steps_ratio": steps["unscaled"] / steps["scaled"],
        "slowest": {label: max(r) for label, r in reached.items()},
    }


def story_snippet(story):
    """learning-scale-story.md: the paragraph both learning/ and scaling/ end their √d_k story with."""
    runs, reached, steps, slowest = story["runs"], story["reached"], story["steps"], story["slowest"]
    gradient, entropy = story["gradient"], story["entropy"]
    every = reached["unscaled"] == runs
    return WORDS.fill(
        "learning-scale-story", d_k=WIDE_D_K, runs=runs, threshold=str(THRESHOLD), wide_steps=WIDE_STEPS,
        entropy_unscaled=num(entropy["unscaled"], 3), entropy_scaled=num(entropy["scaled"], 3),
        gradient_unscaled=num(gradient["unscaled"], 4), gradient_scaled=num(gradient["scaled"], 4),
        gradient_ratio=num(story["gradient_ratio"], 2),
        steps_unscaled=num(steps["unscaled"], 0), steps_scaled=num(steps["scaled"], 0),
        steps_ratio=num(story["steps_ratio"], 2),
        unscaled_reached=(WORDS.fill("learning-scale-story/every-reached") if every else
                          WORDS.fill("learning-scale-story/some-reached", reached=reached["unscaled"], runs=runs)),
        slowest=(str(slowest["unscaled"]) if every else
                 WORDS.fill("learning-scale-story/slowest-of-those", steps=str(slowest["unscaled"]))),
        slowest_scaled=str(slowest["scaled"]),
        who_learned=WORDS.fill("learning-scale-story/every-run" if every else "learning-scale-story/most-runs"))


def recap_snippet(story):
    """learning-scale-recap.md: scaling/'s recap line on what training without the scale did. It promises what
    `scale_story` checked (how many unscaled runs got there, a larger median step count), never a run-by-run
    "more slowly": some unscaled seeds got there before some scaled ones."""
    runs, reached, steps = story["runs"], story["reached"]["unscaled"], story["steps"]
    claim(steps["unscaled"] > steps["scaled"], "learning-scale",
          "the unscaled runs' median step count is larger than the scaled runs'")
    who = (WORDS.fill("learning-scale-recap/all", runs=runs) if reached == runs else
           WORDS.fill("learning-scale-recap/some", reached=reached, runs=runs))
    return WORDS.fill("learning-scale-recap", who=who, steps_unscaled=num(steps["unscaled"], 0),
                      steps_scaled=num(steps["scaled"], 0))


def experiment_snippets(data):
    sc, un = summary(data, "scaled"), summary(data, "unscaled")
    story = scale_story(data)
    outcome, mechanics = [], []
    for label, name, s in (("scaled", WORDS.line("learning-scale-numbers/scaled"), sc),
                           ("unscaled", WORDS.line("learning-scale-numbers/unscaled"), un)):
        reached = [r for r in s["reached"] if r is not None]
        outcome.append([name, spread(s["final"], 4), spread(reached, 0) if reached else "—",
                        WORDS.line("learning-scale-numbers/reached", reached=len(reached), runs=len(s["reached"])),
                        spread(s["match"], 3)])
        mechanics.append([name, spread(data[f"entropy_{label}"][:, 0], 3), spread(data[f"grad_W_Q_{label}"][:, 0], 4),
                          spread_log(s["late_grad"])])
    # "Once one-hot and right": the runs whose loss got below THRESHOLD by step WIDE_STEPS - LATE, before the last
    # LATE steps began (steps count from 1, as `first_step_below` returns them). A run
    # that gets there inside those steps still has a large gradient in them (an unscaled run can sit one-hot on
    # the wrong key for most of its steps, and when it lets go depends on the last bits of the arithmetic, so on
    # the CPU: one seed gets there at step 279 on one machine and never on another).
    settled = {label: [k for k, r in enumerate(s["reached"]) if r is not None and r <= WIDE_STEPS - LATE]
               for label, s in (("scaled", sc), ("unscaled", un))}
    claim(settled["unscaled"] and settled["scaled"], "learning-scale",
          f"some runs of each kind have a loss below {THRESHOLD} by step {WIDE_STEPS - LATE}")
    un_late, sc_late = un["late_grad"][settled["unscaled"]], sc["late_grad"][settled["scaled"]]
    # each left-out run is a whole sentence, one section per kind of run and reason
    never_section = {"unscaled": "learning-scale-details/unscaled-never", "scaled": "learning-scale-details/scaled-never"}
    late_section = {"unscaled": "learning-scale-details/unscaled-late", "scaled": "learning-scale-details/scaled-late"}
    left_out = [
        WORDS.line(never_section[label], seed=SEEDS[k], threshold=str(THRESHOLD)) if r is None else
        WORDS.line(late_section[label], seed=SEEDS[k], threshold=str(THRESHOLD), step=r, late=LATE,
                   gradient=power(s["late_grad"][k]))
        for label, s in (("unscaled", un), ("scaled", sc))
        for k, r in enumerate(s["reached"]) if k not in settled[label]
    ]
    claim(un_late.max() < sc_late.min(), "learning-scale",
          "once one-hot, the unscaled runs' late gradient at W_Q is below every scaled run's")
    un_never = len(un["reached"]) - story["reached"]["unscaled"]
    numbers = (
        WORDS.fill("learning-scale-numbers", first_seed=SEEDS.start, last_seed=SEEDS.stop - 1) + "\n\n"
        + table([WORDS.line("learning-scale-numbers/scale-column"),
                 WORDS.line("learning-scale-numbers/loss-column", steps=WIDE_STEPS),
                 WORDS.line("learning-scale-numbers/steps-column", threshold=str(THRESHOLD)),
                 WORDS.line("learning-scale-numbers/reached-column"),
                 WORDS.line("learning-scale-numbers/match-column")],
                outcome)
    )
    never = [WORDS.line("learning-scale-details/never-reached-run", seed=seed, match=num(match, 3),
                        gradient=power(un["late_grad"][seed]), late=LATE)
             for seed, reached, match in zip(SEEDS, un["reached"], un["match"]) if reached is None]
    details = WORDS.fill(
        "learning-scale-details",
        outcome=(WORDS.line("learning-scale-details/never-reached", steps=WIDE_STEPS,
                            runs=listed(never, "semicolon")) if un_never else
                 WORDS.line("learning-scale-details/every-reached", steps=WIDE_STEPS)),
        late=LATE,
        which_runs=(WORDS.line("learning-scale-details/each-unscaled-run") if not left_out else
                    WORDS.line("learning-scale-details/each-settled-run", threshold=str(THRESHOLD),
                               step=WIDE_STEPS - LATE, unscaled=len(settled["unscaled"]),
                               scaled=len(settled["scaled"]))),
        unscaled_lowest=power(un_late.min()), unscaled_highest=power(un_late.max()),
        scaled_lowest=power(sc_late.min()), scaled_highest=power(sc_late.max()))
    for sentence in left_out:  # the words put one sentence after another (a space in English)
        details = WORDS.line("learning-scale-details/next-sentence", text=details, sentence=sentence)
    details += "\n"
    # collapsed on the page (its summary says what it holds): the paragraphs above cite its numbers
    mechanics = table([WORDS.line("learning-scale-mechanics/scale-column"),
                       WORDS.line("learning-scale-mechanics/entropy-column"),
                       WORDS.line("learning-scale-mechanics/gradient-column"),
                       WORDS.line("learning-scale-mechanics/late-column", late=LATE)], mechanics)
    return {"numbers": numbers, "story": story_snippet(story), "recap": recap_snippet(story), "details": details,
            "mechanics": mechanics}


# ---------------------------------------------------------------- the page as a notebook

def notebook_cells():
    """The backward step of ex-backprop-step, each gradient in the page's notation and checked against the
    library; then the committed training run's checkpoints (ex-learning-checkpoints), read as the page reads them."""
    return [
        *sentences.notebook_cells("SHORT"),
        markdown(WORDS.fill("nb-forward")),
        code("""
            example = self_attention_example(SHORT)
            tokens = example["tokens"]
            X, W_Q, W_K, W_V = (example["inputs"][name] for name in ("X", "W_Q", "W_K", "W_V"))
            Q, K, V, A = (example["steps"][name] for name in ("Q", "K", "V", "weights"))
            O = example["outputs"]["out"]

            fig, ax = plt.subplots(figsize=(3.6, 3))
            heatmap(ax, A, tokens, tokens, quantity="weights")
            plt.show()"""),
        markdown(WORDS.fill("nb-target")),
        source(backprop_target),
        code("""
            T = backprop_target(SHORT)
            loss = 0.5 * ((O - T) ** 2).sum()  # half the squared distance
            print("T =", T, sep="\\n")
            print("loss:", round(loss, 4))"""),
        markdown(WORDS.fill("nb-values")),
        code("""
            dO = O - T  # the gradient of ½‖O − T‖² at O
            dV = A.T @ dO  # (n, n) x (n, d_k) -> (n, d_k)
            dA = dO @ V.T  # (n, d_k) x (d_k, n) -> (n, n)
            dA"""),
        markdown(WORDS.fill("nb-softmax")),
        code("""
            dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
            assert np.allclose(dS, attention.softmax_backward(A, dA), rtol=0, atol=1e-12)
            assert np.allclose(dS.sum(axis=1), 0, rtol=0, atol=1e-12)  # each row of dS̃ sums to 0

            fig, ax = plt.subplots(figsize=(3.6, 3))
            heatmap(ax, dS, tokens, tokens, quantity="scores", title="dS̃ (red: positive)", colorbar=False)
            plt.show()"""),
        markdown(WORDS.fill("nb-queries")),
        code("""
            scale = example["scale"]  # 1/√d_k
            dQ = dS @ K * scale  # (n, n) x (n, d_k) -> (n, d_k)
            dK = dS.T @ Q * scale
            dW_Q, dW_K, dW_V = X.T @ dQ, X.T @ dK, X.T @ dV  # (d_model, n) x (n, d_k) -> (d_model, d_k)
            dX = dQ @ W_Q.T + dK @ W_K.T + dV @ W_V.T  # each row of X feeds a query, a key and a value

            library = attention.self_attention_backward(X, W_Q, W_K, W_V, dO)
            for name, mine in (("Q", dQ), ("K", dK), ("V", dV), ("W_Q", dW_Q), ("W_K", dW_K), ("W_V", dW_V), ("X", dX)):
                assert np.allclose(mine, library[name], rtol=0, atol=1e-12), name
            dW_Q"""),
        markdown(WORDS.fill("nb-finite-difference")),
        code("""
            def loss_with(W_Q):
                O, _ = attention.attend(X @ W_Q, X @ W_K, X @ W_V)
                return 0.5 * ((O - T) ** 2).sum()

            row, c, eps = 0, 0, 1e-5  # Python's indices: the page's row row + 1, column c + 1
            up, down = W_Q.copy(), W_Q.copy()
            up[row, c] += eps
            down[row, c] -= eps
            print(f"dW_Q[{row}, {c}] from the chain rule:   ", round(dW_Q[row, c], 6))
            print(f"dW_Q[{row}, {c}] from nudging the entry:", round((loss_with(up) - loss_with(down)) / (2 * eps), 6))"""),
        markdown(WORDS.fill("nb-step")),
        code(f"""
            learning_rate = {LEARNING_RATE!r}
            W_Q_next = W_Q - learning_rate * dW_Q
            W_K_next = W_K - learning_rate * dW_K
            W_V_next = W_V - learning_rate * dW_V
            O_next, _ = attention.attend(X @ W_Q_next, X @ W_K_next, X @ W_V_next)
            loss_next = 0.5 * ((O_next - T) ** 2).sum()
            print("loss before the step:", round(loss, 4), " after it:", round(loss_next, 4))"""),
        markdown(WORDS.fill("nb-backprop-example")),
        code("""
            backprop = {
                "learning_rate": learning_rate,
                "inputs": {**example["inputs"], "target": T},
                "steps": {**example["steps"], "loss": loss, "dO": dO, "dV": dV, "dW": dA, "dS": dS, "dQ": dQ,
                          "dK": dK, "dW_Q": dW_Q, "dW_K": dW_K, "dW_V": dW_V, "dX": dX},
                "outputs": {"out": O, "weights": A, "W_Q_next": W_Q_next, "W_K_next": W_K_next,
                            "W_V_next": W_V_next, "loss_next": loss_next},
            }"""),
        markdown(WORDS.fill("nb-run")),
        code("""
            from models.learning import N_POSITIONS, TOKENS, VOCAB, previous_token_weight
            from figures_src.pages.learning import CHECKPOINTS, MAIN, SHOWN_PANELS, main_run, shown_tokens

            run = main_run()  # the committed run, data/trained/learning-main.json, as the page reads it
            print(MAIN)
            print("checkpoints (updates done):", CHECKPOINTS)"""),
        markdown(WORDS.fill("nb-embed")),
        source(training.embed, training.forward),
        code("""
            ids = shown_tokens()  # the sequence the page's figure follows
            sequence = [TOKENS[t] for t in ids]
            X_run = embed(ids)  # (n, VOCAB + N_POSITIONS)
            print(" ".join(sequence))"""),
        markdown(WORDS.fill("nb-checkpoints")),
        code("""
            at = [forward(run["snapshots"][c], X_run, None) for c in CHECKPOINTS]
            Qs, Ks, Vs, Os, As = (np.stack(parts) for parts in zip(*at))  # checkpoints first: (checkpoints, n, ·)
            for c, weights in zip(CHECKPOINTS, As):
                print(f"after {c:3} steps: mean weight on the previous token {previous_token_weight(weights):.2f}")

            fig, axes = plt.subplots(2, 2, figsize=(7, 7))
            for ax, c in zip(axes.flat, SHOWN_PANELS):
                heatmap(ax, As[CHECKPOINTS.index(c)], sequence, sequence, quantity="weights",
                        title=f"after {c} steps", show_values=False, colorbar=c == SHOWN_PANELS[-1])  # one scale for all
            fig.tight_layout()
            plt.show()"""),
        markdown(WORDS.fill("nb-checkpoints-example")),
        code("""
            checkpoints = {
                "tokens": sequence,
                "checkpoints": list(CHECKPOINTS),
                "inputs": {"X": X_run},
                "steps": {"Q": Qs, "K": Ks, "V": Vs, "scores": attention.scores(Qs, Ks),
                          "scaled_scores": attention.scaled_scores(Qs, Ks), "weights": As,
                          "entropy": attention.row_entropy(As)},
                "outputs": {"out": Os, "weights": As},
            }"""),
    ]


ITEMS = [
    EX_BACKPROP,
    EX_CHECKPOINTS,
    Figure("learning-checkpoints", title=WORDS.line("learning-checkpoints-title"),
           data=EX_CHECKPOINTS.compute, render=checkpoints_render, caption=checkpoints_caption, alt=checkpoints_alt,
           table=checkpoints_table, size=(PHONE_WIDTH, 4.4), example=EX_CHECKPOINTS),
    Figure("learning-history", title=WORDS.line("learning-history-title"),
           data=main_run, render=history_render, caption=history_caption, alt=history_alt, table=history_table,
           size=(PHONE_WIDTH, 5.4), snippets=history_snippets),
    Figure("learning-scale", title=WORDS.line("learning-scale-title", d_k=WIDE_D_K),
           data=experiment, render=experiment_render, caption=experiment_caption, alt=experiment_alt,
           table=experiment_table, size=(PHONE_WIDTH, 6.0), snippets=experiment_snippets),
    # listed under "The code" in docs/learning.md
    Snippets("learning-code", data=lambda: None,
             public=source_listings("attention/backward.py", "models/learning.py")),
    notebook("learning.md", notebook_cells, examples={EX_BACKPROP: "backprop", EX_CHECKPOINTS: "checkpoints"}),
]
