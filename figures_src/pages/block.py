"""The block around attention (docs/block.md): one token of the real model followed through one whole layer.

The model is the real-heads page's all-MiniLM-L6-v2, read from the pinned model package with numpy alone (its
float32 weights, as real_heads/rollout.py reads them) and run in float64, so that every printed digit is the same
on any CPU; the build checks that the float32 run lands within FLOAT32_AGREEMENT of it.
`models.minilm.encoder_layer_steps` keeps every vector of the layer; the page prints, for entries 1 to ENTRIES, each
step's arithmetic as a reader redoes it: every entry after a table's first columns is worked from the printed
numbers to its left (exact decimals, rounded as printed, never a tie), and the page then prints the model's own
output beside the hand-worked one, with how close they land. Each printed number has at most MAX_SIGNIFICANT
significant digits and lies farther than float noise from a rounding tie.
"""
import math
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

import numpy as np

from models.minilm import model as minilm_model
from models.minilm.encoder import encode, encoder_layer_steps, gelu

from ..engine import Example, Words
from ..engine.errors import BuildError
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.text import MINUS, is_tie, latex_number, num, table
from .real_heads.committed import extraction, picks
from .real_heads.rollout import float32_model

PAGE = "block"
SENTENCE = "coreference"
TOKEN = "it"
LINK_KIND = "coreference"  # the layer followed: the one whose head the real-heads page names for "it" -> "animal"
ENTRIES = 4  # entries c = 1 … ENTRIES of every vector are printed
ENTRY_DIGITS = 3  # a vector's entries, and each hand-worked step
STAT_DIGITS = 4  # a layer norm's mean, variance and √(σ² + ε), its scale γ and shift β, and Φ(u)
NORM_DIGITS = 2  # a vector's length
MAX_SIGNIFICANT = 4  # float noise never reaches a printed digit (the brief of issue 54)
TIE_NOISE = 1e-6  # in units of the last printed digit: a value this near halfway could round either way
FLOAT32_AGREEMENT = 1e-4  # the float32 model against the float64 run, every vector of the layer

WORDS = Words("words/block.md")


def claim(holds, what):
    if not holds:
        raise BuildError(f"{PAGE}: the page says {what}, and the data no longer shows it")


def shown(value, digits):
    """`value` printed with `digits` decimals, refused (BuildError) when another CPU could print it otherwise or it
    shows more than MAX_SIGNIFICANT significant digits."""
    if isinstance(value, Decimal):
        exact = value
    else:
        exact = Decimal(float(value))
        claim(not is_tie(exact, digits, TIE_NOISE), f"{num(value, digits + 3)} with {digits} decimals, but it lies "
                                                     "within float noise of halfway")
    text = num(exact, digits)
    figures = text.replace(MINUS, "").replace(".", "").lstrip("0")
    claim(len(figures) <= MAX_SIGNIFICANT, f"{text} with at most {MAX_SIGNIFICANT} significant digits")
    return text


def printed(value, digits):
    """The exact number a reader reads from `value` printed with `digits` decimals."""
    return Decimal(shown(value, digits).replace(MINUS, "-"))


def worked(exact, digits):
    """A step a reader works from printed numbers (`exact`, a Decimal), rounded to `digits` decimals: refused when it
    is an exact tie, which a reader could round either way."""
    quantum = Decimal(1).scaleb(-digits)
    rounded = exact.quantize(quantum, rounding=ROUND_HALF_EVEN)
    claim((exact - rounded).copy_abs() * 2 != quantum, f"a hand-worked step {exact} rounds to {digits} decimals without a tie")
    return rounded


def sqrt(value):
    with localcontext() as context:
        context.prec = 40
        return value.sqrt()


def phi(u):
    """Φ(u), the standard normal distribution's cumulative probability: (1 + erf(u/√2)) / 2."""
    return 0.5 * (1 + math.erf(float(u) / math.sqrt(2)))


# ---------------------------------------------------------------- the numbers


