"""Positions (docs/positions.md): sinusoidal position vectors, and RoPE's turned queries and keys, whose score
depends on the offset between their positions only.

The page counts a token's position p as the number of tokens before it (the first token has p = 0, as the
formulas have it); entries and pairs are counted from 1. Every chain of arithmetic is printed from the numbers
it shows and checked here against the library's own values.
"""
from decimal import ROUND_HALF_EVEN, Decimal

import matplotlib as mpl
import numpy as np
from matplotlib.colors import Normalize
from matplotlib.patches import Circle, FancyArrowPatch

import attention
from attention.positions import frequencies

from ..engine import BuildError, Example, Figure, Snippets
from ..engine.heatmap import SCORE_CMAP, CellImage, heatmap
from ..engine.style import PHONE_WIDTH
from ..engine.text import MINUS, num, table, vector

BASE = 10000  # the library's default, the original transformer's and RoFormer's

# ---------------------------------------------------------------- by hand, from the printed numbers


def printed(value, digits):
    """`value` as printed with `digits` decimals, and the exact number a reader reads from that print."""
    text = num(value, digits)
    return text, Decimal(text.replace(MINUS, "-"))


def printed_value(text):
    """The exact number a printed text shows: "−0.9589" -> Decimal("-0.9589")."""
    return Decimal(text.replace(MINUS, "-"))


def rounds_to(exact, digits):
    """The print of an exact Decimal at `digits` decimals, or None when it lies exactly halfway (a tie a reader
    could round either way)."""
    quantum = Decimal(1).scaleb(-digits)
    rounded = exact.quantize(quantum, rounding=ROUND_HALF_EVEN)
    if (exact - rounded).copy_abs() * 2 == quantum:
        return None
    return num(rounded, digits)


def term(text):
    """A printed number in parentheses, as a product's factor: (−0.9589)."""
    return f"({text})"


# ---------------------------------------------------------------- sinusoidal positions

TABLE_POSITIONS, TABLE_D = 5, 8  # the printed table: d = 8 gives ω = 1, 0.1, 0.01, 0.001
TABLE_DIGITS = 3
WORKED_P, WORKED_PAIR = 3, 2  # the entry worked out in the text (pair counted from 1)
MAP_POSITIONS, MAP_D = 50, 16  # the heatmap


def sinusoidal_table_data():
    return {"pe": attention.sinusoidal_positions(TABLE_POSITIONS, TABLE_D, BASE), "omega": frequencies(TABLE_D, BASE)}


def omega_label(i):
    """ω with pair i's number (counted from 1) as a subscript: ω₂."""
    return "ω" + str(i).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def sinusoidal_snippets(data):
    pe, omega = data["pe"], data["omega"]
    # one row per position, as PE is written and drawn; each column's head is the entry's number over its wave
    columns = ["p"] + [f"{c + 1}<br>{'sin' if c % 2 == 0 else 'cos'} p{omega_label(c // 2 + 1)}" for c in range(TABLE_D)]
    rows = [[str(p)] + [num(v, TABLE_DIGITS) for v in pe[p]] for p in range(TABLE_POSITIONS)]
    frequencies_line = ", ".join(f"{omega_label(i + 1)} = {num(w, 4, trim=True)}" for i, w in enumerate(omega))

    # The worked entry: the angle from the printed frequency, its sine and cosine from the printed angle.
    p, pair = WORKED_P, WORKED_PAIR
    w_text = num(omega[pair - 1], 4, trim=True)
    w_exact = printed_value(w_text)
    if abs(float(w_exact) - omega[pair - 1]) > 1e-15:
        raise BuildError(f"positions: the frequency {omega[pair - 1]!r} does not print exactly as {w_text}")
    angle = p * w_exact
    angle_text = num(angle, 4, trim=True)
    sin_text, cos_text = num(np.sin(float(angle)), TABLE_DIGITS), num(np.cos(float(angle)), TABLE_DIGITS)
    in_table = (rows[p][2 * pair - 1], rows[p][2 * pair])
    if (sin_text, cos_text) != in_table:
        raise BuildError(f"positions: sin and cos of the printed angle {angle_text} print as {sin_text}, {cos_text}, "
                         f"but row p = {p} of the table prints {in_table[0]}, {in_table[1]}")
    first, last = num(omega[0], 4, trim=True), num(omega[-1], 4, trim=True)
    return {
        "distance": distance_sentence(pe),
        "table": (
            f"With d = {TABLE_D} there are {TABLE_D // 2} pairs, and the frequencies are {frequencies_line}. "
            f"The first {TABLE_POSITIONS} position vectors, one per row, to {TABLE_DIGITS} decimals:\n\n"
            + table(columns, rows)
        ),
        "step": (
            f"Take p = {p} and pair {pair}, entries {2 * pair - 1} and {2 * pair}. The angle is "
            f"p{omega_label(pair)} = {p} × {w_text} = {angle_text} radians, and sin {angle_text} = {sin_text}, "
            f"cos {angle_text} = {cos_text}: entries {2 * pair - 1} and {2 * pair} of the row p = {p}. Pair 1 "
            f"turns {first} radian per position and pair {TABLE_D // 2} only {last}, so the first entries change fast from one position to the next and the last ones hardly at "
            "all, like the second, minute and hour hands of a clock.\n"
        ),
    }


