"""Why divide by √dₖ (docs/scaling.md): random queries and keys, with and without the scale.

Queries and keys have entries of mean 0 and variance 1; the figures show the spread of their dot product,
the saturation of the softmax and the size of its gradient as d_k grows.
"""
import re
from pathlib import Path

import numpy as np

import attention

from ..engine import BuildError, Figure, Snippets, Words, example_heatmap
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.style import PHONE_WIDTH
from ..engine.text import num
from ..engine.words import listed
from . import sentences
from .softmax import EX_SOFTMAX

WORDS = Words("words/scaling.md")
D_K = 2 ** np.arange(0, 11)  # 1, 2, 4, …, 1024
PAIRS = 4000  # query-key pairs per d_k for the variance
ROWS = 500  # score rows per d_k for saturation and gradients
N_KEYS = 16  # keys per row
# the heatmap's scale slider (its widget's template): its value v multiplies the scale by 10^v
TEMPLATE = Path(__file__).resolve().parents[2] / "docs" / "widgets" / "heatmap" / "template.html"
ONE = 0.995  # a weight that prints as 1.00


def dot_variance(seed=1):
    """-> d_k, var(q·k), var(q·k/√dₖ): the first grows like d_k, the second stays near 1."""
    rng = np.random.default_rng(seed)
    unscaled, scaled = [], []
    for d_k in D_K:
        q = rng.standard_normal((PAIRS, 1, d_k))
        k = rng.standard_normal((PAIRS, 1, d_k))
        dots = attention.scores(q, k)[:, 0, 0]  # (PAIRS,)
        unscaled.append(dots.var())
        scaled.append(attention.scaled_scores(q, k)[:, 0, 0].var())
    return {"d_k": D_K, "unscaled": np.array(unscaled), "scaled": np.array(scaled)}


def softmax_jacobian(w):
    """∂a_j/∂s̃_l = a_j (δ_jl − a_l) within each row: (..., n) -> (..., n, n)."""
    return w[..., :, None] * (np.eye(w.shape[-1]) - w[..., None, :])


def saturation(seed=2):
    """Per d_k, averaged over ROWS rows of N_KEYS keys: largest weight, row entropy and gradient size,
    for softmax(q·k) and softmax(q·k/√dₖ)."""
    rng = np.random.default_rng(seed)
    rows = {key: [] for key in ("max_unscaled", "max_scaled", "entropy_unscaled", "entropy_scaled",
                                "grad_unscaled", "grad_scaled")}
    for d_k in D_K:
        q = rng.standard_normal((ROWS, 1, d_k))
        K = rng.standard_normal((ROWS, N_KEYS, d_k))
        for label, S in (("unscaled", attention.scores(q, K)), ("scaled", attention.scaled_scores(q, K))):
            w = attention.softmax(S)[:, 0]  # (ROWS, N_KEYS)
            rows[f"max_{label}"].append(w.max(axis=-1).mean())
            rows[f"entropy_{label}"].append(attention.row_entropy(w).mean())
            rows[f"grad_{label}"].append(np.abs(softmax_jacobian(w)).max(axis=(-2, -1)).mean())
    return {"d_k": D_K, "n_keys": N_KEYS, **{key: np.array(v) for key, v in rows.items()}}


# ---------------------------------------------------------------- the figures


def dk_labels(d_k):
    """Every other width labelled (1, 4, 16, …): eleven labels side by side overlap on a phone."""
    return [str(int(d)) if k % 2 == 0 else "" for k, d in enumerate(d_k)]


def variance_caption(data):
    return WORDS.line("scaling-variance-caption", pairs=PAIRS)


def variance_alt(data):
    return WORDS.line("scaling-variance-alt", first=str(data["d_k"][0]), last=str(data["d_k"][-1]),
                      unscaled=f"{data['unscaled'][-1]:.0f}", low=f"{data['scaled'].min():.2f}",
                      high=f"{data['scaled'].max():.2f}")


def variance_table(data):
    return {
        "caption": WORDS.line("scaling-variance-table-caption"),
        "columns": ["dₖ", "var(q·k)", "var(q·k/√dₖ)"],
        "rows": [[int(d), u, s] for d, u, s in zip(data["d_k"], data["unscaled"], data["scaled"])],
    }