def block_data():
    """The token's vectors through the layer (float64 from the float32 weights), with the layer's facts."""
    meta, by_id = extraction()
    heads = by_id[SENTENCE]
    pick = picks()[LINK_KIND]
    layer = pick.layer
    position = heads.position(TOKEN)
    params32, config = float32_model()
    params = params32.astype(np.float64)
    X = encode(params, config, heads.ids).hidden_states[layer]  # (n, d_model): what layer `layer` receives
    steps = encoder_layer_steps(X, params.layers[layer], config)
    X32 = encode(params32, config, heads.ids).hidden_states[layer]
    steps32 = encoder_layer_steps(X32, params32.layers[layer], config)
    for name in ("attended", "residual1", "norm1", "pre_activation", "hidden", "ffn_out", "residual2", "out"):
        worst = float(np.abs(getattr(steps, name) - getattr(steps32, name)).max())
        if worst > FLOAT32_AGREEMENT:
            raise BuildError(f"{PAGE}: the float64 run's {name} differs from the float32 model's by {worst:.2e}")
    weights = params.layers[layer]
    i = position
    return {
        "seed": None,  # nothing random: the numbers come from the pretrained model
        "model": meta["model"],
        "source": WORDS.line("ex-block-source", package=meta["package"], version=meta["package_version"]),
        "sentence": heads.sentence.text,
        "tokens": heads.tokens,
        "token": TOKEN,
        "position": position,
        "layer": layer,
        "n_layers": config.n_layers,
        "n_heads": config.n_heads,
        "d_model": config.d_model,
        "d_k": config.d_k,
        "d_ff": config.d_ff,
        "layer_norm_eps": config.layer_norm_eps,
        "link": {"head": pick.head, "key": heads.sentence.link.key, "key_position": heads.position(heads.sentence.link.key),
                 "weight": float(steps.weights[pick.head, i, heads.position(heads.sentence.link.key)])},
        "inputs": {"X": X[i]},
        "steps": {
            "concat": steps.concat[i], "attended": steps.attended[i],
            "residual1": steps.residual1[i], "mean1": steps.residual1[i].mean(), "variance1": steps.residual1[i].var(),
            "norm1_gamma": weights.norm1_gamma, "norm1_beta": weights.norm1_beta, "norm1": steps.norm1[i],
            "pre_activation": steps.pre_activation[i], "hidden": steps.hidden[i], "ffn_out": steps.ffn_out[i],
            "residual2": steps.residual2[i], "mean2": steps.residual2[i].mean(), "variance2": steps.residual2[i].var(),
            "norm2_gamma": weights.norm2_gamma, "norm2_beta": weights.norm2_beta,
        },
        "outputs": {"out": steps.out[i]},
    }


# ---------------------------------------------------------------- the page's tables, worked by hand


def by_hand(example):
    """Every printed step for entries 1 … ENTRIES, worked from the printed numbers -> {name: list of Decimals per
    entry, or one Decimal}: the residual sums, each layer norm's √(σ² + ε), centred-and-divided entries and
    outputs, Φ(u) and GELU, exactly as a reader gets them."""
    steps, eps = example["steps"], Decimal(example["layer_norm_eps"])
    c = range(ENTRIES)
    work = {"x": [printed(example["inputs"]["X"][k], ENTRY_DIGITS) for k in c],
            "attended": [printed(steps["attended"][k], ENTRY_DIGITS) for k in c]}
    work["y"] = [x + a for x, a in zip(work["x"], work["attended"])]  # exact: no rounding

    def layer_norm(prefix, inputs, number):
        mean, variance = printed(steps[f"mean{number}"], STAT_DIGITS), printed(steps[f"variance{number}"], STAT_DIGITS)
        root = worked(sqrt(variance + eps), STAT_DIGITS)
        gamma = [printed(steps[f"norm{number}_gamma"][k], STAT_DIGITS) for k in c]
        beta = [printed(steps[f"norm{number}_beta"][k], STAT_DIGITS) for k in c]
        standard = [worked((v - mean) / root, ENTRY_DIGITS) for v in inputs]
        out = [worked(s * g + b, ENTRY_DIGITS) for s, g, b in zip(standard, gamma, beta)]
        work.update({f"{prefix}mean": mean, f"{prefix}variance": variance, f"{prefix}root": root, f"{prefix}gamma": gamma,
                     f"{prefix}beta": beta, f"{prefix}standard": standard, f"{prefix}out": out})
        return out

    work["z"] = layer_norm("norm1_", work["y"], 1)
    work["u"] = [printed(steps["pre_activation"][k], ENTRY_DIGITS) for k in c]
    work["phi"] = [printed(phi(u), STAT_DIGITS) for u in work["u"]]  # Φ of the printed u, as a reader looks it up
    work["g"] = [worked(u * p, ENTRY_DIGITS) for u, p in zip(work["u"], work["phi"])]
    work["f"] = [printed(steps["ffn_out"][k], ENTRY_DIGITS) for k in c]
    work["y2"] = [z + f for z, f in zip(work["z"], work["f"])]
    work["x2"] = layer_norm("norm2_", work["y2"], 2)
    work["model_x2"] = [printed(example["outputs"]["out"][k], ENTRY_DIGITS) for k in c]
    return work