DISTANCE_PAIRS = [(0, 2), (1, 3), (2, 4)]  # positions two apart, from the printed table


def distance_sentence(pe):
    """PE_p · PE_p′ for pairs of positions the same distance apart: equal, since in pair r
    sin(pω_r) sin(p′ω_r) + cos(pω_r) cos(p′ω_r) = cos((p − p′)ω_r). Checked, and the sentence names the distance's value."""
    dots = [float(pe[a] @ pe[b]) for a, b in DISTANCE_PAIRS]
    gaps = {b - a for a, b in DISTANCE_PAIRS}
    if len(gaps) != 1 or max(dots) - min(dots) > 1e-12:
        raise BuildError(f"positions: the position pairs {DISTANCE_PAIRS} are not equally far apart with equal dot "
                         f"products: {dots}")
    same = " = ".join(f"$\\text{{PE}}_{a} \\cdot \\text{{PE}}_{b}$" for a, b in DISTANCE_PAIRS)
    return (
        "One property points ahead to RoPE. In each pair r, sin pωᵣ · sin p′ωᵣ + cos pωᵣ · cos p′ωᵣ = "
        "cos (p − p′)ωᵣ, so the dot "
        f"product of two position vectors depends only on how far apart the positions are: {same} = "
        f"{num(dots[0], 3)}, for positions {gaps.pop()} apart.\n"
    )


def map_data():
    return {"pe": attention.sinusoidal_positions(MAP_POSITIONS, MAP_D, BASE), "omega": frequencies(MAP_D, BASE)}


def map_render(data, ax):
    pe = data["pe"]
    n, d = pe.shape
    cmap, norm = mpl.colormaps[SCORE_CMAP], Normalize(-1.0, 1.0)
    ax.add_artist(CellImage(cmap(norm(pe), bytes=True)[..., :3], "waves"))  # not "cells": no attention heatmap
    ax.set_xlim(-0.5, d - 0.5)
    ax.set_ylim(n - 0.5, -0.5)  # position 0 on top, as a table reads
    ticks_x = [0] + list(range(3, d, 4))
    ax.set_xticks(ticks_x, labels=[str(t + 1) for t in ticks_x])  # entries counted from 1
    ticks_y = list(range(0, n, 10))
    ax.set_yticks(ticks_y, labels=[str(t) for t in ticks_y])
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("entry of the position vector")
    ax.set_ylabel("position p")
    ax.tick_params(length=2)
    bar = ax.figure.colorbar(mpl.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, fraction=0.046, pad=0.04)
    bar.outline.set_visible(False)
    bar.ax.tick_params(length=2)
    bar.solids.set_edgecolor("face")
    bar.solids.set_rasterized(True)


