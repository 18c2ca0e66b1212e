"""The numeric problem sets of the Problems page (SETS): seeded variants with inputs, answers, hints and solutions.

Every answer comes from `attention/`; the intermediate numbers of hints and solutions are the same
arithmetic written out step by step (tests/test_problems.py checks that they lead to the answer).
Inputs are small integers or one-decimal numbers so the work can be done by hand with a calculator.

A variant is a dict:
    id, seed, prompt            the question in words
    inputs   [matrix]           what the reader is given
    parts    [matrix + tolerance + slips]   what the reader types, cell by cell, row-major, and the common
                                           wrong answers to it, each with the feedback that names it
    hints    [str]              one step at a time
    solution [{key, text, matrix?}]  every step with its numbers
where a matrix is {name, label, values (rows of numbers; null = −∞; booleans for masks), rows, cols}.

Every string a reader sees is a section of words/problems-sets.md (or words/problems-concepts.md), named
<set>-<what> and filled here with numbers formatted by `fmt` (WORDS.line: one line, as the JSON holds it); a phrase
that changes with the data is a variant (`soften-rows-prompt/entropy`, `decode-step-layers/one`). Symbols (Q, QKᵀ/√d_k,
dV = Aᵀ dO) and the arithmetic written out from numbers (`dot_text`, "4 / 2 = 2") stay here.
"""
import math
import re

import numpy as np

import attention as A
from attention.positions import frequencies as attention_frequencies

from ...engine import BuildError, Words
from ...engine.words import listed
from ...engine.text import PROBLEM_DIGITS as DIGITS
from ...engine.text import dims, num, vector

# The sets' prompts, hints, solution steps, slips and labels (a section per string, named <set>-<what>), and the
# conceptual questions; the numbers that fill them are computed here.
WORDS = Words("words/problems-sets.md")
CONCEPTS = Words("words/problems-concepts.md")

N_VARIANTS = 12
TOLERANCE = 0.01


# ---------------------------------------------------------------- numbers and labels


def fmt(x):
    """A problem's number: at most DIGITS decimals, no trailing zeros (the site's `num`), its whole part grouped in
    threes by commas as the site writes 1,024 (the Problems page's JavaScript prints the same, with formatNumber and
    the contract's PROBLEM_DIGITS, and its checker accepts the commas back)."""
    text = num(x, DIGITS, trim=True)
    number = re.fullmatch(r"(−?)(\d+)(.*)", text)  # −∞ has no digits
    return f"{number[1]}{int(number[2]):,}{number[3]}" if number else text


def fmt_vec(xs):
    return vector(xs, DIGITS, trim=True)


def paren(x):
    """A factor in a written-out product: negative numbers in parentheses."""
    text = fmt(x)
    return f"({text})" if text.startswith("−") else text


def root_text(d_k):
    """√d_k as a reader divides by it: '2' for d_k = 4, '√3 ≈ 1.7321' for d_k = 3."""
    root = math.sqrt(d_k)
    return fmt(root) if root.is_integer() else f"√{d_k} ≈ {fmt(root)}"


def counted(count, one, many):
    """"1 layer", "2 layers": the words file's section `one` for a count of 1, else `many`."""
    return WORDS.line(one if count == 1 else many, count=count)


def dot_text(u, v):
    """'1·2 + 0·(−1) + …' for the dot product u · v."""
    return " + ".join(f"{paren(a)}·{paren(b)}" for a, b in zip(u, v, strict=True))


def plain(values):
    """Nested lists of Python floats (ints stay exact in JSON as 1.0 -> 1.0), booleans kept, -inf -> None."""
    arr = np.asarray(values)
    if arr.dtype == bool:
        return arr.tolist()
    return [[None if v == -math.inf else float(v) for v in row] for row in np.atleast_2d(arr).tolist()]


def matrix(name, label, values, rows, cols):
    values = plain(values)
    if len(values) != len(rows) or any(len(r) != len(cols) for r in values):
        raise ValueError(f"matrix {name}: values {np.shape(values)} do not match {len(rows)} row and {len(cols)} column labels")
    return {"name": name, "label": label, "values": values, "rows": list(rows), "cols": list(cols)}


def part(name, label, values, rows, cols, tolerance=TOLERANCE):
    return {**matrix(name, label, values, rows, cols), "tolerance": tolerance, "slips": []}


def step(key, text, m=None):
    return {"key": key, "text": text, **({"matrix": m} if m is not None else {})}


def slip(key, message, values):
    """A common wrong answer to one part: what that mistake gives (`values`, computed on the variant's own
    inputs) and the feedback naming it. `with_slips` keeps it only where it is a possible answer and not the
    right one."""
    return {"slip": key, "message": message, "values": values}


def with_slips(p, candidates):
    """The part `p` with the slips a reader can make on it: a candidate is dropped when the mistake gives no
    table of the part's shape (K not transposed only works for some shapes), when it is not finite, when it
    lies within twice the tolerance of the right answer everywhere (an answer could then match both), and
    when an earlier slip already gives the same table. problems.js names a slip when every entry the reader
    typed matches it within the part's tolerance and at least one entry is wrong."""
    right = np.asarray(p["values"], dtype=float)
    kept = []
    for c in candidates:
        values = np.asarray(c["values"], dtype=float)
        if values.shape != right.shape or not np.isfinite(values).all():
            continue
        if any(np.abs(values - other).max() <= 2 * p["tolerance"] for other in [right, *(k["values"] for k in kept)]):
            continue
        kept.append({**c, "values": values})
    return {**p, "slips": [{**k, "values": plain(k["values"])} for k in kept]}


def small_ints(rng, shape, low=-2, high=2):
    """Integers in [low, high], no all-zero row (a zero query or key makes a dull problem)."""
    while True:
        x = rng.integers(low, high + 1, size=shape).astype(float)
        if (np.abs(x).sum(axis=-1) > 0).all():
            return x


def one_decimals(rng, shape, limit=2.0):
    return rng.integers(-round(limit * 10), round(limit * 10) + 1, size=shape) / 10


# ---------------------------------------------------------------- softmax written out