def text(value, digits=ENTRY_DIGITS):
    return num(value, digits)


def length(vector):
    return shown(np.linalg.norm(vector), NORM_DIGITS)


def block_snippets(example):
    work = by_hand(example)
    steps, i = example["steps"], example["position"]
    n, d_model, d_ff = len(example["tokens"]), example["d_model"], example["d_ff"]
    entries = [str(k + 1) for k in range(ENTRIES)]
    link = example["link"]
    layer, head = example["layer"] + 1, link["head"] + 1

    # where the token is, and which layer
    where = WORDS.fill("ex-block-where", n=n, sentence=example["sentence"], token=example["token"], position=i + 1,
                       layer=layer, n_layers=example["n_layers"], head=head, key=link["key"],
                       weight=shown(link["weight"], 2))

    # the layer's shapes and the token's vector lengths
    sizes, wide = f"{n} × {d_model:,}", f"{n} × {d_ff:,}"
    rows = [
        [WORDS.line("ex-block-shapes/input"), sizes, length(example["inputs"]["X"])],
        [WORDS.line("ex-block-shapes/heads", n_heads=example["n_heads"], d_k=example["d_k"]), sizes,
         length(steps["concat"])],
        [WORDS.line("ex-block-shapes/attended"), sizes, length(steps["attended"])],
        [r"$y = x + \text{attn}$", sizes, length(steps["residual1"])],
        [WORDS.line("ex-block-shapes/norm1"), sizes, length(steps["norm1"])],
        [WORDS.line("ex-block-shapes/pre-activation"), wide, length(steps["pre_activation"])],
        [WORDS.line("ex-block-shapes/gelu"), wide, length(steps["hidden"])],
        [WORDS.line("ex-block-shapes/ffn"), sizes, length(steps["ffn_out"])],
        ["$y' = z + f$", sizes, length(steps["residual2"])],
        [WORDS.line("ex-block-shapes/out"), sizes, length(example["outputs"]["out"])],
    ]
    shapes = (table([WORDS.line("ex-block-shapes/step-column"), WORDS.line("ex-block-shapes/shape-column"),
                     WORDS.line("ex-block-shapes/length-column")], rows) + "\n"
              + WORDS.line("ex-block-shapes/matrices", d_model=f"{d_model:,}", d_ff=f"{d_ff:,}") + "\n")

    residual = table(["$c$", "$x_c$", r"$\text{attn}_c$", r"$y_c = x_c + \text{attn}_c$"],
                     [[c, text(x), text(a), text(y)] for c, x, a, y in zip(entries, work["x"], work["attended"], work["y"])])

    exponent = round(math.log10(example["layer_norm_eps"]))
    claim(10.0 ** exponent == example["layer_norm_eps"], f"the layer norm's ε is 10^{exponent}")

    def stats(prefix, symbol, prime=""):
        return WORDS.fill("ex-block-stats", d_model=d_model, symbol=symbol, prime=prime,
                          mean=latex(work[prefix + "mean"], STAT_DIGITS),
                          variance=latex(work[prefix + "variance"], STAT_DIGITS), exponent=str(exponent),
                          root=latex(work[prefix + "root"], STAT_DIGITS))

    def norm_table(prefix, inputs, symbol, out, prime=""):
        header = ["$c$", f"${symbol}{prime}_c$", f"$\\bar{{{symbol}}}{prime}_c$", f"$\\gamma{prime}_c$", f"$\\beta{prime}_c$",
                  f"${out}{prime}_c$"]
        rows = [[c, text(v), text(s), text(g, STAT_DIGITS), text(b, STAT_DIGITS), text(o)]
                for c, v, s, g, b, o in zip(entries, work[inputs], work[prefix + "standard"], work[prefix + "gamma"], work[prefix + "beta"],
                                            work[prefix + "out"])]
        return table(header, rows)

    standardised = (steps["residual1"] - steps["mean1"]) / np.sqrt(steps["variance1"] + example["layer_norm_eps"])
    centred = WORDS.fill("ex-block-centred", d_model=d_model, mean=shown(np.mean(standardised), ENTRY_DIGITS),
                         variance=shown(np.var(standardised), ENTRY_DIGITS))

    u = np.asarray(steps["pre_activation"])
    g = np.asarray(steps["hidden"])
    negative = int(np.sum(u < 0))
    claim(np.abs(u).min() > 1e-9, "how many entries of u are negative, and none lies within float noise of 0")
    floor = float(gelu(np.linspace(-4, 0, 400_001)).min())
    claim(g[u < 0].min() >= floor and g[u < 0].max() <= 0, "GELU turns a negative entry into one between its minimum and 0")
    top = int(np.argmax(u))
    claim(np.all(g[u > 0] > u[u > 0] / 2) and g[top] / u[top] > 0.95,
          "a positive entry keeps more than half of its value, and the largest nearly all of it")
    gelu_counts = WORDS.fill("ex-block-gelu-counts", negative=f"{negative:,}", d_ff=f"{d_ff:,}", floor=shown(floor, 2),
                             top=top + 1, u_top=latex(u[top], ENTRY_DIGITS), eta_top=latex(g[top], ENTRY_DIGITS))
    gelu_table = table(["$c$", "$u_c$", r"$\Phi(u_c)$", r"$\eta_c = u_c\,\Phi(u_c)$"],
                       [[c, text(u_c), text(p, STAT_DIGITS), text(g_c)]
                        for c, u_c, p, g_c in zip(entries, work["u"], work["phi"], work["g"])])

    second = table(["$c$", "$z_c$", "$f_c$", "$y'_c = z_c + f_c$"],
                   [[c, text(z), text(f), text(y)] for c, z, f, y in zip(entries, work["z"], work["f"], work["y2"])])

    gap = max(abs(hand - model) for hand, model in zip(work["x2"], [Decimal(float(v)) for v in example["outputs"]["out"][:ENTRIES]]))
    units = int(math.ceil(gap * 1000 - Decimal("1e-9")))
    claim(units >= 1 and abs(gap * 1000 - units) > Decimal("1e-6") and abs(gap * 1000 - (units - 1)) > Decimal("1e-6"),
          "how far the hand-worked x' lies from the model's, in thousandths, and no float noise could change it")
    model_entries = ", ".join(f"$x'_{c} = {latex(m, ENTRY_DIGITS)}$" for c, m in zip(entries, work["model_x2"]))
    agreement = WORDS.fill("ex-block-agreement", model_entries=model_entries, gap=shown(units / 1000, ENTRY_DIGITS))

    return {
        "where": where,
        "shapes": shapes,
        "residual": residual,
        "stats1": stats("norm1_", "y"),
        "norm1": norm_table("norm1_", "y", "y", "z"),
        "centred": centred,
        "gelu-counts": gelu_counts,
        "gelu": gelu_table,
        "residual2": second,
        "stats2": stats("norm2_", "y'", "'"),
        "norm2": norm_table("norm2_", "y2", "y", "x", "'"),
        "agreement": agreement,
    }