def slowest_turn(data):
    """How far the slowest pair's angle turns over the whole map, in radians."""
    return (len(data["pe"]) - 1) * data["omega"][-1]


def map_caption(data):
    n, d = data["pe"].shape
    return (
        f"Sinusoidal position vectors for p = 0 to {n - 1} (rows), d = {d} (columns). Red is +1, blue −1. "
        f"Each pair of columns is a sine and a cosine of one angle; from left to right the angles turn more "
        f"slowly, until the last pair turns by only {num(slowest_turn(data), 3)} radians over all {n} positions. "
        "No two rows are the same."
    )


def map_alt(data):
    n, d = data["pe"].shape
    return (
        f"A grid of {n} rows (positions) by {d} columns (entries) in red and blue. The leftmost columns "
        "alternate quickly between red and blue going down; further right the stripes get wider, and the "
        "rightmost columns are nearly one colour from top to bottom."
    )


def map_table(data):
    pe = data["pe"]
    return {
        "caption": "Sinusoidal position vectors: one row per position p, one column per entry",
        "columns": ["p \\ entry"] + [str(c + 1) for c in range(pe.shape[1])],
        "rows": [[str(p)] + list(row) for p, row in enumerate(pe)],
    }


def check_distinct_rows(data):
    pe = data["pe"]
    gaps = np.linalg.norm(pe[:, None, :] - pe[None, :, :], axis=-1) + np.eye(len(pe))
    if gaps.min() < 1e-3:
        raise BuildError("positions-sinusoidal: two positions got (almost) the same vector; the caption says none do")
    return data


# ---------------------------------------------------------------- RoPE

ROPE_SEED, ROPE_D, ROPE_POSITIONS = 5, 4, 6
WORKED_M, WORKED_N = 5, 2  # the query at p = 5 against the key at p′ = 2
OFFSETS = {3: [(3, 0), (4, 1), (5, 2)], 0: [(0, 0), (2, 2), (5, 5)], -2: [(0, 2), (1, 3), (3, 5)]}
SCORE_DIGITS = 4
EQUAL_DECIMALS = 12  # scores of one offset agree to this many decimals (float rounding only)


def rope_data():
    rng = np.random.default_rng(ROPE_SEED)
    q = np.round(rng.uniform(-2, 2, size=(1, ROPE_D)), 1)  # one query, one decimal: (1, d_k)
    k = np.round(rng.uniform(-2, 2, size=(1, ROPE_D)), 1)  # one key
    positions = np.arange(ROPE_POSITIONS)
    omega = frequencies(ROPE_D, BASE)
    Q_rotated = attention.rope(np.repeat(q, ROPE_POSITIONS, axis=0), positions, BASE)  # (P, d_k): row m = q at m
    K_rotated = attention.rope(np.repeat(k, ROPE_POSITIONS, axis=0), positions, BASE)  # (P, d_k): row n = k at n
    S = attention.scores(Q_rotated, K_rotated)  # (P, d_k) x (d_k, P) -> (P, P): entry (m, n) = q at m · k at n
    return {
        "seed": ROPE_SEED,
        "d_k": ROPE_D,
        "base": BASE,
        "pairing": "interleaved, as in RoFormer: entries (1, 2), (3, 4), ... counted from 1; (0, 1), (2, 3) in code",
        "positions": positions.tolist(),
        "frequencies": omega.tolist(),
        "note": ("inputs.Q is one query and inputs.K one key. steps.angles[p][r] = p × frequencies[r], pair r "
                 "counted from 0 here; row p of steps.Q_rotated is the query turned to position p, row p′ of steps.K_rotated the key "
                 "turned to position p′, and steps.scores[p][p′] their dot product, which depends on p − p′ only."),
        "inputs": {"Q": q, "K": k},
        "steps": {"angles": positions[:, None] * omega, "Q_rotated": Q_rotated, "K_rotated": K_rotated, "scores": S},
        "outputs": {"scores": S},
    }