def softmax_steps(S, mask=None):
    """The hand computation of softmax row by row: row maxima, shifted scores, exponentials, sums, weights.

    S (n_q, n_k), mask bool (n_q, n_k) or None -> dict of arrays; masked entries are -inf in `shifted`
    and 0 in `exp`.
    """
    allowed = np.ones(S.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    masked = np.where(allowed, S, -np.inf)
    row_max = np.array([row[ok].max() if ok.any() else 0.0 for row, ok in zip(S, allowed)])
    shifted = np.where(allowed, S - row_max[:, None], -np.inf)
    exp = np.where(allowed, np.exp(np.where(allowed, shifted, 0.0)), 0.0)
    sums = exp.sum(axis=1)
    return {"masked": masked, "row_max": row_max, "shifted": shifted, "exp": exp, "sums": sums,
            "weights": exp / sums[:, None]}


def softmax_solution(S, sm, rows, cols, allowed_only=False):
    """Solution steps for softmax given softmax_steps(S) = sm; `allowed_only` says the maxima skip masked keys."""
    return [
        step("row_max", WORDS.line("softmax-row-max/allowed" if allowed_only else "softmax-row-max"),
             matrix("row_max", WORDS.line("softmax-row-max-label"), sm["row_max"][:, None], rows, ["s̃_max"])),
        step("shifted", WORDS.line("softmax-shifted"),
             matrix("shifted", "S̃ − s̃_max", sm["shifted"], rows, cols)),
        step("exp", WORDS.line("softmax-exp/infinite" if np.isinf(sm["shifted"]).any() else "softmax-exp"),
             matrix("exp", "e^(S̃ − s̃_max)", sm["exp"], rows, cols)),
        step("sums", WORDS.line("softmax-sums"), matrix("sums", WORDS.line("softmax-sums-label"), sm["sums"][:, None],
                                                        rows, [WORDS.line("softmax-sums-column")])),
        step("weights", WORDS.line("softmax-weights"),
             matrix("weights", WORDS.line("softmax-weights-label"), sm["weights"], rows, cols)),
    ]


def columns_slip(values, row=None):
    """The softmax taken down the columns: the whole table, or one `row` of it (counted from 1)."""
    message = WORDS.line("slip-columns") if row is None else WORDS.line("slip-columns/row", row=row)
    return slip("columns", message, values)


# ---------------------------------------------------------------- 1. scale the scores


def score_slips(Q, K):
    """The common wrong tables for QKᵀ/√d_k: no scaling, ÷d_k, K not transposed, queries and keys swapped."""
    d_k = Q.shape[1]
    root = math.sqrt(d_k)
    candidates = [
        slip("unscaled", WORDS.line("scale-scores-slip-unscaled", root=root_text(d_k)), A.scores(Q, K)),
        slip("over_d_k", WORDS.line("scale-scores-slip-over-d-k", d_k=d_k, root=root_text(d_k)), A.scores(Q, K) / d_k),
    ]
    if K.shape[0] == d_k:  # Q (n_q, d_k) times K (n_k, d_k) has a result only when n_k = d_k
        candidates.append(slip("no_transpose", WORDS.line("scale-scores-slip-no-transpose"), Q @ K / root))
    candidates.append(slip("swapped", WORDS.line("scale-scores-slip-swapped"), A.scaled_scores(K, Q)))
    return candidates


def scale_scores(index, seed):
    rng = np.random.default_rng(seed)
    d_k = (4, 4, 4, 2, 4, 4, 3, 4, 4, 4, 2, 4)[index % 12]
    n_q, n_k = int(rng.integers(2, 4)), int(rng.integers(3, 5))
    Q = small_ints(rng, (n_q, d_k))
    K = small_ints(rng, (n_k, d_k))
    raw = A.scores(Q, K)
    answer = A.scaled_scores(Q, K)
    rows, cols, entries = dims("q", n_q), dims("k", n_k), dims("d", d_k)
    root = math.sqrt(d_k)
    root_shown = root_text(d_k)
    worked = f"q1·k1 = {dot_text(Q[0], K[0])} = {fmt(raw[0, 0])}"
    return {
        "prompt": WORDS.line("scale-scores-prompt", n_q=n_q, n_k=n_k, d_k=d_k),
        "inputs": [matrix("Q", f"Q ({n_q} × {d_k})", Q, rows, entries), matrix("K", f"K ({n_k} × {d_k})", K, dims("k", n_k), entries)],
        "parts": [with_slips(part("scaled_scores", "QKᵀ/√d_k", answer, rows, cols), score_slips(Q, K))],
        "hints": [
            WORDS.line("scale-scores-hint-dot"),
            WORDS.line("scale-scores-hint-entry", worked=worked),
            WORDS.line("scale-scores-hint-divide", d_k=d_k, root=root_shown, raw=fmt(raw[0, 0]), divisor=fmt(root),
                       scaled=fmt(answer[0, 0])),
        ],
        "solution": [
            step("scores", WORDS.line("scale-scores-solution-scores", worked=worked),
                 matrix("scores", "QKᵀ", raw, rows, cols)),
            step("scaled_scores", WORDS.line("scale-scores-solution-scaled", d_k=d_k, root=root_shown),
                 matrix("scaled_scores", "QKᵀ/√d_k", answer, rows, cols)),
        ],
    }



# ---------------------------------------------------------------- 2. soften the rows


def soften_rows(index, seed):
    rng = np.random.default_rng(seed)
    n_q, n_k = int(rng.integers(2, 4)), int(rng.integers(3, 5))
    S = small_ints(rng, (n_q, n_k)) if index % 3 == 0 else one_decimals(rng, (n_q, n_k))
    with_entropy = index % 2 == 1
    weights = A.softmax(S)
    rows, cols = dims("q", n_q), dims("k", n_k)
    sm = softmax_steps(S)
    parts = [with_slips(part("weights", WORDS.line("soften-rows-weights-label"), weights, rows, cols),
                        [columns_slip(A.softmax(S.T).T)])]
    hints = [
        WORDS.line("soften-rows-hint-shift", row_max=fmt(sm["row_max"][0]), shifted=fmt_vec(sm["shifted"][0])),
        WORDS.line("soften-rows-hint-exp", exp=fmt_vec(sm["exp"][0])),
        WORDS.line("soften-rows-hint-divide", total=fmt(sm["sums"][0]), weights=fmt_vec(weights[0])),
    ]
    solution = softmax_solution(S, sm, rows, cols)
    if with_entropy:
        entropy = A.row_entropy(weights)
        terms = np.where(weights > 0, -weights * np.log(np.where(weights > 0, weights, 1.0)), 0.0)
        parts.append(with_slips(part("entropy", WORDS.line("soften-rows-entropy-label"), entropy[:, None], rows,
                                     ["H"]), [
            slip("bits", WORDS.line("soften-rows-slip-bits"), entropy[:, None] / math.log(2)),
            slip("sign", WORDS.line("soften-rows-slip-sign"), -entropy[:, None]),
        ]))
        hints.append(WORDS.line("soften-rows-hint-entropy", terms=fmt_vec(terms[0]), entropy=fmt(entropy[0])))
        solution += [
            step("entropy_terms", WORDS.line("soften-rows-solution-terms"),
                 matrix("entropy_terms", "−a·ln a", terms, rows, cols)),
            step("entropy", WORDS.line("soften-rows-solution-entropy", n_k=n_k, largest=fmt(math.log(n_k))),
                 matrix("entropy", WORDS.line("soften-rows-solution-entropy-label"), entropy[:, None], rows, ["H"])),
        ]
    return {
        "prompt": WORDS.line("soften-rows-prompt/entropy" if with_entropy else "soften-rows-prompt", n_q=n_q, n_k=n_k),
        "inputs": [matrix("S", f"S̃ ({n_q} × {n_k})", S, rows, cols)],
        "parts": parts,
        "hints": hints,
        "solution": solution,
    }


# ---------------------------------------------------------------- 3. take the weighted sum


def tenths(rng, n_k):
    """A row of weights in tenths adding up to exactly 1: 10 tenths dealt out at random."""
    counts = np.bincount(rng.integers(0, n_k, size=10), minlength=n_k)
    return counts / 10


def weighted_sum_by_library(W, V):
    """W·V through the library's `attend`: with scores ln W (masked where W = 0) and scale 1, the
    softmax returns exactly the rows of W, so attend's output is the weighted sum of the rows of V."""
    n_k = W.shape[1]
    positive = W > 0
    log_w = np.log(np.where(positive, W, 1.0))
    out, weights = A.attend(log_w, np.eye(n_k), V, mask=positive, scale=1.0)
    if not np.allclose(weights, W, rtol=0, atol=1e-12):
        raise AssertionError("attend did not reproduce the given weights")
    return out


def output_slips(weights, V, unweighted=True):
    """The common wrong outputs of weights·V: the weights read down their columns (AᵀV, which has the
    output's shape only when there are as many queries as keys), V on the wrong side (VA, when its shape is
    the output's) and the values averaged without weights."""
    n_q, n_k = weights.shape
    candidates = []
    if n_q == n_k:
        candidates.append(slip("transposed_weights", WORDS.line("weighted-sum-slip-transposed"), weights.T @ V))
    if V.shape[1] == n_q:  # V (n_k, d_v) times the weights (n_q, n_k) has a result only when d_v = n_q
        candidates.append(slip("v_first", WORDS.line("weighted-sum-slip-v-first"), V @ weights))
    if unweighted:
        candidates.append(slip("unweighted", WORDS.line("weighted-sum-slip-unweighted"),
                               np.broadcast_to(V.mean(axis=0), (n_q, V.shape[1]))))
    return candidates


def weighted_sum(index, seed):
    rng = np.random.default_rng(seed)
    n_q, n_k, d_v = int(rng.integers(2, 4)), int(rng.integers(3, 5)), int(rng.integers(2, 4))
    W = np.stack([tenths(rng, n_k) for _ in range(n_q)])
    V = small_ints(rng, (n_k, d_v), -3, 3)
    out = weighted_sum_by_library(W, V)
    rows, keys, entries = dims("q", n_q), dims("k", n_k), dims("d", d_v)
    vrows = dims("v", n_k)

    def row_text(i):
        terms = " + ".join(f"{fmt(W[i, j])}·{fmt_vec(V[j])}" for j in range(n_k))
        scaled = " + ".join(fmt_vec(W[i, j] * V[j]) for j in range(n_k))
        return WORDS.line("weighted-sum-row", row=i + 1, sum=f"{terms} = {scaled} = {fmt_vec(out[i])}")

    label = WORDS.line("weighted-sum-out-label")
    return {
        "prompt": WORDS.line("weighted-sum-prompt", n_q=n_q, n_k=n_k, d_v=d_v),
        "inputs": [matrix("A", f"A ({n_q} × {n_k})", W, rows, keys), matrix("V", f"V ({n_k} × {d_v})", V, vrows, entries)],
        "parts": [with_slips(part("out", label, out, rows, entries), output_slips(W, V))],
        "hints": [
            WORDS.line("weighted-sum-hint-average"),
            WORDS.line("weighted-sum-row", row=1, sum=" + ".join(f"{fmt(W[0, j])}·v{j + 1}" for j in range(n_k))),
            row_text(0),
        ],
        "solution": [step(f"row_{i + 1}", row_text(i)) for i in range(n_q)]
        + [step("out", WORDS.line("together"), matrix("out", label, out, rows, entries))],
    }



# ---------------------------------------------------------------- 4. end to end


# (n, d_model, d_k, d_v) of the end-to-end variants. The first twelve, published with d_k = 4 only, stay as
# they are (teachers cite them by id); the later ones vary every size, so a solution that divides by a fixed 2
# instead of √d_k, or assumes 3 tokens, fails some variant (tests/test_problems.py runs such a kit solution).
END_TO_END_PUBLISHED = 12
END_TO_END_SIZES = [(3, 2, 4, 2)] * END_TO_END_PUBLISHED + [
    (4, 3, 3, 2), (2, 2, 1, 2), (3, 3, 2, 3), (4, 2, 2, 3), (3, 2, 3, 2), (4, 3, 1, 2),
]


def end_to_end_slips(Q, K, V, mask):
    """The common wrong weights of softmax(QKᵀ/√d_k) (masked): no scaling, ÷d_k, K not transposed, softmax
    down the columns, the mask left out; each with the output it leads to, and AᵀV for the output."""
    n, d_k = Q.shape
    root = math.sqrt(d_k)
    raw = A.scores(Q, K)
    candidates = [
        ("unscaled", WORDS.line("end-to-end-slip-unscaled", root=root_text(d_k)), A.softmax(raw, mask)),
        ("over_d_k", WORDS.line("end-to-end-slip-over-d-k", d_k=d_k, root=root_text(d_k)), A.softmax(raw / d_k, mask)),
    ]
    if d_k == n:  # Q (n, d_k) times K (n, d_k) has a result only when d_k = n
        candidates.append(("no_transpose", WORDS.line("end-to-end-slip-no-transpose"), A.softmax(Q @ K / root, mask)))
    candidates.append(("columns", WORDS.line("end-to-end-slip-columns"),
                       A.softmax(A.scaled_scores(Q, K).T, None if mask is None else mask.T).T))
    if mask is not None:
        candidates.append(("unmasked", WORDS.line("end-to-end-slip-unmasked"), A.softmax(A.scaled_scores(Q, K))))
    weights = [slip(key, WORDS.line("end-to-end-slip/weights", mistake=text), w) for key, text, w in candidates]
    outputs = [slip(key, WORDS.line("end-to-end-slip/output", mistake=text), w @ V) for key, text, w in candidates]
    _, right = A.attend(Q, K, V, mask=mask)
    return weights, outputs + output_slips(right, V, unweighted=False)


def end_to_end(index, seed):
    rng = np.random.default_rng(seed)
    n, d_model, d_k, d_v = END_TO_END_SIZES[index]
    mask_kind = ("none", "causal", "padding")[index % 3]
    mask = None
    if mask_kind == "causal":
        mask = A.causal_mask(n)
    elif mask_kind == "padding":
        mask = np.broadcast_to(A.padding_mask([n - 1], n)[0], (n, n))
    while True:  # moderate scores: a softmax that is neither flat nor one-hot everywhere
        X = small_ints(rng, (n, d_model), -1, 2)
        W_Q, W_K = small_ints(rng, (d_model, d_k), -1, 1), small_ints(rng, (d_model, d_k), -1, 1)
        W_V = small_ints(rng, (d_model, d_v), -1, 1)
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # (n, d_model) x (d_model, d_k) -> (n, d_k)
        scaled = A.scaled_scores(Q, K)
        if 1.0 <= np.abs(scaled).max() <= 2.5 and (np.abs(V).sum(axis=0) > 0).all():
            break
    out, weights = A.attend(Q, K, V, mask=mask)
    raw = A.scores(Q, K)
    weight_slips, out_slips = end_to_end_slips(Q, K, V, mask)
    toks, dims_k, dims_v, dims_x = dims("x", n), dims("d", d_k), dims("d", d_v), dims("d", d_model)
    rows, cols = dims("q", n), dims("k", n)
    sm = softmax_steps(scaled, mask)
    mask_text = {
        "none": "",
        "causal": WORDS.line("end-to-end-prompt/causal"),
        "padding": WORDS.line("end-to-end-prompt/padding", n=n),
    }[mask_kind]
    inputs = [
        matrix("X", f"X ({n} × {d_model})", X, toks, dims_x),
        matrix("W_Q", f"W_Q ({d_model} × {d_k})", W_Q, dims_x, dims_k),
        matrix("W_K", f"W_K ({d_model} × {d_k})", W_K, dims_x, dims_k),
        matrix("W_V", f"W_V ({d_model} × {d_v})", W_V, dims_x, dims_v),
    ]
    if mask is not None:
        inputs.append(matrix("mask", WORDS.line("mask-label"), mask, rows, cols))
    hints = [
        WORDS.line("end-to-end-hint-project", q=fmt_vec(Q[0])),
        WORDS.line("end-to-end-hint-scores", d_k=d_k, root=root_text(d_k), dot=dot_text(Q[0], K[0]),
                   divisor=fmt(math.sqrt(d_k)) if math.sqrt(d_k).is_integer() else f"√{d_k}", scaled=fmt(scaled[0, 0])),
    ]
    if mask is not None:
        hints.append(WORDS.line("end-to-end-hint-mask"))
    hints += [
        WORDS.line("end-to-end-hint-softmax", weights=fmt_vec(weights[0])),
        WORDS.line("end-to-end-hint-output", out=fmt_vec(out[0])),
    ]
    out_label = WORDS.line("end-to-end-out-label")
    solution = [
        step("Q", WORDS.line("end-to-end-solution-q"), matrix("Q", "Q", Q, rows, dims_k)),
        step("K", WORDS.line("end-to-end-solution-k"), matrix("K", "K", K, dims("k", n), dims_k)),
        step("V", WORDS.line("end-to-end-solution-v"), matrix("V", "V", V, dims("v", n), dims_v)),
        step("scores", WORDS.line("end-to-end-solution-scores"), matrix("scores", "QKᵀ", raw, rows, cols)),
        step("scaled_scores", WORDS.line("end-to-end-solution-scaled/whole", d_k=d_k, root=fmt(math.sqrt(d_k)))
             if math.sqrt(d_k).is_integer() else WORDS.line("end-to-end-solution-scaled", root=root_text(d_k)),
             matrix("scaled_scores", "QKᵀ/√d_k", scaled, rows, cols)),
    ]
    if mask is not None:
        solution.append(step("masked", WORDS.line("solution-masked"),
                             matrix("masked", WORDS.line("masked-label"), sm["masked"], rows, cols)))
    solution += softmax_solution(scaled, sm, rows, cols)
    solution.append(step("out", WORDS.line("end-to-end-solution-out"), matrix("out", out_label, out, rows, dims_v)))
    return {
        "prompt": WORDS.line("end-to-end-prompt", n=n, d_model=d_model, d_k=d_k, mask=mask_text),
        "inputs": inputs,
        "parts": [with_slips(part("weights", WORDS.line("softmax-weights-label"), weights, rows, cols), weight_slips),
                  with_slips(part("out", out_label, out, rows, dims_v), out_slips)],

        "hints": hints,
        "solution": solution,
    }


# ---------------------------------------------------------------- 5. masks


def masks(index, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 5))
    kind = ("causal", "padding", "window")[index % 3]
    if kind == "causal":
        mask = A.causal_mask(n)
        rule = WORDS.line("masks-rule/causal")
    elif kind == "padding":
        length = int(rng.integers(2, n))
        mask = np.broadcast_to(A.padding_mask([length], n)[0], (n, n))
        rule = WORDS.line("masks-rule/padding", length=length)
    else:
        window = 2
        mask = A.sliding_window_mask(n, window)
        rule = WORDS.line("masks-rule/window", window=window)
    S = small_ints(rng, (n, n)) if index % 2 else one_decimals(rng, (n, n))
    candidates = [i for i in range(n) if (~mask[i]).any() and mask[i].sum() >= 2]
    r = int(rng.choice(candidates))
    plain_row = A.softmax(S)[r]
    weights = A.softmax(S, mask)
    rows, cols = dims("q", n), dims("k", n)
    allowed = mask[r]
    kept = plain_row[allowed].sum()
    zeros = ", ".join(f"k{j + 1}" for j in np.flatnonzero(~allowed))
    sm = softmax_steps(S, mask)
    renorm = WORDS.line("masks-renormalise", row=r + 1, allowed=fmt_vec(plain_row[allowed]), total=fmt(kept),
                        weights=fmt_vec(weights[r][allowed]), masked=zeros)
    return {
        "prompt": WORDS.line("masks-prompt", n=n, rule=rule, row=r + 1),
        "inputs": [matrix("S", f"S̃ ({n} × {n})", S, rows, cols), matrix("mask", WORDS.line("mask-label"), mask, rows, cols)],
        "parts": [
            with_slips(part("row_unmasked", WORDS.line("masks-row-label", row=r + 1), plain_row[None, :], [rows[r]],
                            cols), [
                slip("masked", WORDS.line("masks-slip-masked", row=r + 1, n=n), weights[r][None, :]),
                columns_slip(A.softmax(S.T).T[r][None, :], r + 1),
            ]),
            with_slips(part("weights", WORDS.line("masks-weights-label"), weights, rows, cols), [
                slip("unmasked", WORDS.line("masks-slip-unmasked"), A.softmax(S)),
                slip("not_renormalised", WORDS.line("masks-slip-not-renormalised"), A.softmax(S) * mask),
                columns_slip(A.softmax(S.T, mask.T).T),
            ]),
        ],
        "hints": [
            WORDS.line("masks-hint-plain", row=r + 1, weights=fmt_vec(plain_row)),
            WORDS.line("masks-hint-zero", row=r + 1, masked=zeros),
            renorm,
            WORDS.line("masks-hint-every-row"),
        ],
        "solution": [
            step("row_unmasked", WORDS.line("masks-solution-row", row=r + 1, n=n),
                 matrix("row_unmasked", WORDS.line("masks-solution-row-label", row=r + 1), plain_row[None, :],
                        [rows[r]], cols)),
            step("renormalised", renorm),
            step("masked", WORDS.line("masks-solution-masked"),
                 matrix("masked", WORDS.line("masked-label"), sm["masked"], rows, cols)),
        ]
        + softmax_solution(S, sm, rows, cols, allowed_only=True),

    }