def latex(value, digits):
    """A number for a formula, checked as `shown` checks it; a negative one in braces (engine/text.latex_number)."""
    shown(value, digits)
    return latex_number(value, digits)


EX_BLOCK = Example("ex-block", title=WORDS.line("ex-block-title"), data=block_data,
                   snippets=block_snippets)

def notebook_cells():
    from models.minilm.encoder import layer_norm  # noqa: PLC0415
    return [
        markdown(WORDS.fill("nb-model")),
        code(f"""
            from attention import attend, merge_heads, split_heads
            from models.minilm.encoder import LayerSteps, encode, gelu, layer_norm
            from figures_src.pages.real_heads.committed import extraction, picks
            from figures_src.pages.real_heads.rollout import float32_model
            from figures_src.engine.text import head_label

            SENTENCE, TOKEN, LINK_KIND = {SENTENCE!r}, {TOKEN!r}, {LINK_KIND!r}
            meta, by_id = extraction()
            sentence = by_id[SENTENCE]  # the sentence's tokens, their ids, and the committed weights
            pick = picks()[LINK_KIND]  # the head the real-heads page names for this link
            layer, i = pick.layer, sentence.position(TOKEN)
            print(meta["model"], "-", sentence.sentence.text)
            print("tokens:", sentence.tokens)
            print(f"the token {{TOKEN!r}} is the page's row {{i + 1}} (row {{i}} in Python); the page's "
                  f"{{head_label(layer, pick.head)}} (in Python, from 0: layer {{layer}}, head {{pick.head}})")"""),
        markdown(WORDS.fill("nb-load")),
        code("""
            params32, config = float32_model()
            params = params32.astype(np.float64)
            X = encode(params, config, sentence.ids).hidden_states[layer]  # (n, d_model): what the layer receives
            print("n =", X.shape[0], " d_model =", config.d_model, " h =", config.n_heads, " d_k =", config.d_k,
                  " d_ff =", config.d_ff)"""),
        markdown(WORDS.fill("nb-layer")),
        source(layer_norm, encoder_layer_steps),
        code("""
            steps = encoder_layer_steps(X, params.layers[layer], config)
            key = sentence.sentence.link.key
            fig, ax = plt.subplots(figsize=(5.6, 5))
            heatmap(ax, steps.weights[pick.head], sentence.tokens, sentence.tokens, quantity="weights",
                    show_values=False, title=head_label(layer, pick.head))
            plt.setp(ax.get_xticklabels(), rotation=90)
            plt.show()
            print(f"{TOKEN!r} -> {key!r}:", round(steps.weights[pick.head, i, sentence.position(key)], 4))"""),
        markdown(WORDS.fill("nb-token")),
        code("""
            c = slice(0, 4)  # the page prints entries 1 to 4
            vectors = {"x": X, "attn": steps.attended, "y": steps.residual1, "z": steps.norm1, "f": steps.ffn_out,
                       "y'": steps.residual2, "x'": steps.out}
            for name, vector in vectors.items():
                print(f"{name:>4}", vector[i, c].round(3) + 0.0)  # + 0.0: a -0.0 after rounding prints as 0."""),
        markdown(WORDS.fill("nb-norm")),
        code("""
            y = steps.residual1[i]
            mean, variance = y.mean(), y.var()
            learned = params.layers[layer]  # the layer's weights: γ and β of its first LayerNorm among them
            z = (y - mean) / np.sqrt(variance + config.layer_norm_eps) * learned.norm1_gamma + learned.norm1_beta
            assert np.allclose(z, steps.norm1[i], rtol=0, atol=1e-12), "z by hand is the model's first LayerNorm"
            print("mean", round(mean, 4), " variance", round(variance, 4), " ε", config.layer_norm_eps)
            for name, vector in (("y", y), ("γ", learned.norm1_gamma), ("β", learned.norm1_beta), ("z", z)):
                print(f"    {name}", vector[c].round(3) + 0.0)  # + 0.0: a -0.0 after rounding prints as 0."""),
        markdown(WORDS.fill("nb-example")),
        code("""
            block = {
                "inputs": {"X": X[i]},
                "steps": {
                    "concat": steps.concat[i], "attended": steps.attended[i],
                    "residual1": y, "mean1": mean, "variance1": variance,
                    "norm1_gamma": learned.norm1_gamma, "norm1_beta": learned.norm1_beta, "norm1": steps.norm1[i],
                    "pre_activation": steps.pre_activation[i], "hidden": steps.hidden[i], "ffn_out": steps.ffn_out[i],
                    "residual2": steps.residual2[i], "mean2": steps.residual2[i].mean(),
                    "variance2": steps.residual2[i].var(),
                    "norm2_gamma": learned.norm2_gamma, "norm2_beta": learned.norm2_beta,
                },
                "outputs": {"out": steps.out[i]},
            }
            print(f"x' has length {np.linalg.norm(block['outputs']['out']):.2f}")"""),
    ]


ITEMS = [EX_BLOCK, notebook("block.md", notebook_cells, examples={EX_BLOCK: "block"}, packages=(minilm_model.DISTRIBUTION,))]