def turn_by_hand(x, angles, expected):
    """One vector turned pair by pair, as a reader redoes it: cos and sin printed with the fewest decimals (4 to
    7) with which every turned entry, added up from the printed products and rounded to 4 decimals, is the
    library's value (`expected`) to 4 decimals.

    -> {"cos", "sin", "minus_sin", "terms", "turned"}: printed texts; terms[c] is entry c's "(a)(cos) + (b)(−sin)".
    """
    x_exact = [printed(v, 1)[1] for v in x]
    for digits in range(4, 8):
        cos = [printed(np.cos(a), digits) for a in angles]
        sin = [printed(np.sin(a), digits) for a in angles]
        terms, turned = [], []
        for i in range(len(angles)):
            a, b = x_exact[2 * i], x_exact[2 * i + 1]
            (c_text, c), (s_text, s) = cos[i], sin[i]
            minus_s = num(-s, digits)
            terms += [f"{term(num(a, 1))}{term(c_text)} + {term(num(b, 1))}{term(minus_s)}",
                      f"{term(num(a, 1))}{term(s_text)} + {term(num(b, 1))}{term(c_text)}"]
            turned += [rounds_to(a * c - b * s, 4), rounds_to(a * s + b * c, 4)]
        if turned == [num(v, 4) for v in expected]:
            return {"cos": [c for c, _ in cos], "sin": [s for s, _ in sin], "minus_sin": [num(-s, digits) for _, s in sin],
                    "terms": terms, "turned": turned}
    raise BuildError(f"ex-rope: no printing of cos and sin with 4 to 7 decimals turns {vector(x, 1)} into the "
                     f"library's {vector(expected, 4)} by hand")


def dot_by_hand(q_turned, k_turned, expected):
    """q · k from the printed turned entries (4 decimals): each product to 4 decimals, their total to
    SCORE_DIGITS; -> (products, total) as printed, or BuildError when the total is not the library's score."""
    products = [rounds_to(printed_value(a) * printed_value(b), 4) for a, b in zip(q_turned, k_turned)]
    if None in products:
        raise BuildError(f"ex-rope: a product of {q_turned} and {k_turned} lies halfway between two 4-decimal prints")
    total = rounds_to(sum(printed_value(p) for p in products), SCORE_DIGITS)
    if total != num(expected, SCORE_DIGITS):
        raise BuildError(f"ex-rope: the products added up by hand give {total}, the library's score prints "
                         f"{num(expected, SCORE_DIGITS)}")
    return products, total


def offset_rows(S):
    """The offsets table, checked: equal p − p′ gives equal scores (to EQUAL_DECIMALS), and the chosen offsets
    print different scores, so the table shows the point rather than a coincidence."""
    rows, shown = [], {}
    for offset, pairs in OFFSETS.items():
        values = [S[m, n] for m, n in pairs]
        if any(m - n != offset for m, n in pairs):
            raise BuildError(f"ex-rope: the pairs {pairs} do not all have p − p′ = {offset}")
        if max(values) - min(values) > 10.0 ** -EQUAL_DECIMALS:
            raise BuildError(f"ex-rope: the pairs {pairs} have the same offset {offset} but scores {values}")
        shown[offset] = num(values[0], SCORE_DIGITS)
        rows += [[str(m), str(n), num(offset, 0), f"**{num(v, SCORE_DIGITS)}**"] for (m, n), v in zip(pairs, values)]
    if len(set(shown.values())) != len(shown):
        raise BuildError(f"ex-rope: different offsets print the same score {shown}; choose other offsets")
    return rows, shown


def diagonal_spread(S):
    """The largest difference between two scores with the same p − p′, over the whole table."""
    P = len(S)
    return max(float(np.ptp(np.diagonal(S, offset=o))) for o in range(-(P - 1), P))