def variance_render(data, ax):
    d_k = data["d_k"]
    ax.plot(d_k, d_k, color="#9e9e9e", linestyle=":", linewidth=1, label=WORDS.line("scaling-variance/diagonal-label"))
    ax.plot(d_k, data["unscaled"], marker="o", markersize=4, label=WORDS.line("scaling-variance/unscaled-label"))
    ax.plot(d_k, data["scaled"], marker="s", markersize=4, label=WORDS.line("scaling-variance/scaled-label"))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(d_k, labels=dk_labels(d_k))
    ticks = d_k[::2]
    ax.set_yticks(ticks, labels=[str(int(t)) for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel(WORDS.line("scaling-variance/x-label"))
    ax.set_ylabel(WORDS.line("scaling-variance/y-label"))
    ax.legend(frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def saturation_caption(data):
    return WORDS.line("scaling-saturation-caption", n_keys=data["n_keys"], rows=ROWS)


def saturation_alt(data):
    return WORDS.line(
        "scaling-saturation-alt", first=str(data["d_k"][0]), last=str(data["d_k"][-1]),
        max_from=f"{data['max_unscaled'][0]:.2f}", max_to=f"{data['max_unscaled'][-1]:.2f}",
        max_scaled=f"{data['max_scaled'][-1]:.2f}", entropy_from=f"{data['entropy_unscaled'][0]:.2f}",
        entropy_to=f"{data['entropy_unscaled'][-1]:.2f}", entropy_scaled=f"{data['entropy_scaled'][-1]:.2f}")


def saturation_table(data):
    return {
        "caption": WORDS.line("scaling-saturation-table-caption"),
        "columns": ["dₖ", WORDS.line("scaling-saturation-table/largest-unscaled-column"),
                    WORDS.line("scaling-saturation-table/largest-scaled-column"),
                    WORDS.line("scaling-saturation-table/entropy-unscaled-column"),
                    WORDS.line("scaling-saturation-table/entropy-scaled-column")],
        "rows": [
            [int(d), a, b, c, e]
            for d, a, b, c, e in zip(data["d_k"], data["max_unscaled"], data["max_scaled"],
                                     data["entropy_unscaled"], data["entropy_scaled"])
        ],
    }


def saturation_render(data, fig):
    left, right = fig.subplots(2, 1, sharex=True)
    d_k = data["d_k"]
    for ax, key, label in ((left, "max", WORDS.line("scaling-saturation/largest-label")),
                           (right, "entropy", WORDS.line("scaling-saturation/entropy-label"))):
        ax.plot(d_k, data[f"{key}_unscaled"], marker="o", markersize=4, label=WORDS.line("scaling/unscaled-label"))
        ax.plot(d_k, data[f"{key}_scaled"], marker="s", markersize=4, label=WORDS.line("scaling/scaled-label"))
        ax.set_xscale("log", base=2)
        ax.set_xticks(d_k, labels=dk_labels(d_k))
        ax.set_ylabel(label)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    right.set_xlabel(r"$d_k$")
    left.set_ylim(0, 1)
    right.axhline(np.log(data["n_keys"]), color="#9e9e9e", linestyle=":", linewidth=1)
    right.text(d_k[-1], np.log(data["n_keys"]), WORDS.line("scaling-saturation/uniform-label", n_keys=data["n_keys"]),
               ha="right", va="bottom", fontsize=8)
    right.set_ylim(0, np.log(data["n_keys"]) * 1.12)
    left.legend(frameon=False, loc="center right")


def gradient_caption(data):
    d_k, unscaled, scaled, top = data["d_k"], data["grad_unscaled"], data["grad_scaled"], data["max_unscaled"]
    higher = d_k[unscaled > scaled]
    peak = int(np.argmax(unscaled))
    crossing = int(np.argmax((unscaled < scaled) & (d_k > 1)))
    return WORDS.line(
        "scaling-gradient-caption", higher_from=int(higher[0]), higher_to=int(higher[-1]), n_keys=data["n_keys"],
        scaled_top=num(data["max_scaled"][peak]),
        climb=listed([WORDS.line("scaling-gradient-caption/top", top=num(top[k]), d_k=int(d_k[k]))
                      for k in range(1, peak + 1)], "comma"),
        peak=num(unscaled[peak], 4), crossing=int(d_k[crossing]), crossing_top=num(top[crossing]))


def gradient_alt(data):
    return WORDS.line(
        "scaling-gradient-alt", first=str(data["d_k"][0]), last=str(data["d_k"][-1]),
        unscaled_from=f"{data['grad_unscaled'][0]:.3f}", unscaled_to=f"{data['grad_unscaled'][-1]:.3f}",
        low=f"{data['grad_scaled'].min():.3f}", high=f"{data['grad_scaled'].max():.3f}")


def gradient_table(data):
    return {
        "caption": WORDS.line("scaling-gradient-table-caption"),
        "columns": ["dₖ", WORDS.line("scaling-gradient-table/unscaled-column"),
                    WORDS.line("scaling-gradient-table/scaled-column")],
        "rows": [[int(d), f"{u:.4f}", f"{s:.4f}"] for d, u, s in zip(data["d_k"], data["grad_unscaled"], data["grad_scaled"])],
    }


def gradient_render(data, ax):
    d_k = data["d_k"]
    ax.plot(d_k, data["grad_unscaled"], marker="o", markersize=4, label=WORDS.line("scaling/unscaled-label"))
    ax.plot(d_k, data["grad_scaled"], marker="s", markersize=4, label=WORDS.line("scaling/scaled-label"))
    ax.set_xscale("log", base=2)
    ax.set_xticks(d_k, labels=dk_labels(d_k))
    ax.set_ylim(0, 0.25)
    ax.set_xlabel(r"$d_k$")
    ax.set_ylabel(WORDS.line("scaling-gradient/y-label"))
    ax.legend(frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def slider_data():
    """The running sentence's weights at the slider's largest multiplier, against those at ×1."""
    found = re.search(r'data-control="scale">[^<]*<input type="range"[^>]*\bmax="([^"]+)"', TEMPLATE.read_text(encoding="utf-8"))
    if not found:
        raise BuildError("scaling-slider: no scale slider with a max in docs/widgets/heatmap/template.html")
    multiplier = 10 ** float(found.group(1))
    example = EX_SOFTMAX.compute()
    steps = example["steps"]
    pushed = attention.softmax(steps["scaled_scores"] * multiplier)
    return {"tokens": example["tokens"], "multiplier": multiplier,
            "top": steps["weights"].max(axis=-1), "top_pushed": pushed.max(axis=-1)}


def slider_snippets(data):
    """The paragraph above the heatmap: what the slider's right end does to each row, checked on the data."""
    tokens, top, pushed = data["tokens"], data["top"], data["top_pushed"]
    if not (pushed > top).all():
        raise BuildError("scaling-slider: the page says every row leans further onto its largest score at "
                         f"×{num(data['multiplier'])}; rows {[t for t, a, b in zip(tokens, top, pushed) if b <= a]} do not")
    full, short = pushed >= ONE, pushed < ONE
    if not full.any() or not short.any():
        raise BuildError("scaling-slider: the page says some rows reach 1 at the slider's end and others stop short; "
                         f"largest weights there: {[num(w) for w in pushed]}")
    names = [WORDS.line("scaling-slider/name", token=tokens[i]) for i in np.flatnonzero(full)]
    peaked = (WORDS.line("scaling-slider/one-row", names=names[0]) if len(names) == 1 else
              WORDS.line("scaling-slider/rows", names=listed(names)))
    stops = listed([WORDS.line("scaling-slider/stop", token=tokens[i], weight=num(pushed[i]))
                    for i in np.flatnonzero(short)], "comma")
    return {"": WORDS.fill("scaling-slider", multiplier=num(data["multiplier"], 0), peaked=peaked, stops=stops) + "\n"}


def weights_caption(example):
    return WORDS.line("scaling-weights-caption", sentence=" ".join(example["tokens"]), d_k=example["d_k"])


def gradient_peak(data):
    """The width at which the unscaled gradient peaks, checked to lie inside the range (it rises, then falls)."""
    peak = int(np.argmax(data["grad_unscaled"]))
    if not 0 < peak < len(data["d_k"]) - 1:
        raise BuildError(f"notebook-scaling: the notebook says the unscaled gradient rises, peaks and dies away; "
                         f"it peaks at the end of the range, d_k = {int(data['d_k'][peak])}")
    return int(data["d_k"][peak])


def notebook_cells():
    return [
        *sentences.notebook_cells("RUNNING"),
        markdown(WORDS.fill("nb-variance")),
        code(f"D_K = np.array({D_K.tolist()!r})\nPAIRS = {PAIRS!r}"),
        source(dot_variance),
        code("""
            variance = dot_variance()
            print(" d_k   var(q·k)   var(q·k/√d_k)")
            for d_k, unscaled, scaled in zip(variance["d_k"], variance["unscaled"], variance["scaled"]):
                print(f"{d_k:4d} {unscaled:10.2f} {scaled:15.2f}")"""),
        code("""
            fig, ax = plt.subplots(figsize=(4.8, 3.4))
            ax.plot(D_K, variance["unscaled"], marker="o", label=r"$q \\cdot k$")
            ax.plot(D_K, variance["scaled"], marker="s", label=r"$q \\cdot k / \\sqrt{d_k}$")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log", base=2)
            ax.set_xlabel(r"$d_k$")
            ax.set_ylabel("variance")
            ax.legend(frameon=False)
            plt.show()"""),
        markdown(WORDS.fill("nb-saturation", peak=gradient_peak(saturation()))),
        code(f"ROWS = {ROWS!r}\nN_KEYS = {N_KEYS!r}"),
        source(softmax_jacobian, saturation),
        code("""
            rows = saturation()
            print(" d_k      largest weight      entropy (nats)       gradient size")
            print("       unscaled  scaled    unscaled  scaled    unscaled  scaled")
            for k, d_k in enumerate(rows["d_k"]):
                print(f"{d_k:4d}" + "".join(f"   {rows[f'{key}_unscaled'][k]:7.4f} {rows[f'{key}_scaled'][k]:7.4f}"
                                            for key in ("max", "entropy", "grad")))
            print("an even row of", N_KEYS, "keys has the entropy ln", N_KEYS, "=", round(np.log(N_KEYS), 4))"""),
        markdown(WORDS.fill("nb-weights")),
        code(f"""
            example = self_attention_example(RUNNING)
            tokens, S_scaled, A = example["tokens"], example["steps"]["scaled_scores"], example["steps"]["weights"]
            multiplier = {slider_data()["multiplier"]!r}
            pushed = attention.softmax(S_scaled * multiplier)
            fig, (left, right) = plt.subplots(1, 2, figsize=(9.6, 3.6))
            heatmap(left, A, tokens, tokens, quantity="weights", colorbar=False, title="×1")
            heatmap(right, pushed, tokens, tokens, quantity="weights", colorbar=False, title=f"×{{multiplier:g}}")
            plt.show()
            for token, at_one, at_end in zip(tokens, A.max(axis=1), pushed.max(axis=1)):
                print(f"{{token!r}}: largest weight {{at_one:.8f}} at ×1, {{at_end:.8f}} at ×{{multiplier:g}}")"""),
    ]


ITEMS = [
    Figure("scaling-variance", title=WORDS.line("scaling-variance-title"),
           data=dot_variance, render=variance_render, caption=variance_caption, alt=variance_alt,
           table=variance_table, size=(PHONE_WIDTH, 3.4)),
    Figure("scaling-saturation", title=WORDS.line("scaling-saturation-title"),
           data=saturation, render=saturation_render, caption=saturation_caption, alt=saturation_alt,
           table=saturation_table, size=(PHONE_WIDTH, 5.0)),
    example_heatmap("scaling-weights", EX_SOFTMAX, "weights", size=(PHONE_WIDTH, 3.2),
                    title=WORDS.line("scaling-weights-title"), caption=weights_caption,
                    controls=("modes", "scale", "readout", "softmax")),  # the page that introduces the scale
    Snippets("scaling-slider", data=slider_data, snippets=slider_snippets),
    Figure("scaling-gradient", title=WORDS.line("scaling-gradient-title"),
           data=saturation, render=gradient_render, caption=gradient_caption, alt=gradient_alt,
           table=gradient_table, size=(PHONE_WIDTH, 3.4)),
    notebook("scaling.md", notebook_cells),
]