# ---------------------------------------------------------------- 6. multi-head shapes and costs


def divisors_up_to(d_model, limit=8):
    return [h for h in range(1, limit + 1) if d_model % h == 0]


def multi_head(index, seed):
    rng = np.random.default_rng(seed)
    sizes = [(n, d) for n in (4, 6, 8, 10, 12, 16, 20) for d in (8, 12, 16, 24, 32, 48, 64)]
    order = np.random.default_rng(len(sizes)).permutation(len(sizes))  # one fixed shuffle: no size repeats
    n, d_model = sizes[order[index % len(sizes)]]
    options = divisors_up_to(d_model)
    hs = sorted(int(h) for h in rng.choice(options[1:], size=2, replace=False)) if len(options) > 2 else options[1:]
    hs = [1] + hs
    h_shape = hs[1]  # the middle one: d_k stays above 1
    X = np.zeros((n, d_model))
    eye = np.eye(d_model)
    split = A.split_heads(X @ eye, h_shape)  # (h, n, d_k)
    heads, head_weights = A.attend(split, split, split)  # (h, n, d_k), (h, n, n)
    _, weights = A.multi_head_attention(X, eye, eye, eye, eye, h_shape)
    assert weights.shape == head_weights.shape
    shapes = [split.shape, weights.shape, heads.shape]
    costs = [A.multi_head_cost(n, d_model, h) for h in hs]
    entries = [A.attention_cost(n, c["d_k"], n_heads=h)["score_entries"] for h, c in zip(hs, costs)]
    table = [[c["d_k"], e, c["params"], c["total_macs"]] for c, e in zip(costs, entries)]
    shape_rows = [WORDS.line("multi-head-shape-row/split"), WORDS.line("softmax-weights-label"),
                  WORDS.line("multi-head-shape-row/heads")]
    axes = [WORDS.line("multi-head-axis/heads"), WORDS.line("multi-head-axis/rows"),
            WORDS.line("multi-head-axis/columns")]
    cost_rows = [f"h = {h}" for h in hs]
    cost_cols = ["d_k", WORDS.line("multi-head-cost-column/entries"), WORDS.line("multi-head-cost-column/params"),
                 WORDS.line("multi-head-cost-column/macs")]
    shapes_label = WORDS.line("multi-head-shapes-label", h=h_shape)
    costs_label = WORDS.line("multi-head-costs-label")
    c0 = {key: f"{value:,}" for key, value in costs[0].items()}  # 16,384: as fmt prints the table
    d_k = d_model // h_shape
    return {
        "prompt": WORDS.line("multi-head-prompt", n=n, d_model=d_model, h=h_shape, hs=", ".join(map(str, hs))),
        "inputs": [],
        "parts": [
            part("shapes", shapes_label, shapes, shape_rows, axes, tolerance=0),
            part("costs", costs_label, table, cost_rows, cost_cols, tolerance=0),
        ],
        "hints": [
            WORDS.line("multi-head-hint-d-k", h=h_shape, d_model=d_model, d_k=d_k),
            WORDS.line("multi-head-hint-split", n=n, d_model=d_model),
            WORDS.line("multi-head-hint-params", d_model=d_model, params=c0["params"]),
            WORDS.line("multi-head-hint-macs", projection=c0["projection_macs"], attention=c0["attention_macs"]),
            WORDS.line("multi-head-hint-entries", n_squared=n * n),
        ],
        "solution": [
            step("d_k", WORDS.line("multi-head-solution-d-k", quotients=", ".join(
                f"{d_model} / {h} = {c['d_k']}" for h, c in zip(hs, costs)))),
            step("shapes", WORDS.line("multi-head-solution-shapes", h=h_shape, n=n, d_model=d_model, d_k=d_k),
                 matrix("shapes", shapes_label, shapes, shape_rows, axes)),
            step("params", WORDS.line("multi-head-solution-params", d_model=d_model, params=c0["params"])),
            step("macs", WORDS.line("multi-head-solution-macs", n=n, d_model=d_model, projection=c0["projection_macs"],
                                    attention=c0["attention_macs"], total=c0["total_macs"])),
            step("entries", WORDS.line("multi-head-solution-entries", products=", ".join(
                f"{h}·{n}² = {e:,}" for h, e in zip(hs, entries)))),
            step("costs", WORDS.line("together"), matrix("costs", costs_label, table, cost_rows, cost_cols)),
        ],
    }