def rope_snippets(example):
    q, k = example["inputs"]["Q"][0], example["inputs"]["K"][0]
    angles, S = example["steps"]["angles"], example["steps"]["scores"]
    Q_rotated, K_rotated, omega = example["steps"]["Q_rotated"], example["steps"]["K_rotated"], example["frequencies"]
    m, n = WORKED_M, WORKED_N
    pairs = len(omega)
    omega_texts = [num(w, 4, trim=True) for w in omega]
    if any(abs(float(printed_value(t)) - w) > 1e-15 for t, w in zip(omega_texts, omega)):
        raise BuildError(f"ex-rope: the frequencies {list(omega)} do not print exactly with 4 decimals")
    setup = (
        f"One query $q = {latex(q)}$ and one key $k = {latex(k)}$, with $d_k = {len(q)}$: "
        f"{pairs} pairs. Pair 1 (entries 1 and 2) turns at $\\omega_1 = {omega_texts[0]}$ radian per position, "
        f"pair 2 (entries 3 and 4) at $\\omega_2 = {BASE}^{{-2/{len(q)}}}$ = {omega_texts[1]}.\n"
    )

    def turn_part(name, x, p, turned_row):
        v = name[0]  # the symbol: q or k
        where = "p" if v == "q" else "p′"  # the query's position is p, the key's p′
        where_tex = "p" if v == "q" else "p'"
        hand = turn_by_hand(x, angles[p], turned_row)
        angle_rows = [[str(i + 1), f"{p} × {omega_texts[i]} = {num(angles[p][i], 4, trim=True)}", hand["cos"][i],
                       hand["sin"][i], hand["minus_sin"][i]] for i in range(pairs)]
        for i in range(pairs):  # the printed angle is the product of the printed numbers, exactly
            if Decimal(p) * printed_value(omega_texts[i]) != printed_value(angle_rows[i][1].split(" = ")[1]):
                raise BuildError(f"ex-rope: {angle_rows[i][1]} does not hold exactly")
        entry_rows = [[str(c + 1), hand["terms"][c], f"**{hand['turned'][c]}**"] for c in range(len(x))]
        return (
            f"The {name} at {where} = {p}: pair $r$ turns by $\\theta = {where_tex}\\,\\omega_r$ radians.\n\n"
            + table(["pair", f"angle θ = {where}ωᵣ", "cos θ", "sin θ", "−sin θ"], angle_rows)
            + f"\nThen pair $r$ becomes the two turned entries $\\hat{{{v}}}_{{2r-1}} = {v}_{{2r-1}}\\cos\\theta + {v}_{{2r}}(-\\sin\\theta)$ and "
            + f"$\\hat{{{v}}}_{{2r}} = {v}_{{2r-1}}\\sin\\theta + {v}_{{2r}}\\cos\\theta$, written as sums of products:\n\n"
            + table(["entry", "products, added", f"$\\hat{{{v}}}$, {name} at {where} = {p}"], entry_rows)
        ), hand["turned"]

    turn_q, q_turned = turn_part("query", q, m, Q_rotated[m])
    turn_k, k_turned = turn_part("key", k, n, K_rotated[n])
    products, total = dot_by_hand(q_turned, k_turned, S[m, n])
    dot_rows = [[str(c + 1), a, b, p] for c, (a, b, p) in enumerate(zip(q_turned, k_turned, products))]
    dot_rows.append(["**sum**", "", "", f"**{total}**"])
    norms = (np.linalg.norm(q), np.linalg.norm(Q_rotated[m]), np.linalg.norm(k), np.linalg.norm(K_rotated[n]))
    if abs(norms[0] - norms[1]) > 1e-12 or abs(norms[2] - norms[3]) > 1e-12:
        raise BuildError(f"ex-rope: turning changed a length: {norms}")
    score = (
        f"The score of the query at p = {m} against the key at p′ = {n}, entry by entry:\n\n"
        + table(["entry", f"$\\hat{{q}}$ at p = {m}", f"$\\hat{{k}}$ at p′ = {n}", "product"], dot_rows)
        + f"\nTurning changes no length: q is {num(norms[0], 4)} long before and after, k {num(norms[2], 4)}.\n"
    )
    rows, shown = offset_rows(S)
    spread = diagonal_spread(S)
    if spread > 10.0 ** -EQUAL_DECIMALS:
        raise BuildError(f"ex-rope: two scores with the same p − p′ differ by {spread}")
    same = [pair for pair in OFFSETS[m - n] if pair != (m, n)]
    offsets = (
        table(["query at p", "key at p′", "p − p′", "score"], rows)
        + f"\nThe pair worked out above, ({m}, {n}), scores {shown[m - n]}, and so do "
        + " and ".join(f"({a}, {b})" for a, b in same)
        + f": the same offset p − p′ = {num(m - n, 0)}, the same score. Across the whole {len(S)} × {len(S)} table, "
        + f"two scores with the same offset agree to at least {EQUAL_DECIMALS} decimals.\n"
    )
    return {"setup": setup, "turn-q": turn_q, "turn-k": turn_k, "score": score, "offsets": offsets}


