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

from ..engine import BuildError, Example, Figure, Snippets, Words
from ..engine.heatmap import SCORE_CMAP, CellImage, heatmap
from ..engine.notebooks import code, markdown, notebook, source
from ..engine.style import PHONE_WIDTH
from ..engine.text import MINUS, num, table, vector
from ..engine.words import listed

BASE = 10000  # the library's default, the original transformer's and RoFormer's
WORDS = Words("words/positions.md")

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
        "table": WORDS.fill("positions-sinusoidal-table", d=TABLE_D, pairs=TABLE_D // 2, frequencies=frequencies_line,
                            positions=TABLE_POSITIONS, digits=TABLE_DIGITS, table=table(columns, rows)),
        "step": WORDS.fill("positions-sinusoidal-step", p=p, pair=pair, first_entry=2 * pair - 1, second_entry=2 * pair,
                           omega=omega_label(pair), frequency=w_text, angle=angle_text, sin=sin_text, cos=cos_text,
                           fastest=first, last_pair=TABLE_D // 2, slowest=last) + "\n",
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
    return WORDS.fill("positions-sinusoidal-distance", equal_dots=same, dot=num(dots[0], 3), distance=gaps.pop()) + "\n"


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
    ax.set_xlabel(WORDS.line("positions-sinusoidal-map-xlabel"))
    ax.set_ylabel(WORDS.line("positions-sinusoidal-map-ylabel"))
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
    return WORDS.line("positions-sinusoidal-map-caption", last=n - 1, d=d, turn=num(slowest_turn(data), 3), positions=n)


def map_alt(data):
    n, d = data["pe"].shape
    return WORDS.line("positions-sinusoidal-map-alt", positions=n, d=d)


def map_table(data):
    pe = data["pe"]
    return {
        "caption": WORDS.line("positions-sinusoidal-map-table-caption"),
        "columns": [WORDS.line("positions-sinusoidal-map-table-corner")] + [str(c + 1) for c in range(pe.shape[1])],
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


def rope_inputs():
    """One query and one key of width d_k = ROPE_D, one-decimal numbers drawn from ROPE_SEED: (1, d_k) each."""
    rng = np.random.default_rng(ROPE_SEED)
    q = np.round(rng.uniform(-2, 2, size=(1, ROPE_D)), 1)  # one query, one decimal: (1, d_k)
    k = np.round(rng.uniform(-2, 2, size=(1, ROPE_D)), 1)  # one key
    return q, k


def rope_data():
    q, k = rope_inputs()
    positions = np.arange(ROPE_POSITIONS)
    omega = frequencies(ROPE_D, BASE)
    Q_rotated = attention.rope(np.repeat(q, ROPE_POSITIONS, axis=0), positions, BASE)  # (P, d_k): row m = q at m
    K_rotated = attention.rope(np.repeat(k, ROPE_POSITIONS, axis=0), positions, BASE)  # (P, d_k): row n = k at n
    S = attention.scores(Q_rotated, K_rotated)  # (P, d_k) x (d_k, P) -> (P, P): entry (m, n) = q at m · k at n
    return {
        "seed": ROPE_SEED,
        "d_k": ROPE_D,
        "base": BASE,
        "pairing": WORDS.line("ex-rope-pairing"),
        "positions": positions.tolist(),
        "frequencies": omega.tolist(),
        "note": WORDS.line("ex-rope-note"),
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
    setup = WORDS.fill("ex-rope-setup", q=latex(q), k=latex(k), d_k=len(q), pairs=pairs, first=omega_texts[0],
                       base=BASE, second=omega_texts[1]) + "\n"

    def turn_part(v, x, p, turned_row):
        """v: the symbol, q or k."""
        name = WORDS.line("ex-rope-turn/query" if v == "q" else "ex-rope-turn/key")
        where = "p" if v == "q" else "p′"  # the query's position is p, the key's p′
        where_tex = "p" if v == "q" else "p'"
        hand = turn_by_hand(x, angles[p], turned_row)
        angle_rows = [[str(i + 1), f"{p} × {omega_texts[i]} = {num(angles[p][i], 4, trim=True)}", hand["cos"][i],
                       hand["sin"][i], hand["minus_sin"][i]] for i in range(pairs)]
        for i in range(pairs):  # the printed angle is the product of the printed numbers, exactly
            if Decimal(p) * printed_value(omega_texts[i]) != printed_value(angle_rows[i][1].split(" = ")[1]):
                raise BuildError(f"ex-rope: {angle_rows[i][1]} does not hold exactly")
        entry_rows = [[str(c + 1), hand["terms"][c], f"**{hand['turned'][c]}**"] for c in range(len(x))]
        angle_columns = WORDS.line("ex-rope-turn/angle-columns", where=where).split(" | ")
        entry_columns = WORDS.line("ex-rope-turn/entry-columns", v=v, name=name, where=where, p=p).split(" | ")
        return WORDS.fill("ex-rope-turn", name=name, where=where, p=p, where_tex=where_tex, v=v,
                          angles=table(angle_columns, angle_rows).rstrip("\n"),
                          entries=table(entry_columns, entry_rows)), hand["turned"]

    turn_q, q_turned = turn_part("q", q, m, Q_rotated[m])
    turn_k, k_turned = turn_part("k", k, n, K_rotated[n])
    products, total = dot_by_hand(q_turned, k_turned, S[m, n])
    dot_rows = [[str(c + 1), a, b, p] for c, (a, b, p) in enumerate(zip(q_turned, k_turned, products))]
    dot_rows.append([WORDS.line("ex-rope-score/sum"), "", "", f"**{total}**"])
    norms = (np.linalg.norm(q), np.linalg.norm(Q_rotated[m]), np.linalg.norm(k), np.linalg.norm(K_rotated[n]))
    if abs(norms[0] - norms[1]) > 1e-12 or abs(norms[2] - norms[3]) > 1e-12:
        raise BuildError(f"ex-rope: turning changed a length: {norms}")
    score = WORDS.fill("ex-rope-score", m=m, n=n, q_length=num(norms[0], 4), k_length=num(norms[2], 4),
                       table=table(WORDS.line("ex-rope-score/columns", m=m, n=n).split(" | "), dot_rows).rstrip("\n")) + "\n"
    rows, shown = offset_rows(S)
    spread = diagonal_spread(S)
    if spread > 10.0 ** -EQUAL_DECIMALS:
        raise BuildError(f"ex-rope: two scores with the same p − p′ differ by {spread}")
    same = [f"({a}, {b})" for a, b in OFFSETS[m - n] if (a, b) != (m, n)]
    others = listed(same)
    offsets = WORDS.fill("ex-rope-offsets", m=m, n=n, score=shown[m - n], others=others, offset=num(m - n, 0),
                         size=len(S), decimals=EQUAL_DECIMALS,
                         table=table(WORDS.line("ex-rope-offsets/columns").split(" | "), rows).rstrip("\n")) + "\n"
    return {"setup": setup, "turn-q": turn_q, "turn-k": turn_k, "score": score, "offsets": offsets}


def latex(values):
    """A one-decimal vector for LaTeX: [0.3,\\ {-1.2}]."""
    return "[" + ",\\ ".join(f"{{{t}}}" if t.startswith("-") else t
                              for t in (num(v, 1).replace(MINUS, "-") for v in values)) + "]"


EX_ROPE = Example("ex-rope", title=WORDS.line("ex-rope-title"),
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
            ax.text(x + 0.12 * radius, 1.18 * y, WORDS.line("rope-turn-range", first=0, last=len(points) - 1),
                    ha="left", va="center", fontsize=9)
        ax.set_xlim(-reach, reach)
        ax.set_ylim(-reach, reach)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title(WORDS.line("rope-turn-panel", pair=r + 1, first_entry=2 * r + 1, second_entry=2 * r + 2) + "\n"
                     + WORDS.line("rope-turn-panel/rate", omega=omega_label(r + 1), frequency=num(omega[r], 4, trim=True)),
                     fontsize=9)


def turn_caption(example):
    positions, omega = example["positions"], example["frequencies"]
    last = positions[-1]
    return WORDS.line("rope-turn-caption", last=last, fast=num(omega[0], 4, trim=True), slow=num(omega[1], 4, trim=True),
                      turned=num(last * omega[1], 4, trim=True))


def turn_alt(example):
    lengths = [float(np.hypot(*pair_points(example, r)[0])) for r in range(len(example["frequencies"]))]
    return WORDS.line("rope-turn-alt", positions=len(example["positions"]), fast_length=num(lengths[0]),
                      fast=num(example["frequencies"][0], 4, trim=True), slow_length=num(lengths[1]))


def turn_table(example):
    pairs = len(example["frequencies"])
    return {
        "caption": WORDS.line("rope-turn-table-caption"),
        "columns": ["p"] + [WORDS.line("rope-turn-table-column", pair=r + 1, entry=2 * r + e + 1)
                            for r in range(pairs) for e in range(2)],
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
    ax.set_xlabel(WORDS.line("rope-scores-xlabel"), labelpad=6)
    ax.set_ylabel(WORDS.line("rope-scores-ylabel"), labelpad=6)
    return drawn


def scores_caption(example):
    S = example["steps"]["scores"]
    m, n = WORKED_M, WORKED_N
    return WORDS.line("rope-scores-caption", last=len(S) - 1, offset=m - n, score=num(S[m, n]), cells=len(S) - (m - n))


def scores_alt(example):
    S = example["steps"]["scores"]
    return WORDS.line("rope-scores-alt", size=len(S), last=len(S) - 1, diagonal=num(S[0, 0]), below=num(S[1, 0]),
                      above=num(S[0, 1]))


def scores_table(example):
    S = example["steps"]["scores"]
    return {
        "caption": WORDS.line("rope-scores-table-caption"),
        "columns": ["p \\ p′"] + [str(p) for p in example["positions"]],
        "rows": [[str(p)] + list(row) for p, row in zip(example["positions"], S)],
    }


def notebook_cells():
    return [
        # the sine waves
        markdown(WORDS.fill("nb-frequencies", base=BASE, d=TABLE_D, pairs=TABLE_D // 2,
                            omega=listed([num(w, 4, trim=True) for w in frequencies(TABLE_D, BASE)]))),
        code(f"""
            from attention.positions import frequencies

            BASE = {BASE!r}
            TABLE_POSITIONS, TABLE_D = {TABLE_POSITIONS!r}, {TABLE_D!r}
            omega = frequencies(TABLE_D, BASE)  # ω_r for the pairs r = 1 … d/2 (index r − 1)
            omega"""),
        markdown(WORDS.fill("nb-sinusoidal")),
        code("""
            PE = attention.sinusoidal_positions(TABLE_POSITIONS, TABLE_D, BASE)  # (positions, d): row p is PE_p
            PE.round(3)"""),
        markdown(WORDS.fill("nb-sinusoidal-entry", p=WORKED_P, r=WORKED_PAIR, first=2 * WORKED_PAIR - 1,
                            start=2 * WORKED_PAIR - 2, end=2 * WORKED_PAIR - 1, second=2 * WORKED_PAIR)),
        code(f"""
            p, r = {WORKED_P!r}, {WORKED_PAIR!r}  # the page's worked entry: position p, pair r (counted from 1)
            angle = p * omega[r - 1]
            print("angle", round(angle, 4), " sin", round(np.sin(angle), 3), " cos", round(np.cos(angle), 3))
            print("entries", 2 * r - 1, "and", 2 * r, f"of PE_{{p}}:", PE[p, 2 * r - 2:2 * r].round(3))"""),
        markdown(WORDS.fill("nb-sinusoidal-distance", count=len(DISTANCE_PAIRS),
                            distance=DISTANCE_PAIRS[0][1] - DISTANCE_PAIRS[0][0])),
        code(f"""
            for a, b in {DISTANCE_PAIRS!r}:
                print(f"PE_{{a}} · PE_{{b}} =", round(PE[a] @ PE[b], 4))"""),
        markdown(WORDS.fill("nb-sinusoidal-map", positions=MAP_POSITIONS, d=MAP_D)),
        code(f"""
            from figures_src.engine.heatmap import SCORE_CMAP  # the site's colours for numbers of either sign

            waves = attention.sinusoidal_positions({MAP_POSITIONS!r}, {MAP_D!r}, BASE)  # (positions, d)
            fig, ax = plt.subplots(figsize=(4.4, 4))
            shown = ax.imshow(waves, cmap=SCORE_CMAP, vmin=-1, vmax=1, aspect="auto")
            entries = range(0, waves.shape[1], 3)
            ax.set_xticks(entries, labels=[str(c + 1) for c in entries])  # entries counted from 1, as the page
            ax.set_xlabel({WORDS.line("positions-sinusoidal-map-xlabel")!r})
            ax.set_ylabel({WORDS.line("positions-sinusoidal-map-ylabel")!r})
            fig.colorbar(shown, ax=ax)
            plt.show()"""),
        # RoPE
        markdown(WORDS.fill("nb-rope-inputs", d_k=ROPE_D, pairs=ROPE_D // 2, last=ROPE_POSITIONS - 1)),
        code(f"ROPE_SEED, ROPE_D, ROPE_POSITIONS = {ROPE_SEED!r}, {ROPE_D!r}, {ROPE_POSITIONS!r}"),
        source(rope_inputs),
        code("""
            q, k = rope_inputs()
            positions = np.arange(ROPE_POSITIONS)
            print("q =", q[0], " k =", k[0])"""),
        markdown(WORDS.fill("nb-rope-angles", d_k=ROPE_D, omega=listed(
            [f"$\\omega_{r + 1} = {num(w, 4, trim=True)}$" for r, w in enumerate(frequencies(ROPE_D, BASE))]))),
        code("""
            omega = frequencies(ROPE_D, BASE)
            angles = positions[:, None] * omega  # (positions, d_k/2): θ = p ω_r
            angles"""),
        markdown(WORDS.fill("nb-rope-turn")),
        code(f"""
            Q_rotated = attention.rope(np.repeat(q, ROPE_POSITIONS, axis=0), positions, BASE)  # row p: q̂ at p
            K_rotated = attention.rope(np.repeat(k, ROPE_POSITIONS, axis=0), positions, BASE)  # row p′: k̂ at p′
            p, p_prime = {WORKED_M!r}, {WORKED_N!r}  # the page's worked query and key positions
            p, p_prime = min(p, ROPE_POSITIONS - 1), min(p_prime, ROPE_POSITIONS - 1)  # inside fewer positions
            r = 1  # pair r, counted from 1
            theta = angles[p, r - 1]
            turn = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
            pair = q[0, 2 * r - 2:2 * r]
            print(f"θ = {{p}} ω_{{r}} = {{theta:.5f}}: cos θ = {{np.cos(theta):.5f}}, sin θ = {{np.sin(theta):.5f}}")
            print(f"pair {{r}} of q:", pair, " turned:", turn @ pair)
            assert np.allclose(turn @ pair, Q_rotated[p, 2 * r - 2:2 * r], rtol=0, atol=1e-12), (
                "the turn by hand differs from attention.rope")
            assert np.allclose(np.linalg.norm(Q_rotated, axis=1), np.linalg.norm(q), rtol=0, atol=1e-12), (
                "a turned query should keep the length of q")
            print(f"q̂ at p = {{p}}:", Q_rotated[p])
            print(f"k̂ at p′ = {{p_prime}}:", K_rotated[p_prime])"""),
        markdown(WORDS.fill("nb-rope-scores", p=WORKED_M, p_prime=WORKED_N, offset=WORKED_M - WORKED_N)),
        code(f"""
            S = attention.scores(Q_rotated, K_rotated)  # entry (p, p′): q̂ at p · k̂ at p′
            print(f"q̂ at {{p}} · k̂ at {{p_prime}} =", round(S[p, p_prime], 4),
                  f" q̂ at {{p - p_prime}} · k̂ at 0 =", round(S[p - p_prime, 0], 4))
            labels = [str(p) for p in positions]
            fig, ax = plt.subplots(figsize=(4.4, 3.6))
            heatmap(ax, S, labels, labels, quantity="scores")
            ax.set_xlabel({WORDS.line("rope-scores-xlabel")!r})
            ax.set_ylabel({WORDS.line("rope-scores-ylabel")!r})
            plt.show()"""),
        markdown(WORDS.fill("nb-rope-example")),
        code("""
            rope = {
                "positions": positions.tolist(),
                "frequencies": omega.tolist(),
                "inputs": {"Q": q, "K": k},
                "steps": {"angles": angles, "Q_rotated": Q_rotated, "K_rotated": K_rotated, "scores": S},
                "outputs": {"scores": S},
            }
            offsets = {o: np.diagonal(S, -o) for o in range(1 - len(S), len(S))}  # every pair p − p′ = o
            for o, diagonal in offsets.items():
                assert np.ptp(diagonal) < 1e-12, f"the diagonal p − p′ = {o} holds more than one score"
                cells = "its 1 cell" if len(diagonal) == 1 else f"all {len(diagonal)} cells"
                print(f"p − p′ = {o:>2}: score {diagonal[0]:9.6f} on {cells}")"""),
    ]


ITEMS = [
    Snippets("positions-sinusoidal", data=sinusoidal_table_data, snippets=sinusoidal_snippets),
    Figure("positions-sinusoidal-map", title=WORDS.line("positions-sinusoidal-map-title"),
           data=lambda: check_distinct_rows(map_data()), render=map_render, caption=map_caption, alt=map_alt,
           table=map_table, size=(PHONE_WIDTH, 4.0)),
    EX_ROPE,
    Figure("rope-turn", title=WORDS.line("rope-turn-title"),
           data=lambda: check_turn(EX_ROPE.compute()), render=turn_render, caption=turn_caption, alt=turn_alt,
           table=turn_table, size=(PHONE_WIDTH, 2.4)),
    Figure("rope-scores", title=WORDS.line("rope-scores-title"),
           data=EX_ROPE.compute, render=scores_render, caption=scores_caption, alt=scores_alt, table=scores_table,
           size=(PHONE_WIDTH, 3.6)),
    notebook("positions.md", notebook_cells, examples={EX_ROPE: "rope"}),
]