# ---------------------------------------------------------------- 7. push the gradient back


def push_gradient(index, seed):
    """Given the weights W, the values V and the output's gradient dO: dV = Wᵀ dO and
    dS = W ⊙ (dW − rowsum(dW ⊙ W)) with dW = dO Vᵀ, the answers from `attend_backward` and `softmax_backward`."""
    rng = np.random.default_rng(seed)
    n_q, n_k, d_v = int(rng.integers(2, 4)), int(rng.integers(2, 4)), int(rng.integers(2, 4))
    W = np.stack([tenths(rng, n_k) for _ in range(n_q)])
    V = small_ints(rng, (n_k, d_v))
    dO = one_decimals(rng, (n_q, d_v), limit=1.0)
    # The queries ln W against the identity as keys (scale 1, zero weights masked) have softmax W, as in
    # `weighted_sum_by_library`; then dK = dSᵀ Q would mix in ln W, but dQ = dS K = dS itself.
    positive = W > 0
    log_w = np.log(np.where(positive, W, 1.0))
    dS, _, dV = A.attend_backward(log_w, np.eye(n_k), V, dO, mask=positive, scale=1.0)
    dW = dO @ V.T  # (n_q, d_v) x (d_v, n_k) -> (n_q, n_k)
    pull = (dW * W).sum(axis=1)  # (n_q,)
    if not np.allclose(dS, A.softmax_backward(W, dW), rtol=0, atol=1e-12):
        raise AssertionError("attend_backward and softmax_backward disagree on dS")
    rows, keys, entries = dims("q", n_q), dims("k", n_k), dims("d", d_v)
    vrows = dims("v", n_k)
    return {
        "prompt": WORDS.line("push-gradient-prompt", n_q=n_q, n_k=n_k, d_v=d_v),
        "inputs": [matrix("A", f"A ({n_q} × {n_k})", W, rows, keys), matrix("V", f"V ({n_k} × {d_v})", V, vrows, entries),
                   matrix("dO", f"dO ({n_q} × {d_v})", dO, rows, entries)],
        "parts": [with_slips(part("dV", "dV = Aᵀ dO", dV, vrows, entries), [
                      slip("not_transposed", WORDS.line("push-gradient-slip-not-transposed"), W @ dO),
                  ] if n_q == n_k else []),  # A dO has a result only when there are as many queries as keys
                  with_slips(part("dS", "dS̃", dS, rows, keys), [
                      slip("sign", WORDS.line("push-gradient-slip-sign"), -dS),
                      slip("dA", WORDS.line("push-gradient-slip-d-a"), dW),
                      slip("no_average", WORDS.line("push-gradient-slip-no-average"), W * dW),
                  ])],
        "hints": [
            WORDS.line("push-gradient-hint-d-v", dot=dot_text(W[:, 0], dO[:, 0]), entry=fmt(dV[0, 0])),
            WORDS.line("push-gradient-hint-d-a", row=fmt_vec(dW[0])),
            WORDS.line("push-gradient-hint-average", dot=dot_text(W[0], dW[0]), average=fmt(pull[0])),
            WORDS.line("push-gradient-hint-d-s", row=fmt_vec(dS[0])),
        ],
        "solution": [
            step("dV", WORDS.line("push-gradient-solution-d-v"), matrix("dV", "dV = Aᵀ dO", dV, vrows, entries)),
            step("dA", WORDS.line("push-gradient-solution-d-a"), matrix("dA", "dA = dO Vᵀ", dW, rows, keys)),
            step("pull", WORDS.line("push-gradient-solution-average"),
                 matrix("pull", "rowsum(dA ⊙ A)", pull[:, None], rows, ["Σ"])),
            step("dS", WORDS.line("push-gradient-solution-d-s"), matrix("dS", "dS̃", dS, rows, keys)),
        ],
    }