def latex(values):
    """A one-decimal vector for LaTeX: [0.3,\\ {-1.2}]."""
    return "[" + ",\\ ".join(f"{{{t}}}" if t.startswith("-") else t
                              for t in (num(v, 1).replace(MINUS, "-") for v in values)) + "]"


EX_ROPE = Example("ex-rope", title="RoPE: one query and one key turned to six positions",
                  data=rope_data, snippets=rope_snippets)


def pair_points(example, r):
    """The query's pair r (counted from 0 here) at every position: (P, 2)."""
    return np.asarray(example["steps"]["Q_rotated"])[:, 2 * r: 2 * r + 2]


def turn_render(example, fig):
    """One panel per pair: the query's pair as an arrow from the origin, one arrow per position, on its circle."""
    omega = example["frequencies"]
    axes = fig.subplots(1, len(omega))
    # the page's text colour (black becomes it when inlined), fainter for the earlier positions: legible in both schemes
    opacities = np.linspace(0.3, 1.0, len(example["positions"]))
    # one scale for every panel, so that a longer arrow is a longer pair
    reach = 1.35 * max(float(np.hypot(*pair_points(example, r)[0])) for r in range(len(omega)))
    for r, ax in enumerate(axes):
        points = pair_points(example, r)
        radius = float(np.hypot(*points[0]))
        ax.add_patch(Circle((0, 0), radius, fill=False, linewidth=0.6, linestyle=":", color="#9e9e9e"))
        ax.axhline(0, color="#000000", linewidth=0.4, alpha=0.4)
        ax.axvline(0, color="#000000", linewidth=0.4, alpha=0.4)
        for p, ((x, y), opacity) in enumerate(zip(points, opacities)):
            ax.add_patch(FancyArrowPatch((0, 0), (x, y), arrowstyle="-|>", mutation_scale=9, color="#000000",
                                         alpha=opacity, linewidth=1.4, shrinkA=0, shrinkB=0))
            if r == 0:
                ax.text(1.18 * x, 1.18 * y, str(p), ha="center", va="center", fontsize=9)
        if r > 0:  # a slow pair's arrows overlap: one label for all of them, beside the bundle
            x, y = points[-1]
            ax.text(x + 0.12 * radius, 1.18 * y, f"0 to {len(points) - 1}", ha="left", va="center", fontsize=9)
        ax.set_xlim(-reach, reach)
        ax.set_ylim(-reach, reach)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title(f"pair {r + 1}, entries {2 * r + 1} and {2 * r + 2}\n{omega_label(r + 1)} = "
                     f"{num(omega[r], 4, trim=True)} per position", fontsize=9)


def turn_caption(example):
    positions, omega = example["positions"], example["frequencies"]
    last = positions[-1]
    return (
        f"The query's two pairs turned to every position from 0 to {last} (the number at each arrow is p, and the "
        f"earlier the position, the fainter the arrow). Both panels are drawn to one scale. Every arrow of a pair has the same length; pair 1 turns {num(omega[0], 4, trim=True)} radian further at each "
        f"position, pair 2 only {num(omega[1], 4, trim=True)}, so by p = {last} it has turned "
        f"{num(last * omega[1], 4, trim=True)} radians in all and its arrows nearly coincide."
    )


def turn_alt(example):
    lengths = [float(np.hypot(*pair_points(example, r)[0])) for r in range(len(example["frequencies"]))]
    return (
        f"Two panels of arrows from the origin, one arrow per position. Left, pair 1: {len(example['positions'])} "
        f"arrows of length {num(lengths[0])}, fanned around the circle, each turned "
        f"{num(example['frequencies'][0], 4, trim=True)} radian further than the last. "
        f"Right, pair 2: {len(example['positions'])} arrows of length {num(lengths[1])} that almost overlap."
    )


def turn_table(example):
    pairs = len(example["frequencies"])
    return {
        "caption": "The query's pairs after turning, one row per position p",
        "columns": ["p"] + [f"pair {r + 1}, entry {2 * r + e + 1}" for r in range(pairs) for e in range(2)],
        "rows": [[str(p)] + [float(x) for r in range(pairs) for x in pair_points(example, r)[p]]
                 for p in example["positions"]],
    }


def check_turn(example):
    """The caption's claims: every arrow of a pair as long as the unturned pair."""
    q = np.asarray(example["inputs"]["Q"][0])
    for r in range(len(example["frequencies"])):
        lengths = np.hypot(*pair_points(example, r).T)
        if np.abs(lengths - np.hypot(*q[2 * r: 2 * r + 2])).max() > 1e-12:
            raise BuildError(f"rope-turn: pair {r + 1} changes length as it turns: {lengths}")
    return example


def scores_render(example, ax):
    S = example["steps"]["scores"]
    labels = [str(p) for p in example["positions"]]
    drawn = heatmap(ax, S, labels, labels, quantity="scores")
    ax.set_xlabel("key at position p′", labelpad=6)
    ax.set_ylabel("query at position p", labelpad=6)
    return drawn


def scores_caption(example):
    S = example["steps"]["scores"]
    m, n = WORKED_M, WORKED_N
    return (
        f"The score of the query turned to position p (row) against the key turned to position p′ (column), "
        f"both from 0 to {len(S) - 1}. Along every diagonal, where p − p′ is the same, the number is the same: "
        f"p − p′ = {m - n} gives {num(S[m, n])} in each of its {len(S) - (m - n)} cells."
    )


def scores_alt(example):
    S = example["steps"]["scores"]
    return (
        f"A {len(S)} by {len(S)} grid of scores, rows p and columns p′ from 0 to {len(S) - 1}, coloured blue "
        f"(negative) to red (positive). Each diagonal running from top left to bottom right holds one repeated "
        f"number: the main diagonal {num(S[0, 0])} throughout, the one below it {num(S[1, 0])}, the one above it "
        f"{num(S[0, 1])}."
    )


def scores_table(example):
    S = example["steps"]["scores"]
    return {
        "caption": "Score of the query at position p (row) against the key at position p′ (column)",
        "columns": ["p \\ p′"] + [str(p) for p in example["positions"]],
        "rows": [[str(p)] + list(row) for p, row in zip(example["positions"], S)],
    }


ITEMS = [
    Snippets("positions-sinusoidal", data=sinusoidal_table_data, snippets=sinusoidal_snippets),
    Figure("positions-sinusoidal-map", title="Sinusoidal position vectors: one row per position, one wave per pair.",
           data=lambda: check_distinct_rows(map_data()), render=map_render, caption=map_caption, alt=map_alt,
           table=map_table, size=(PHONE_WIDTH, 4.0)),
    EX_ROPE,
    Figure("rope-turn", title="RoPE: the query's pairs turned to each position.",
           data=lambda: check_turn(EX_ROPE.compute()), render=turn_render, caption=turn_caption, alt=turn_alt,
           table=turn_table, size=(PHONE_WIDTH, 2.4)),
    Figure("rope-scores", title="RoPE: the score of a turned query and key depends on p − p′ only.",
           data=EX_ROPE.compute, render=scores_render, caption=scores_caption, alt=scores_alt, table=scores_table,
           size=(PHONE_WIDTH, 3.6)),
]