# ---------------------------------------------------------------- 8. decode one step



def decode_step(index, seed):
    """One step of a decoder that reverses N digits (docs/watch-it-write.md): the source digit its job head reads,
    the KV cache's bytes after the step and the step's query–key dot products with and without the cache.
    Bytes and the full table's dot products come from `attention_cost`, per layer, times the layers."""
    rng = np.random.default_rng(seed)
    L = int(rng.integers(4, 10))
    t = int(rng.integers(1, L + 1))
    n_layers, n_heads = int(rng.choice([1, 2, 3, 4, 6])), int(rng.choice([1, 2, 4, 8]))
    d_k, itemsize = int(rng.choice([4, 8, 16, 32])), int(rng.choice([2, 4, 8]))
    n = L + t  # the step that writes output digit t reads token L + t: L source digits, the separator, t − 1 written
    key = L - t + 1
    per_layer = A.attention_cost(n, d_k, n_heads=n_heads, itemsize=itemsize)
    cache = n_layers * per_layer["kv_cache_bytes"]
    cached, recomputed = n_layers * n_heads * n, n_layers * per_layer["score_entries"]
    layers = counted(n_layers, "decode-step-layers/one", "decode-step-layers/many")
    heads = counted(n_heads, "decode-step-heads/one", "decode-step-heads/many")
    step_row = [WORDS.line("decode-step-row")]
    key_label, key_column = WORDS.line("decode-step-key-label"), [WORDS.line("decode-step-key-column")]
    cache_label, cache_column = WORDS.line("decode-step-cache-label"), [WORDS.line("decode-step-cache-column")]
    dots_label = WORDS.line("decode-step-dots-label")
    dots_columns = [WORDS.line("decode-step-dots-column/cached"), WORDS.line("decode-step-dots-column/recomputed")]
    return {
        "prompt": WORDS.line("decode-step-prompt", length=L, layers=layers, heads=heads, d_k=d_k,
                             bits=WORDS.line({2: "decode-step-bits/16", 4: "decode-step-bits/32",
                                              8: "decode-step-bits/64"}[itemsize]), itemsize=itemsize, t=t),
        "inputs": [matrix("given", WORDS.line("decode-step-given-label"), [[L, t, n_layers, n_heads, d_k, itemsize]],
                          [WORDS.line("given-row")],
                          ["N", "t", WORDS.line("decode-step-given-column/layers"),
                           WORDS.line("decode-step-given-column/heads"), "d_k",
                           WORDS.line("decode-step-given-column/bytes")])],
        "parts": [
            part("key", key_label, [[key]], step_row, key_column, tolerance=0),
            part("cache", cache_label, [[cache]], step_row, cache_column, tolerance=0),
            part("dots", dots_label, [[cached, recomputed]], step_row, dots_columns, tolerance=0),
        ],
        "hints": [
            WORDS.line("decode-step-hint-key", length=L),
            WORDS.line("decode-step-hint-token", t=t, length=L, n=n,
                       written=counted(t - 1, "decode-step-digits/one", "decode-step-digits/many")),
            WORDS.line("decode-step-hint-cache", d_k=d_k, layers=n_layers, heads=n_heads, itemsize=itemsize,
                       per_token=f"{cache // n:,}"),
            WORDS.line("decode-step-hint-dots", n=n),
        ],
        "solution": [
            step("key", WORDS.line("decode-step-solution-key", length=L, t=t, key=key),
                 matrix("key", key_label, [[key]], step_row, key_column)),
            step("cache", WORDS.line("decode-step-solution-cache", n=n, layers=layers, heads=heads, d_k=d_k,
                                     itemsize=itemsize, cache=f"{cache:,}"),
                 matrix("cache", cache_label, [[cache]], step_row, cache_column)),
            step("dots", WORDS.line("decode-step-solution-dots", layers=n_layers, heads=n_heads, n=n,
                                    cached=f"{cached:,}", recomputed=f"{recomputed:,}"),
                 matrix("dots", dots_label, [[cached, recomputed]], step_row, dots_columns)),
        ],
    }



# ---------------------------------------------------------------- 9. mark the positions

POSITIONS_BASE = 10000  # the library's default: the original transformer's and RoFormer's
POSITIONS_WIDTHS = (4, 4, 6, 4, 4, 6, 4, 4, 6, 4, 4, 6)
SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
DEGREE = math.pi / 180


def omega_name(r):
    """ω with pair r's number (counted from 1) as a subscript, as the Positions page writes it: ω₂."""
    return "ω" + str(r).translate(SUBSCRIPT_DIGITS)


def turned_pair(pair, theta):
    """(a, b) turned counter-clockwise by theta radians, written out for a slip: RoPE's turn of one pair."""
    a, b = pair
    return [[a * math.cos(theta) - b * math.sin(theta), a * math.sin(theta) + b * math.cos(theta)]]


def rope_score(q, k, p, p_key, omegas):
    """q̂ · k̂ with pair r of q turned by p·ω_r and of k by p′·ω_r, for a slip's own ω (or angles in degrees)."""
    q_hat = [x for r, w in enumerate(omegas) for x in turned_pair(q[2 * r:2 * r + 2], p * w)[0]]
    k_hat = [x for r, w in enumerate(omegas) for x in turned_pair(k[2 * r:2 * r + 2], p_key * w)[0]]
    return [[float(np.dot(q_hat, k_hat))]]


def positions(index, seed):
    """A sinusoid entry, one pair of a query turned by RoPE and the RoPE score of a query and a key (docs/positions.md,
    attention/positions.py), for one width d and the positions p of the query and p′ of the key. Every answer comes
    from `sinusoidal_positions` and `rope`; the slips are the mistakes the page warns of: degrees for radians, the
    frequency of the wrong pair, and the query's absolute position where the score needs the offset p − p′."""
    rng = np.random.default_rng(seed)
    d = POSITIONS_WIDTHS[index]
    pairs = d // 2
    p = int(rng.integers(5, 41))
    offset = int(rng.choice([-3, -2, -1, 1, 2, 3]))
    p_key = p - offset
    entry = int(rng.integers(1, 3)) if index % 4 == 3 else int(rng.integers(3, d + 1))  # mostly a pair after the first
    r_entry = (entry + 1) // 2
    r = int(rng.integers(1, pairs + 1))
    while True:
        q, k = small_ints(rng, (1, d)), small_ints(rng, (1, d))
        if np.abs(q[0, 2 * r - 2:2 * r]).sum() > 0:  # the pair to turn is not (0, 0)
            break
    omega = attention_frequencies(d)  # (d/2,): ω_r for r = 1 … d/2
    pe = A.sinusoidal_positions(p + 1, d, POSITIONS_BASE)  # (p + 1, d): PE for the positions 0 … p
    q_hat, k_hat = A.rope(q, [p], POSITIONS_BASE), A.rope(k, [p_key], POSITIONS_BASE)  # (1, d) each
    q_offset = A.rope(q, [offset], POSITIONS_BASE)  # q turned by the offset p − p′ alone
    entry_value = pe[p, entry - 1]
    turned = q_hat[:, 2 * r - 2:2 * r]  # (1, 2)
    score = float((q_hat @ k_hat.T)[0, 0])
    by_offset = float((q_offset @ k.T)[0, 0])
    if abs(by_offset - score) > 1e-12:
        raise AssertionError(f"positions-{index + 1:02d}: the score by the offset {by_offset} is not the score {score}")

    fn = math.sin if entry % 2 else math.cos
    angle = p * omega[r_entry - 1]
    theta = p * omega[r - 1]
    a, b = q[0, 2 * r - 2:2 * r]
    one_later = POSITIONS_BASE ** (-2 * np.arange(1, pairs + 1) / d)  # 10000^(−2r/d): pair r read as counted from 0
    omega_text = ", ".join(f"{omega_name(i + 1)} = {fmt(w)}" for i, w in enumerate(omega))
    pair_names = [WORDS.line("positions-pair-column", pair=i + 1) for i in range(pairs)]
    entries = dims("d", d)
    wave_name = WORDS.line("positions-wave/sine" if entry % 2 else "positions-wave/cosine")
    other_wave = WORDS.line("positions-wave/cosine" if entry % 2 else "positions-wave/sine")
    function = "sin" if entry % 2 else "cos"
    pe_label = WORDS.line("positions-pe-label", entry=entry, p=p)
    pe_column = [WORDS.line("positions-entry-column", entry=entry)]
    turned_label = WORDS.line("positions-turned-label", r=r, p=p)
    turned_columns = [WORDS.line("positions-entry-column", entry=2 * r - 1),
                      WORDS.line("positions-entry-column", entry=2 * r)]
    score_label = WORDS.line("positions-score-label", p=p, p_key=p_key)
    score_row = [WORDS.line("positions-score-row")]

    entry_slips = with_slips(part("pe", pe_label, [[entry_value]], ["PE"], pe_column), [
        slip("degrees", WORDS.line("positions-slip-entry-degrees", angle=fmt(angle)),
             [[fn(angle * DEGREE)]]),
        slip("wrong_pair", WORDS.line("positions-slip-entry-wrong-pair", r=r_entry, d=d, entry=entry,
                                      omega=omega_name(r_entry), r_before=r_entry - 1, value=fmt(omega[r_entry - 1])),
             [[fn(p * one_later[r_entry - 1])]]),
        *([slip("entry_as_pair", WORDS.line("positions-slip-entry-as-pair", entry=entry, r=r_entry),
                [[fn(p * omega[entry - 1])]])] if entry <= pairs else []),
        slip("sin_cos", WORDS.line("positions-slip-sin-cos", other=other_wave, entry=entry, wave=wave_name),
             [[(math.cos if entry % 2 else math.sin)(angle)]]),
    ])
    turn_slips = with_slips(part("turned", turned_label, turned, ["q̂"], turned_columns), [
        slip("degrees", WORDS.line("positions-slip-turn-degrees", theta=fmt(theta)),
             turned_pair((a, b), theta * DEGREE)),
        slip("wrong_pair", WORDS.line("positions-slip-turn-wrong-pair", r=r, d=d, omega=omega_name(r), r_before=r - 1,
                                      value=fmt(omega[r - 1])),
             turned_pair((a, b), p * one_later[r - 1])),
        slip("clockwise", WORDS.line("positions-slip-clockwise"), turned_pair((a, b), -theta)),
    ])
    distance = abs(offset)
    score_slips = with_slips(part("score", score_label, [[score]], score_row, ["q̂ · k̂"]), [
        slip("absolute", WORDS.line("positions-slip-absolute", p=p, offset=fmt(offset)),
             (A.rope(q, [p], POSITIONS_BASE) @ k.T)),
        slip("offset_sign", WORDS.line(
            "positions-slip-offset-sign", negated=fmt(-offset), offset=fmt(offset),
            distance=counted(distance, "positions-distance/one", "positions-distance/many"),
            side=WORDS.line("positions-side/before" if offset > 0 else "positions-side/after")),
             (A.rope(q, [-offset], POSITIONS_BASE) @ k.T)),
        slip("degrees", WORDS.line("positions-slip-score-degrees"),
             rope_score(q[0], k[0], p * DEGREE, p_key * DEGREE, omega)),
        slip("wrong_pair", WORDS.line("positions-slip-score-wrong-pair", omegas=omega_text),
             rope_score(q[0], k[0], p, p_key, one_later)),
    ])
    q_pair, k_pairs = f"({fmt(a)}, {fmt(b)})", ", ".join(f"({fmt(w)}, {fmt(x)})" for w, x in k[0].reshape(-1, 2))
    offset_row = WORDS.line("positions-offset-row")
    return {
        "prompt": WORDS.line("positions-prompt", d=d, pairs=pairs, p=p, p_key=p_key, entry=entry, r=r,
                             pair_list=", ".join(f"({2 * i + 1}, {2 * i + 2})" for i in range(pairs))),
        "inputs": [matrix("given", WORDS.line("positions-given-label"), [[d, p, p_key, entry, r]],
                          [WORDS.line("given-row")],
                          ["d", "p", "p′", WORDS.line("positions-given-column/entry"),
                           WORDS.line("positions-given-column/pair")]),
                   matrix("q", f"q (1 × {d})", q, ["q"], entries),
                   matrix("k", f"k (1 × {d})", k, ["k"], entries)],
        "parts": [entry_slips, turn_slips, score_slips],
        "hints": [
            WORDS.line("positions-hint-entry", entry=entry, wave=wave_name, r=r_entry, omega=omega_name(r_entry),
                       r_before=r_entry - 1, d=d, value=fmt(omega[r_entry - 1]), p=p, angle=fmt(angle)),
            WORDS.line("positions-hint-turn", r=r, pair=q_pair, p=p, omega=omega_name(r), theta=fmt(theta),
                       cos=fmt(math.cos(theta)), sin=fmt(math.sin(theta))),
            WORDS.line("positions-hint-offset", offset=fmt(offset), p=p),
            WORDS.line("positions-hint-vectors", q=fmt_vec(q_offset[0]), k=fmt_vec(k[0])),
        ],
        "solution": [
            step("omega", WORDS.line("positions-solution-omega", d=d, omegas=omega_text),
                 matrix("omega", WORDS.line("positions-omega-label"), [omega], ["ω"], pair_names)),
            step("pe", WORDS.line("positions-solution-pe", entry=entry, wave=wave_name, r=r_entry,
                                  value=f"{function}({p}·{fmt(omega[r_entry - 1])}) = {function}({fmt(angle)}) = "
                                        f"{fmt(entry_value)}"),
                 matrix("pe", pe_label, [[entry_value]], ["PE"], pe_column)),
            step("turned", WORDS.line(
                "positions-solution-turned", r=r, pair=q_pair, p=p, omega=fmt(omega[r - 1]), theta=fmt(theta),
                cos=fmt(math.cos(theta)), sin=fmt(math.sin(theta)),
                product=f"({paren(a)}·{paren(math.cos(theta))} − {paren(b)}·{paren(math.sin(theta))}, "
                        f"{paren(a)}·{paren(math.sin(theta))} + {paren(b)}·{paren(math.cos(theta))}) = "
                        f"{fmt_vec(turned[0])}"),
                 matrix("turned", turned_label, turned, ["q̂"], turned_columns)),
            step("q_hat", WORDS.line("positions-solution-q-hat", p=p),
                 matrix("q_hat", WORDS.line("positions-q-hat-label", p=p), q_hat, ["q̂"], entries)),
            step("k_hat", WORDS.line("positions-solution-k-hat", p_key=p_key, pairs=k_pairs),
                 matrix("k_hat", WORDS.line("positions-k-hat-label", p_key=p_key), k_hat, ["k̂"], entries)),
            step("score", WORDS.line("positions-solution-score", dot=dot_text(q_hat[0], k_hat[0]), score=fmt(score)),
                 matrix("score", score_label, [[score]], score_row, ["q̂ · k̂"])),
            step("q_offset", WORDS.line("positions-solution-offset", offset=fmt(offset), q=fmt_vec(q_offset[0]),
                                        dot=dot_text(q_offset[0], k[0]), score=fmt(by_offset), distance=distance),
                 matrix("q_offset", WORDS.line("positions-offset-label", offset=fmt(offset)), q_offset, [offset_row],
                        entries)),
        ],
    }



# ---------------------------------------------------------------- 10. share keys and values (grouped-query attention)

# (query heads, key/value heads): one pair per variant, each group size and kind met (1 key/value head: multi-query)
GROUPED_HEADS = ((4, 2), (6, 2), (6, 3), (8, 2), (8, 4), (9, 3), (12, 4), (12, 3), (16, 4), (8, 1), (12, 6), (16, 2))


def grouped_query(index, seed):
    """Grouped-query attention's sharing and cache (docs/multi-head.md#grouped-query-attention): which key/value head
    each query head reads (`kv_head_of`, counted from 1 here), and the KV cache with the shared heads and as if
    each query head had its own, per layer and key/value head from `attention_cost`, times the layers."""
    rng = np.random.default_rng(seed)
    h, h_kv = GROUPED_HEADS[index % len(GROUPED_HEADS)]
    layers = int(rng.choice([2, 4, 6, 12, 24, 30, 32]))
    d_k, n, itemsize = int(rng.choice([16, 32, 64, 128])), int(rng.choice([10, 100, 128, 1000, 1024])), int(rng.choice([2, 4]))
    group = h // h_kv
    reads = [A.kv_head_of(g, h, h_kv) + 1 for g in range(h)]  # counted from 1, as the page counts heads
    per_layer = lambda heads, tokens: A.attention_cost(tokens, d_k, n_heads=heads, itemsize=itemsize)["kv_cache_bytes"]  # noqa: E731
    per_token = layers * per_layer(h_kv, 1) // itemsize  # numbers
    cache, full = layers * per_layer(h_kv, n), layers * per_layer(h, n)
    given_label = WORDS.line("grouped-query-given-label")
    given_cols = [WORDS.line("grouped-query-given-column/heads"), WORDS.line("grouped-query-given-column/kv-heads"),
                  WORDS.line("grouped-query-given-column/layers"), "d_k", WORDS.line("grouped-query-given-column/tokens"),
                  WORDS.line("grouped-query-given-column/bytes")]
    heads_row, heads_cols = [WORDS.line("grouped-query-kv-row")], [f"{g + 1}" for g in range(h)]
    one = h_kv == 1  # multi-query attention: one group, one key/value head, no "next" one

    def heads_range(first, last):
        if last == first + 1:  # "1 and 2", not "1 to 2"
            return listed([str(first), str(last)])
        return WORDS.line("grouped-query-heads-range", first=first, last=last)

    factors = (WORDS.line("grouped-query-factors/one", layers=layers, d_k=d_k) if one
               else WORDS.line("grouped-query-factors", layers=layers, h_kv=h_kv, d_k=d_k))
    read_hint = (WORDS.line("grouped-query-hint-read/one", first=heads_range(1, h), group=group) if one else
                 WORDS.line("grouped-query-hint-read/two", first=heads_range(1, group),
                            second=heads_range(group + 1, h), group=group) if h_kv == 2 else
                 WORDS.line("grouped-query-hint-read", first=heads_range(1, group),
                            second=heads_range(group + 1, 2 * group), group=group, h=h, last=reads[-1]))
    kv_label = WORDS.line("grouped-query-kv-label", h=h)
    cache_label, cache_cols = WORDS.line("grouped-query-cache-label"), [
        WORDS.line("grouped-query-cache-column/numbers"), WORDS.line("grouped-query-cache-column/bytes", n=f"{n:,}")]
    full_label, full_cols = (WORDS.line("grouped-query-full-label"),
                             [WORDS.line("grouped-query-cache-column/bytes", n=f"{n:,}")])
    step_row = [WORDS.line("grouped-query-cache-row")]
    cache_values, full_values = [[per_token, cache]], [[full]]
    return {
        "prompt": WORDS.line("grouped-query-prompt", h=h, layers=layers, d_k=d_k, n=f"{n:,}", itemsize=itemsize,
                             sharing=WORDS.line("grouped-query-prompt-sharing/one") if one else
                             WORDS.line("grouped-query-prompt-sharing/many", h_kv=h_kv)),
        "inputs": [matrix("given", given_label, [[h, h_kv, layers, d_k, n, itemsize]], [WORDS.line("given-row")],
                          given_cols)],
        "parts": [
            with_slips(part("kv", kv_label, [reads], heads_row, heads_cols, tolerance=0), [
                slip("modulo", WORDS.line("grouped-query-slip-modulo", h_kv=h_kv, group=group), [[g % h_kv + 1 for g in range(h)]]),
                slip("group_size", WORDS.line("grouped-query-slip-group-size", h=h, h_kv=h_kv, group=group),
                     [[g // h_kv + 1 for g in range(h)]]),
                slip("from_zero", WORDS.line("grouped-query-slip-from-zero"), [[r - 1 for r in reads]]),
            ]),
            with_slips(part("cache", cache_label, cache_values, step_row, cache_cols, tolerance=0), [
                slip("query_heads", WORDS.line("grouped-query-slip-query-heads", h=h, h_kv=h_kv),
                     [[per_token * group, cache * group]]),
                slip("no_two", WORDS.line("grouped-query-slip-no-two"), [[per_token // 2, cache // 2]]),
                slip("no_layers", WORDS.line("grouped-query-slip-no-layers", layers=layers),
                     [[per_token // layers, cache // layers]]),
                slip("numbers", WORDS.line("grouped-query-slip-numbers", itemsize=itemsize), [[per_token, cache // itemsize]]),
            ]),
            with_slips(part("full", full_label, full_values, step_row, full_cols, tolerance=0), [
                slip("kv_heads", WORDS.line("grouped-query-slip-kv-heads", h=h), [[cache]]),
                slip("no_two", WORDS.line("grouped-query-slip-no-two"), [[full // 2]]),
                slip("no_layers", WORDS.line("grouped-query-slip-no-layers", layers=layers), [[full // layers]]),
            ]),
        ],
        "hints": [
            (WORDS.line("grouped-query-hint-groups/one", h=h) if one
             else WORDS.line("grouped-query-hint-groups", h=h, h_kv=h_kv, group=group)),
            read_hint,
            WORDS.line("grouped-query-hint-per-token", factors=factors, per_token=f"{per_token:,}"),
            WORDS.line("grouped-query-hint-full", h=h, h_kv=h_kv, group=group),
        ],
        "solution": [
            step("kv", WORDS.line("grouped-query-solution-kv", h=h, h_kv=h_kv, group=group),
                 matrix("kv", kv_label, [reads], heads_row, heads_cols)),
            step("cache", WORDS.line("grouped-query-solution-cache", factors=factors,
                                     per_token=f"{per_token:,}", n=f"{n:,}", itemsize=itemsize, cache=f"{cache:,}"),
                 matrix("cache", cache_label, cache_values, step_row, cache_cols)),
            step("full", WORDS.line("grouped-query-solution-full", n=f"{n:,}", layers=layers, h=h, d_k=d_k, itemsize=itemsize,
                                    full=f"{full:,}", group=group, cache=f"{cache:,}"),
                 matrix("full", full_label, full_values, step_row, full_cols)),
        ],
    }


# ---------------------------------------------------------------- the registry of sets

# Each set's title is the section of words/problems-sets.md that holds it.
SETS = [
    {"id": "scale-scores", "title": "scale-scores-title", "make": scale_scores, "seed": 1000},
    {"id": "soften-rows", "title": "soften-rows-title", "make": soften_rows, "seed": 2000},
    {"id": "weighted-sum", "title": "weighted-sum-title", "make": weighted_sum, "seed": 3000},
    {"id": "end-to-end", "title": "end-to-end-title", "make": end_to_end, "seed": 4000, "variants": len(END_TO_END_SIZES)},
    {"id": "masks", "title": "masks-title", "make": masks, "seed": 5000},
    {"id": "multi-head", "title": "multi-head-title", "make": multi_head, "seed": 6000},
    {"id": "push-gradient", "title": "push-gradient-title", "make": push_gradient, "seed": 7000},
    {"id": "decode-step", "title": "decode-step-title", "make": decode_step, "seed": 9000},
    {"id": "positions", "title": "positions-title", "make": positions, "seed": 10000},
    {"id": "grouped-query", "title": "grouped-query-title", "make": grouped_query, "seed": 11000},
]


def problem_set(spec):
    """One set as published at problems/<id>.json: N_VARIANTS variants, or the count the set declares."""
    variants = []
    for index in range(spec.get("variants", N_VARIANTS)):
        seed = spec["seed"] + index
        variant = spec["make"](index, seed)
        variants.append({"id": f"{spec['id']}-{index + 1:02d}", "seed": seed, **variant})
    return {
        "set": spec["id"],
        "title": WORDS.line(spec["title"]),
        "page": "problems/",
        "library_version": A.__version__,
        "variants": variants,
    }


def all_sets():
    return [problem_set(spec) for spec in SETS]


# ---------------------------------------------------------------- conceptual questions (no arithmetic drill)

CONCEPTS_SEED = 8000
SHIFT = 3.0  # the constant added to a row of scores
WIDE_D_K = 64  # the width of the "how large is q · k" question
WIDE_SAMPLES = 20_000


# Each question's words are three sections of words/problems-concepts.md: <name>-prompt, <name>-choices (a Markdown
# list, one item per choice) and <name>-explanation.
QUESTIONS = {
    "concept-shift": ("concept-shift-prompt", "concept-shift-choices", "concept-shift-explanation"),
    "concept-double": ("concept-double-prompt", "concept-double-choices", "concept-double-explanation"),
    "concept-even": ("concept-even-prompt", "concept-even-choices", "concept-even-explanation"),
    "concept-asymmetric": ("concept-asymmetric-prompt", "concept-asymmetric-choices",
                           "concept-asymmetric-explanation"),
    "concept-starved": ("concept-starved-prompt", "concept-starved-choices", "concept-starved-explanation"),
    "concept-all-true": ("concept-all-true-prompt", "concept-all-true-choices", "concept-all-true-explanation"),
    "concept-columns": ("concept-columns-prompt", "concept-columns-choices", "concept-columns-explanation"),
    "concept-value-shift": ("concept-value-shift-prompt", "concept-value-shift-choices",
                            "concept-value-shift-explanation"),
    "concept-spread": ("concept-spread-prompt", "concept-spread-choices", "concept-spread-explanation"),
}


def listed_choices(section, values):
    """The items of a section that is a Markdown list, each on one line without its "- "."""
    items = CONCEPTS.fill(section, **values).split("\n")
    if not all(item.startswith("- ") for item in items):
        raise BuildError(f"{CONCEPTS.path}, section {section}: the choices are a list, one \"- \" item each")
    return [item[2:] for item in items]


def question(name, answer, evidence, prompt=None, choices=None, explanation=None):
    """One multiple-choice question, its words the sections QUESTIONS names, filled with the values given for
    each: `answer` indexes the choices; `evidence` holds the numbers the library computed for the explanation
    (tests/test_problems.py recomputes them)."""
    prompt_section, choices_section, explanation_section = QUESTIONS[name]
    return {"prompt": CONCEPTS.line(prompt_section, **(prompt or {})),
            "choices": listed_choices(choices_section, choices or {}), "answer": answer,
            "explanation": CONCEPTS.line(explanation_section, **(explanation or {})), "evidence": evidence}


def concept_questions():
    """The conceptual set: what changes (and what does not) when scores, masks or inputs change. Every claim
    of an explanation is computed here on the running example (figures_src/pages/sentences.py)."""
    from ..sentences import RUNNING, projections, token_vectors  # noqa: PLC0415  (a page module, read only here)

    tokens = list(RUNNING.tokens)
    n = len(tokens)
    X = token_vectors(RUNNING)
    W_Q, W_K, W_V = projections(RUNNING)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # (n, d_model) x (d_model, d_k) -> (n, d_k)
    S = A.scaled_scores(Q, K)  # (n, n)
    out, W = A.attend(Q, K, V)
    first = tokens[0]
    row = S[0]

    shifted = A.softmax(row + SHIFT)
    doubled = A.softmax(2 * row)
    zero_query_out, zero_query_weights = A.attend(np.zeros((1, Q.shape[1])), K, V)
    raw = A.scores(Q, K)
    i_on, i_cat = tokens.index("on"), tokens.index("cat")
    same_projection = A.scores(X @ W_Q, X @ W_Q)
    starved = np.ones((n, n), dtype=bool)
    starved[0] = False  # the first query may attend to nothing
    starved_out, starved_weights = A.attend(Q, K, V, mask=starved)
    all_true_out, all_true_weights = A.attend(Q, K, V, mask=np.ones((n, n), dtype=bool))
    column_sums = W.sum(axis=0)
    busiest = int(np.argmax(column_sums))
    b = np.round(np.random.default_rng(CONCEPTS_SEED).uniform(-1, 1, V.shape[1]), 1)
    moved_out, _ = A.attend(Q, K, V + b)
    rng = np.random.default_rng(CONCEPTS_SEED + 1)
    q, k = rng.standard_normal((2, WIDE_SAMPLES, WIDE_D_K))
    raw_spread = float(A.scores(q[:, None, :], k[:, None, :]).std())
    scaled_spread = float(A.scaled_scores(q[:, None, :], k[:, None, :]).std())
    root = math.sqrt(WIDE_D_K)

    shift = fmt(SHIFT)
    return [
        question(
            "concept-shift", 1,
            {"row": row.tolist(), "shift": SHIFT, "before": A.softmax(row).tolist(), "after": shifted.tolist()},
            prompt=dict(shift=shift),
            explanation=dict(shift=shift, token=first, before=fmt_vec(A.softmax(row)), after=fmt_vec(shifted)),
        ),
        question(
            "concept-double", 0,
            {"row": row.tolist(), "largest": [float(A.softmax(row).max()), float(doubled.max())],
             "entropy": [float(A.row_entropy(A.softmax(row))), float(A.row_entropy(doubled))]},
            explanation=dict(token=first, largest_before=fmt(A.softmax(row).max()), largest_after=fmt(doubled.max()),
                             entropy_before=fmt(A.row_entropy(A.softmax(row))),
                             entropy_after=fmt(A.row_entropy(doubled))),
        ),
        question(
            "concept-even", 1,
            {"weights": zero_query_weights[0].tolist(), "n": n},
            explanation=dict(n=n, weights=fmt_vec(zero_query_weights[0])),
        ),
        question(
            "concept-asymmetric", 2,
            {"on_cat": float(raw[i_on, i_cat]), "cat_on": float(raw[i_cat, i_on]),
             "symmetric_gap": float(np.abs(same_projection - same_projection.T).max())},
            prompt=dict(query="on", key="cat", forward=fmt(raw[i_on, i_cat]), backward=fmt(raw[i_cat, i_on])),
            choices=dict(query="on", key="cat"),
            explanation=dict(gap=fmt(np.abs(same_projection - same_projection.T).max())),
        ),
        question(
            "concept-starved", 2,
            {"weights": starved_weights[0].tolist(), "out": starved_out[0].tolist()},
            explanation=dict(token=first, weights=fmt_vec(starved_weights[0]), out=fmt_vec(starved_out[0])),
        ),
        question(
            "concept-all-true", 0,
            {"weights_gap": float(np.abs(all_true_weights - W).max()), "out_gap": float(np.abs(all_true_out - out).max())},
            explanation=dict(weights_gap=fmt(np.abs(all_true_weights - W).max()),
                             out_gap=fmt(np.abs(all_true_out - out).max())),
        ),
        question(
            "concept-columns", 1,
            {"column_sums": column_sums.tolist(), "busiest": busiest, "row_sums": W.sum(axis=1).tolist()},
            explanation=dict(token=tokens[busiest], column_sum=num(column_sums[busiest]),
                             row_sum=num(W.sum(axis=1).max())),
        ),
        question(
            "concept-value-shift", 1,
            {"b": b.tolist(), "moved": (moved_out - out).tolist()},
            prompt=dict(vector=fmt_vec(b)),
            explanation=dict(moved=fmt_vec((moved_out - out)[0])),
        ),
        question(
            "concept-spread", 1,
            {"raw_spread": raw_spread, "scaled_spread": scaled_spread, "root": root},
            prompt=dict(d_k=WIDE_D_K),
            choices=dict(one=fmt(1), root=fmt(root), d_k=WIDE_D_K, inverse=fmt(1 / root)),
            explanation=dict(samples=f"{WIDE_SAMPLES:,}", raw=num(raw_spread), scaled=num(scaled_spread)),
        ),
    ]


def concepts_title():
    """The conceptual set's title (words/problems-concepts.md), also the last heading the page's intro links."""
    return CONCEPTS.line("concepts-title")


def concepts_set():
    """The conceptual set as published at problems/concepts.json."""
    questions = [{"id": f"concepts-{k:02d}", **q} for k, q in enumerate(concept_questions(), 1)]
    return {"set": "concepts", "title": concepts_title(), "page": "problems/",
            "library_version": A.__version__, "questions": questions}
