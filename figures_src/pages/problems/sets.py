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
"""
import math

import numpy as np

import attention as A
from attention.positions import frequencies as attention_frequencies

from ...engine.text import PROBLEM_DIGITS as DIGITS
from ...engine.text import dims, num, vector

N_VARIANTS = 12
TOLERANCE = 0.01


# ---------------------------------------------------------------- numbers and labels


def fmt(x):
    """A problem's number: at most DIGITS decimals, no trailing zeros (the site's `num`; the Problems page's
    JavaScript prints the same, with formatNumber and the contract's PROBLEM_DIGITS)."""
    return num(x, DIGITS, trim=True)


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


def softmax_solution(S, sm, rows, cols, masked_note=""):
    """Solution steps for softmax given softmax_steps(S) = sm."""
    return [
        step("row_max", "Take each row on its own. Subtracting the row's largest score leaves the softmax unchanged "
             "and keeps every exponential at most 1. The row maxima" + (f",{masked_note}:" if masked_note else ":"),
             matrix("row_max", "Row maximum s̃_max", sm["row_max"][:, None], rows, ["s̃_max"])),
        step("shifted", "Each score minus its row's maximum:",
             matrix("shifted", "S̃ − s̃_max", sm["shifted"], rows, cols)),
        step("exp", "The exponential of each entry" + (" (e^−∞ = 0)" if np.isinf(sm["shifted"]).any() else "") + ":",
             matrix("exp", "e^(S̃ − s̃_max)", sm["exp"], rows, cols)),
        step("sums", "Each row's sum of exponentials:", matrix("sums", "Row sum", sm["sums"][:, None], rows, ["sum"])),
        step("weights", "Divide each exponential by its row's sum. Every row now adds up to 1:",
             matrix("weights", "Weights", sm["weights"], rows, cols)),
    ]


def columns_slip(values, what="These are"):
    return slip("columns", f"{what} a softmax down each column (each column adds up to 1): softmax runs along "
                "each row, so one query's weights over the keys add up to 1.", values)


# ---------------------------------------------------------------- 1. scale the scores


def score_slips(Q, K):
    """The common wrong tables for QKᵀ/√d_k: no scaling, ÷d_k, K not transposed, queries and keys swapped."""
    d_k = Q.shape[1]
    root = math.sqrt(d_k)
    candidates = [
        slip("unscaled", f"This is QKᵀ without the ÷√d_k: divide each score by √d_k = {root_text(d_k)}.",
             A.scores(Q, K)),
        slip("over_d_k", f"This divides by d_k = {d_k} itself: divide by its square root, √d_k = {root_text(d_k)}.",
             A.scores(Q, K) / d_k),
    ]
    if K.shape[0] == d_k:  # Q (n_q, d_k) times K (n_k, d_k) has a result only when n_k = d_k
        candidates.append(slip(
            "no_transpose", "This multiplies Q by K as it stands, not by Kᵀ: entry (i, j) is the dot product of row i "
            "of Q with row j of K, then ÷√d_k.", Q @ K / root))
    candidates.append(slip(
        "swapped", "This is KQᵀ/√d_k, the table turned over: row i belongs to query i and column j to key j.",
        A.scaled_scores(K, Q)))
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
        "prompt": f"Q holds {n_q} queries and K holds {n_k} keys, each with d_k = {d_k} entries. "
                  "Compute the scaled scores QKᵀ/√d_k.",
        "inputs": [matrix("Q", f"Q ({n_q} × {d_k})", Q, rows, entries), matrix("K", f"K ({n_k} × {d_k})", K, dims("k", n_k), entries)],
        "parts": [with_slips(part("scaled_scores", "QKᵀ/√d_k", answer, rows, cols), score_slips(Q, K))],
        "hints": [
            "Entry (i, j) of QKᵀ is the dot product of row i of Q with row j of K: multiply matching entries and add.",
            f"Entry (1, 1): {worked}.",
            f"d_k = {d_k}, so √d_k = {root_shown}: divide every dot product by it. "
            f"Entry (1, 1) becomes {fmt(raw[0, 0])} / {fmt(root)} = {fmt(answer[0, 0])}.",
        ],
        "solution": [
            step("scores", f"The raw scores QKᵀ, one dot product per entry; for example {worked}:",
                 matrix("scores", "QKᵀ", raw, rows, cols)),
            step("scaled_scores", f"d_k = {d_k}, so divide every entry by √d_k = {root_shown}:",
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
    parts = [with_slips(part("weights", "Weights A = softmax(S̃)", weights, rows, cols), [columns_slip(A.softmax(S.T).T)])]
    hints = [
        f"Work on one row at a time. Subtract the row's largest score: row 1 minus its largest score "
        f"({fmt(sm['row_max'][0])}) is {fmt_vec(sm['shifted'][0])}.",
        f"Take the exponential of each entry: row 1 becomes {fmt_vec(sm['exp'][0])}.",
        f"Divide by the row's sum, {fmt(sm['sums'][0])}: row 1 of the weights is {fmt_vec(weights[0])}, "
        "which adds up to 1.",
    ]
    solution = softmax_solution(S, sm, rows, cols)
    prompt = f"S̃ holds the scaled scores of {n_q} queries against {n_k} keys. Compute the softmax of each row"
    if with_entropy:
        entropy = A.row_entropy(weights)
        terms = np.where(weights > 0, -weights * np.log(np.where(weights > 0, weights, 1.0)), 0.0)
        parts.append(with_slips(part("entropy", "Row entropy H (nats)", entropy[:, None], rows, ["H"]), [
            slip("bits", "This is the entropy in bits, with the log to base 2: use the natural log, ln, for nats.",
                 entropy[:, None] / math.log(2)),
            slip("sign", "This has the wrong sign: every term −a·ln a is at least 0 (ln a < 0 for a weight below 1), "
                 "so H is never negative.", -entropy[:, None]),
        ]))
        hints.append(
            f"Entropy of a row: H = −Σ a·ln a (natural log). Row 1: the terms −a·ln a are {fmt_vec(terms[0])}, "
            f"so H = {fmt(entropy[0])}."
        )
        solution += [
            step("entropy_terms", "For the entropy, each weight's term −a·ln a (natural log):",
                 matrix("entropy_terms", "−a·ln a", terms, rows, cols)),
            step("entropy", f"Add each row's terms. A uniform row of {n_k} would give ln {n_k} = {fmt(math.log(n_k))}, "
                 "the largest possible; a one-hot row would give 0:",
                 matrix("entropy", "H (nats)", entropy[:, None], rows, ["H"])),
        ]
        prompt += ", then the entropy of each row of weights in nats"
    return {
        "prompt": prompt + ".",
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


def output_slips(weights, V, what="This is", unweighted=True):
    """The common wrong outputs of weights·V: the weights read down their columns (AᵀV, which has the
    output's shape only when there are as many queries as keys), V on the wrong side (VA, when its shape is
    the output's) and the values averaged without weights."""
    n_q, n_k = weights.shape
    candidates = []
    if n_q == n_k:
        candidates.append(slip(
            "transposed_weights", f"{what} AᵀV, the weights read down their columns: row i of the output takes its "
            "weights from row i of A, the weights query i gives each key.", weights.T @ V))
    if V.shape[1] == n_q:  # V (n_k, d_v) times the weights (n_q, n_k) has a result only when d_v = n_q
        candidates.append(slip(
            "v_first", f"{what} VA, V on the wrong side: the output is AV, each row of A mixing the rows of V.",
            V @ weights))
    if unweighted:
        candidates.append(slip(
        "unweighted", f"{what} the plain average of the rows of V: row i of A says how much of each value row "
        "goes into row i of the output.", np.broadcast_to(V.mean(axis=0), (n_q, V.shape[1]))))
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
        return f"Row {i + 1}: {terms} = {scaled} = {fmt_vec(out[i])}."

    return {
        "prompt": f"A holds the attention weights of {n_q} queries over {n_k} keys (each row adds up to 1) and V "
                  f"holds one value vector of length {d_v} per key. Compute the output A·V.",
        "inputs": [matrix("A", f"A ({n_q} × {n_k})", W, rows, keys), matrix("V", f"V ({n_k} × {d_v})", V, vrows, entries)],
        "parts": [with_slips(part("out", "Output A·V", out, rows, entries), output_slips(W, V))],
        "hints": [
            "Row i of the output is a weighted average of the rows of V, with the weights in row i of A.",
            "Row 1: " + " + ".join(f"{fmt(W[0, j])}·v{j + 1}" for j in range(n_k)) + ".",
            row_text(0),
        ],
        "solution": [step(f"row_{i + 1}", row_text(i)) for i in range(n_q)]
        + [step("out", "Together:", matrix("out", "Output A·V", out, rows, entries))],
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
        ("unscaled", f"the scores QKᵀ without the ÷√d_k: divide each score by √d_k = {root_text(d_k)} before the "
         "softmax.", A.softmax(raw, mask)),
        ("over_d_k", f"the scores divided by d_k = {d_k} itself: divide by its square root, √d_k = {root_text(d_k)}.",
         A.softmax(raw / d_k, mask)),
    ]
    if d_k == n:  # Q (n, d_k) times K (n, d_k) has a result only when d_k = n
        candidates.append(("no_transpose", "QK with K not transposed: entry (i, j) of the scores is the dot product "
                           "of row i of Q with row j of K, which is QKᵀ.", A.softmax(Q @ K / root, mask)))
    candidates.append(("columns", "a softmax down each column of the scaled scores (each column adds up to 1): "
                       "softmax each row, so one query's weights over the keys add up to 1.",
                       A.softmax(A.scaled_scores(Q, K).T, None if mask is None else mask.T).T))
    if mask is not None:
        candidates.append(("unmasked", "the scores without the mask: a masked score becomes −∞ before the softmax, "
                           "so its weight is exactly 0.", A.softmax(A.scaled_scores(Q, K))))
    weights = [slip(key, f"These weights come from {text}", w) for key, text, w in candidates]
    outputs = [slip(key, f"This output comes from {text}", w @ V) for key, text, w in candidates]
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
        "causal": " Use a causal mask: query i may look only at keys 1 … i.",
        "padding": f" Token {n} is padding: no query may look at key {n}.",
    }[mask_kind]
    inputs = [
        matrix("X", f"X ({n} × {d_model})", X, toks, dims_x),
        matrix("W_Q", f"W_Q ({d_model} × {d_k})", W_Q, dims_x, dims_k),
        matrix("W_K", f"W_K ({d_model} × {d_k})", W_K, dims_x, dims_k),
        matrix("W_V", f"W_V ({d_model} × {d_v})", W_V, dims_x, dims_v),
    ]
    if mask is not None:
        inputs.append(matrix("mask", "Mask (1 = may attend)", mask, rows, cols))
    hints = [
        f"Project first: Q = XW_Q, K = XW_K, V = XW_V. Row 1 of Q is x1·W_Q = {fmt_vec(Q[0])}.",
        f"Scores: QKᵀ/√d_k with d_k = {d_k}, so divide by {root_text(d_k)}. Entry (1, 1) is ({dot_text(Q[0], K[0])}) / "
        f"{fmt(math.sqrt(d_k)) if math.sqrt(d_k).is_integer() else f'√{d_k}'} = {fmt(scaled[0, 0])}.",
    ]
    if mask is not None:
        hints.append("Where the mask is 0, the score becomes −∞ before the softmax, so that weight is exactly 0.")
    hints += [
        f"Softmax each row of the scaled scores: row 1 of the weights is {fmt_vec(weights[0])}.",
        f"Output row i = Σ_j a_ij·v_j: row 1 is {fmt_vec(out[0])}.",
    ]
    solution = [
        step("Q", "Queries Q = XW_Q:", matrix("Q", "Q", Q, rows, dims_k)),
        step("K", "Keys K = XW_K:", matrix("K", "K", K, dims("k", n), dims_k)),
        step("V", "Values V = XW_V:", matrix("V", "V", V, dims("v", n), dims_v)),
        step("scores", "Raw scores QKᵀ:", matrix("scores", "QKᵀ", raw, rows, cols)),
        step("scaled_scores", f"Divide by √d_k = √{d_k} = {fmt(math.sqrt(d_k))}:" if math.sqrt(d_k).is_integer()
             else f"Divide by √d_k = {root_text(d_k)}:", matrix("scaled_scores", "QKᵀ/√d_k", scaled, rows, cols)),
    ]
    if mask is not None:
        solution.append(step("masked", "Apply the mask: forbidden entries become −∞.",
                             matrix("masked", "Masked scores", sm["masked"], rows, cols)))
    solution += softmax_solution(scaled, sm, rows, cols)
    solution.append(step("out", "Output: row i of the weights times V.", matrix("out", "Output", out, rows, dims_v)))
    return {
        "prompt": f"X holds {n} token vectors of length {d_model}. Project them with W_Q, W_K (d_k = {d_k}) and W_V, "
                  f"then compute the attention weights and the output softmax(QKᵀ/√d_k)·V.{mask_text}",
        "inputs": inputs,
        "parts": [with_slips(part("weights", "Weights", weights, rows, cols), weight_slips),
                  with_slips(part("out", "Output", out, rows, dims_v), out_slips)],
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
        rule = "the mask is causal: query i may attend only to keys 1 … i"
    elif kind == "padding":
        length = int(rng.integers(2, n))
        mask = np.broadcast_to(A.padding_mask([length], n)[0], (n, n))
        rule = f"the mask hides padding: only the first {length} tokens are real"
    else:
        mask = A.sliding_window_mask(n, 2)
        rule = "the mask is a sliding window of 2: query i may attend to keys i − 1 and i"
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
    renorm = (f"Keep the allowed entries of row {r + 1} without the mask, {fmt_vec(plain_row[allowed])}; "
              f"they add up to {fmt(kept)}. Divide them by that sum: {fmt_vec(weights[r][allowed])}. "
              f"The masked keys ({zeros}) get 0.")
    return {
        "prompt": f"S̃ holds the scaled scores of {n} tokens; {rule}. Compute row {r + 1} of the "
                  "weights without the mask, then every weight with the mask.",
        "inputs": [matrix("S", f"S̃ ({n} × {n})", S, rows, cols), matrix("mask", "Mask (1 = may attend)", mask, rows, cols)],
        "parts": [
            with_slips(part("row_unmasked", f"Row {r + 1} without the mask", plain_row[None, :], [rows[r]], cols), [
                slip("masked", f"This is row {r + 1} with the mask; this part asks for it without the mask, a softmax "
                     f"over all {n} scores.", weights[r][None, :]),
                columns_slip(A.softmax(S.T).T[r][None, :], f"This is row {r + 1} of"),
            ]),
            with_slips(part("weights", "Weights with the mask", weights, rows, cols), [
                slip("unmasked", "These leave the mask out: a masked score becomes −∞, so its weight is exactly 0.",
                     A.softmax(S)),
                slip("not_renormalised", "These set the masked weights to 0 but keep the others as they were: divide "
                     "each row's allowed weights by their sum, so the row adds up to 1 again.", A.softmax(S) * mask),
                columns_slip(A.softmax(S.T, mask.T).T),
            ]),
        ],
        "hints": [
            f"Without the mask, row {r + 1} is an ordinary softmax: {fmt_vec(plain_row)}.",
            f"A masked score becomes −∞ and e^−∞ = 0, so its weight is exactly 0. In row {r + 1} that is {zeros}.",
            renorm,
            "Do the same in every row: softmax over the allowed keys only. A row with one allowed key puts weight 1 on it.",
        ],
        "solution": [
            step("row_unmasked", f"Row {r + 1} without the mask, the softmax of all {n} scores:",
                 matrix("row_unmasked", f"Row {r + 1}, no mask", plain_row[None, :], [rows[r]], cols)),
            step("renormalised", renorm),
            step("masked", "For the whole table, masked scores become −∞:",
                 matrix("masked", "Masked scores", sm["masked"], rows, cols)),
        ]
        + softmax_solution(S, sm, rows, cols, " over the allowed keys only"),
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
    shape_rows = ["Q, K, V split", "Weights", "Heads' outputs"]
    axes = ["heads", "rows", "columns"]
    cost_rows = [f"h = {h}" for h in hs]
    cost_cols = ["d_k", "score entries", "parameters", "multiply-adds"]
    c0 = costs[0]
    return {
        "prompt": f"A multi-head attention layer reads n = {n} tokens of width d_model = {d_model}, with "
                  f"d_k = d_model / h. Give the shapes inside the layer for h = {h_shape}, then d_k, the number of "
                  f"score entries, the parameters (W_Q, W_K, W_V, W_O) and the multiply-adds for h = {', '.join(map(str, hs))}.",
        "inputs": [],
        "parts": [
            part("shapes", f"Shapes for h = {h_shape}", shapes, shape_rows, axes, tolerance=0),
            part("costs", "Cost as h varies", table, cost_rows, cost_cols, tolerance=0),
        ],
        "hints": [
            f"d_k = d_model / h: with h = {h_shape}, d_k = {d_model} / {h_shape} = {d_model // h_shape}.",
            f"Splitting cuts the last axis into heads: (n, d_model) = ({n}, {d_model}) becomes (h, n, d_k). "
            "Each head has its own n × n table of weights.",
            f"Parameters: W_Q, W_K, W_V and W_O are each d_model × d_model, so 4·{d_model}² = {c0['params']}, whatever h is.",
            f"Multiply-adds: the four projections take 4·n·d_model² = {c0['projection_macs']}; QKᵀ and weights·V take "
            f"n²·d_k each per head, 2·n²·d_model = {c0['attention_macs']} over all heads.",
            f"Score entries: one n × n table per head, h·n² = h·{n * n}.",
        ],
        "solution": [
            step("d_k", "d_k = d_model / h: " + ", ".join(f"{d_model} / {h} = {c['d_k']}" for h, c in zip(hs, costs)) + "."),
            step("shapes", f"With h = {h_shape}: Q, K and V are ({n}, {d_model}) after the projections; split_heads makes "
                 f"each ({h_shape}, {n}, {d_model // h_shape}); the weights are one {n} × {n} table per head; the heads' "
                 f"outputs are ({h_shape}, {n}, {d_model // h_shape}) and merge back into ({n}, {d_model}) before W_O.",
                 matrix("shapes", f"Shapes for h = {h_shape}", shapes, shape_rows, axes)),
            step("params", f"Parameters: 4·d_model² = 4·{d_model}² = {c0['params']} for every h: more heads cut the same "
                 "matrices into thinner slices."),
            step("macs", f"Multiply-adds: 4·n·d_model² = 4·{n}·{d_model}² = {c0['projection_macs']} for the projections, "
                 f"plus 2·n²·d_model = 2·{n}²·{d_model} = {c0['attention_macs']} for QKᵀ and weights·V, "
                 f"{c0['total_macs']} in all, for every h."),
            step("entries", "Score entries h·n²: " + ", ".join(f"{h}·{n}² = {e}" for h, e in zip(hs, entries))
                 + ". Only the memory for the score tables grows with h."),
            step("costs", "Together:", matrix("costs", "Cost as h varies", table, cost_rows, cost_cols)),
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
        "prompt": f"A holds the attention weights of {n_q} queries over {n_k} keys, V one value row of length {d_v} per "
                  f"key, and dO the gradient of the loss with respect to the output A·V. Compute dV, the gradient "
                  "reaching the values, and dS̃, the gradient reaching the scores the softmax was given.",
        "inputs": [matrix("A", f"A ({n_q} × {n_k})", W, rows, keys), matrix("V", f"V ({n_k} × {d_v})", V, vrows, entries),
                   matrix("dO", f"dO ({n_q} × {d_v})", dO, rows, entries)],
        "parts": [with_slips(part("dV", "dV = Aᵀ dO", dV, vrows, entries), [
                      slip("not_transposed", "This is A dO, with A not transposed: dV = Aᵀ dO, so value row j collects "
                           "each query's dO times the weight that query gave key j.", W @ dO),
                  ] if n_q == n_k else []),  # A dO has a result only when there are as many queries as keys
                  with_slips(part("dS", "dS̃", dS, rows, keys), [
                      slip("sign", "This is dS̃ with its sign flipped: dS̃ = A ⊙ (dA − rowsum(dA ⊙ A)), with dA = dO Vᵀ; "
                           "each entry is its weight times how far its dA lies above the row's weighted average.", -dS),
                      slip("dA", "This is dA = dO Vᵀ, the gradient reaching the weights: the softmax's backward step "
                           "turns it into dS̃ = A ⊙ (dA − rowsum(dA ⊙ A)).", dW),
                      slip("no_average", "This is A ⊙ dA, without subtracting each row's weighted average "
                           "rowsum(dA ⊙ A): every row of dS̃ adds up to 0.", W * dW),
                  ])],
        "hints": [
            "dV = Aᵀ dO: value row j collects each query's dO, times the weight that query gave key j. "
            f"Entry (1, 1): {dot_text(W[:, 0], dO[:, 0])} = {fmt(dV[0, 0])}.",
            f"For dS̃, first dA = dO Vᵀ: entry (i, j) is dO_i · v_j. Row 1: {fmt_vec(dW[0])}.",
            f"Then each row's weighted average of dA, Σ_j a_ij dA_ij. Row 1: {dot_text(W[0], dW[0])} = {fmt(pull[0])}.",
            f"dS̃_ij = a_ij (dA_ij − that average). Row 1 of dS̃: {fmt_vec(dS[0])}; every row of dS̃ adds up to 0.",
        ],
        "solution": [
            step("dV", "dV = Aᵀ dO, one dot product of a column of A with a column of dO per entry:",
                 matrix("dV", "dV = Aᵀ dO", dV, vrows, entries)),
            step("dA", "The gradient reaching the weights, dA = dO Vᵀ: entry (i, j) is dO_i · v_j.",
                 matrix("dA", "dA = dO Vᵀ", dW, rows, keys)),
            step("pull", "Each row's weighted average of dA, Σ_j a_ij dA_ij:",
                 matrix("pull", "rowsum(dA ⊙ A)", pull[:, None], rows, ["Σ"])),
            step("dS", "dS̃ = A ⊙ (dA − rowsum(dA ⊙ A)): each entry of dA minus its row's average, times its weight. "
                 "A weight of 0 gets no gradient, and every row adds up to 0:",
                 matrix("dS", "dS̃", dS, rows, keys)),
        ],
    }


# ---------------------------------------------------------------- 8. decode one step


def counted(count, word):
    """"1 layer", "2 layers"."""
    return f"{count} {word}{'' if count == 1 else 's'}"


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
    bits = {2: "16-bit", 4: "32-bit", 8: "64-bit"}[itemsize]
    return {
        "prompt": f"A decoder reverses strings of {L} digits: it reads the {L} source digits and a separator, then writes "
                  f"the digits in reverse order, one per step, each step reading the token written by the step before it (the first reads the separator). It has {counted(n_layers, 'layer')} "
                  f"of {counted(n_heads, 'head')} with d_k = d_v = {d_k}, and keeps its KV cache in {bits} numbers "
                  f"({itemsize} bytes each). For the step that writes output digit {t}, give the source digit (counted from 1) "
                  "the head that does the job must attend to, the bytes the KV cache holds after the step, and the "
                  "query–key dot products the step computes with the cache and recomputing every row.",
        "inputs": [matrix("given", "The model and the step", [[L, t, n_layers, n_heads, d_k, itemsize]], ["given"],
                          ["N", "t", "layers", "heads", "d_k", "bytes per number"])],
        "parts": [
            part("key", "The source digit the job head reads", [[key]], ["step"], ["source digit"], tolerance=0),
            part("cache", "KV cache after the step (bytes)", [[cache]], ["step"], ["bytes"], tolerance=0),
            part("dots", "Dot products of the step", [[cached, recomputed]], ["step"], ["with the cache", "recomputing"],
                 tolerance=0),
        ],
        "hints": [
            f"Output digit 1 is the last source digit, digit {L}; output digit t is source digit {L} − t + 1.",
            f"The step that writes output digit {t} reads token {L} + {t} = {n}: the {L} source digits, the separator and "
            f"{counted(t - 1, 'digit')} written before it. After the step the cache holds all {n}.",
            f"Each cached token keeps, per layer and head, a key and a value row of {d_k} numbers: "
            f"{n_layers}·{n_heads}·({d_k} + {d_k})·{itemsize} = {cache // n:,} bytes per token.",
            f"With the cache, the new token's one query row meets the {n} keys in every head of every layer; "
            f"recomputing, every one of the {n} rows does: {n}² per head and layer.",
        ],
        "solution": [
            step("key", f"Counting back from the last source digit, digit {L}, output digit {t} is source digit {key}.",
                 matrix("key", "The source digit the job head reads", [[key]], ["step"], ["source digit"])),
            step("cache", f"{n} tokens × {counted(n_layers, 'layer')} × {counted(n_heads, 'head')} × ({d_k} + {d_k}) numbers × {itemsize} bytes "
                 f"= {cache:,} bytes.",
                 matrix("cache", "KV cache after the step (bytes)", [[cache]], ["step"], ["bytes"])),
            step("dots", f"With the cache: {n_layers}·{n_heads}·{n} = {cached:,}. Recomputing every row: "
                 f"{n_layers}·{n_heads}·{n}² = {recomputed:,}, {n} times as many.",
                 matrix("dots", "Dot products of the step", [[cached, recomputed]], ["step"],
                        ["with the cache", "recomputing"])),
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

    wave = "sine" if entry % 2 else "cosine"
    fn = math.sin if entry % 2 else math.cos
    angle = p * omega[r_entry - 1]
    theta = p * omega[r - 1]
    a, b = q[0, 2 * r - 2:2 * r]
    one_later = POSITIONS_BASE ** (-2 * np.arange(1, pairs + 1) / d)  # 10000^(−2r/d): pair r read as counted from 0
    omega_text = ", ".join(f"{omega_name(i + 1)} = {fmt(w)}" for i, w in enumerate(omega))
    pair_names = [f"pair {i + 1}" for i in range(pairs)]
    entries = dims("d", d)
    key_side = "before" if offset > 0 else "after"

    entry_slips = with_slips(part("pe", f"Entry {entry} of PE at p = {p}", [[entry_value]], ["PE"], [f"entry {entry}"]), [
        slip("degrees", f"This takes the angle {fmt(angle)} in degrees: the angle p·ω is in radians; set the calculator "
             "to radians.", [[fn(angle * DEGREE)]]),
        slip("wrong_pair", f"This uses the frequency 10000^(−2·{r_entry}/{d}): counted from 1, pair r turns at "
             f"10000^(−2(r − 1)/d), so entry {entry} (pair {r_entry}) turns at {omega_name(r_entry)} = "
             f"10000^(−2·{r_entry - 1}/{d}) = {fmt(omega[r_entry - 1])}.", [[fn(p * one_later[r_entry - 1])]]),
        *([slip("entry_as_pair", f"This uses the frequency of pair {entry}: entries 2r − 1 and 2r share pair r, so "
                f"entry {entry} belongs to pair {r_entry}.", [[fn(p * omega[entry - 1])]])] if entry <= pairs else []),
        slip("sin_cos", f"This is the {'cosine' if entry % 2 else 'sine'} of the angle: odd entries (1, 3, …) are sines, "
             f"even ones cosines, so entry {entry} is a {wave}.", [[(math.cos if entry % 2 else math.sin)(angle)]]),
    ])
    turn_slips = with_slips(part("turned", f"Pair {r} of q̂, q turned to p = {p}", turned, ["q̂"],
                                 [f"entry {2 * r - 1}", f"entry {2 * r}"]), [
        slip("degrees", f"This turns by {fmt(theta)} degrees: θ = p·ω is in radians; set the calculator to radians.",
             turned_pair((a, b), theta * DEGREE)),
        slip("wrong_pair", f"This turns at the frequency 10000^(−2·{r}/{d}): counted from 1, pair r turns at "
             f"10000^(−2(r − 1)/d), so pair {r} turns at {omega_name(r)} = 10000^(−2·{r - 1}/{d}) = {fmt(omega[r - 1])}.",
             turned_pair((a, b), p * one_later[r - 1])),
        slip("clockwise", "This turns the pair clockwise: RoPE turns it counter-clockwise, (a, b) → "
             "(a cos θ − b sin θ, a sin θ + b cos θ).", turned_pair((a, b), -theta)),
    ])
    score_slips = with_slips(part("score", f"Score q̂ · k̂ at p = {p} and p′ = {p_key}", [[score]], ["score"], ["q̂ · k̂"]), [
        slip("absolute", f"This turns q by its position p = {p} and leaves k as it is: the score depends on the offset "
             f"p − p′ = {fmt(offset)} only, so turn q by {fmt(offset)}·ω per pair (or q by p and k by p′).",
             (A.rope(q, [p], POSITIONS_BASE) @ k.T)),
        slip("offset_sign", f"This turns q by p′ − p = {fmt(-offset)}: the key sits {abs(offset)} "
             f"position{'s' if abs(offset) > 1 else ''} {key_side} the query, and q turned by p − p′ = {fmt(offset)} against "
             "k as it stands gives the score.", (A.rope(q, [-offset], POSITIONS_BASE) @ k.T)),
        slip("degrees", "This takes the angles in degrees: p·ω is in radians; set the calculator to radians.",
             rope_score(q[0], k[0], p * DEGREE, p_key * DEGREE, omega)),
        slip("wrong_pair", "This turns pair r at the frequency 10000^(−2r/d): counted from 1, pair r turns at "
             f"10000^(−2(r − 1)/d), so pair 1 turns 1 radian per position ({omega_text}).",
             rope_score(q[0], k[0], p, p_key, one_later)),
    ])
    q_pair, k_pairs = f"({fmt(a)}, {fmt(b)})", ", ".join(f"({fmt(w)}, {fmt(x)})" for w, x in k[0].reshape(-1, 2))
    return {
        "prompt": f"Vectors of width d = {d} come in {pairs} pairs of entries, (1, 2), (3, 4)"
                  + (", (5, 6)" if pairs == 3 else "") + ", and pair r turns at the frequency 10000^(−2(r − 1)/d) "
                  f"radians per position. A query q sits at position p = {p} and a key k at p′ = {p_key}. Give entry "
                  f"{entry} of the sinusoidal position vector PE at position {p}, pair {r} of the query turned by RoPE "
                  "to its position, and the RoPE score q̂ · k̂ of the turned query and key (not divided by √d).",
        "inputs": [matrix("given", "The width and the positions", [[d, p, p_key, entry, r]], ["given"],
                          ["d", "p", "p′", "entry", "pair"]),
                   matrix("q", f"q (1 × {d})", q, ["q"], entries),
                   matrix("k", f"k (1 × {d})", k, ["k"], entries)],
        "parts": [entry_slips, turn_slips, score_slips],
        "hints": [
            f"Entry {entry} is the {wave} of pair {r_entry} (odd entries are sines, even ones cosines). Its frequency is "
            f"{omega_name(r_entry)} = 10000^(−2·{r_entry - 1}/{d}) = {fmt(omega[r_entry - 1])}, so the angle is "
            f"{p}·{fmt(omega[r_entry - 1])} = {fmt(angle)} radians.",
            f"Pair {r} of q is {q_pair}. It turns by θ = {p}·{omega_name(r)} = {fmt(theta)} radians: "
            f"cos θ = {fmt(math.cos(theta))}, sin θ = {fmt(math.sin(theta))}, and (a, b) becomes "
            "(a cos θ − b sin θ, a sin θ + b cos θ).",
            f"The score depends on the offset p − p′ = {fmt(offset)} only: turn each pair of q by {fmt(offset)} times that pair's "
            f"frequency, and take the dot product with k as it stands. Nothing needs turning by {p}.",
            f"q turned by the offset is {fmt_vec(q_offset[0])}; k is {fmt_vec(k[0])}.",
        ],
        "solution": [
            step("omega", f"The frequencies for d = {d}, one per pair, 10000^(−2(r − 1)/d): {omega_text}.",
                 matrix("omega", "Frequencies ω", [omega], ["ω"], pair_names)),
            step("pe", f"Entry {entry} is the {wave} of pair {r_entry}: {'sin' if entry % 2 else 'cos'}({p}·"
                 f"{fmt(omega[r_entry - 1])}) = {'sin' if entry % 2 else 'cos'}({fmt(angle)}) = {fmt(entry_value)}.",
                 matrix("pe", f"Entry {entry} of PE at p = {p}", [[entry_value]], ["PE"], [f"entry {entry}"])),
            step("turned", f"Pair {r} of q, {q_pair}, turned by θ = {p}·{fmt(omega[r - 1])} = {fmt(theta)} "
                 f"(cos θ = {fmt(math.cos(theta))}, sin θ = {fmt(math.sin(theta))}): ({paren(a)}·"
                 f"{paren(math.cos(theta))} − {paren(b)}·{paren(math.sin(theta))}, {paren(a)}·{paren(math.sin(theta))} + "
                 f"{paren(b)}·{paren(math.cos(theta))}) = {fmt_vec(turned[0])}.",
                 matrix("turned", f"Pair {r} of q̂, q turned to p = {p}", turned, ["q̂"],
                        [f"entry {2 * r - 1}", f"entry {2 * r}"])),
            step("q_hat", f"The whole query turned to p = {p}, every pair by p·ω of its own:",
                 matrix("q_hat", f"q̂ at p = {p}", q_hat, ["q̂"], entries)),
            step("k_hat", f"The key turned to p′ = {p_key}; its pairs are {k_pairs} before the turn:",
                 matrix("k_hat", f"k̂ at p′ = {p_key}", k_hat, ["k̂"], entries)),
            step("score", f"The score is their dot product: {dot_text(q_hat[0], k_hat[0])} = {fmt(score)}.",
                 matrix("score", f"Score q̂ · k̂ at p = {p} and p′ = {p_key}", [[score]], ["score"], ["q̂ · k̂"])),
            step("q_offset", f"The same score from the offset alone: q turned by p − p′ = {fmt(offset)} is "
                 f"{fmt_vec(q_offset[0])}, and its dot product with k as it stands is {dot_text(q_offset[0], k[0])} = "
                 f"{fmt(by_offset)}. Any two positions {abs(offset)} apart, in the same order, give this score.",
                 matrix("q_offset", f"q turned by p − p′ = {fmt(offset)}", q_offset, ["q turned by p − p′"], entries)),
        ],
    }


# ---------------------------------------------------------------- the registry of sets

SETS = [
    {"id": "scale-scores", "title": "Scale the scores", "make": scale_scores, "seed": 1000},
    {"id": "soften-rows", "title": "Soften the rows", "make": soften_rows, "seed": 2000},
    {"id": "weighted-sum", "title": "Take the weighted sum", "make": weighted_sum, "seed": 3000},
    {"id": "end-to-end", "title": "End to end", "make": end_to_end, "seed": 4000, "variants": len(END_TO_END_SIZES)},
    {"id": "masks", "title": "Masks", "make": masks, "seed": 5000},
    {"id": "multi-head", "title": "Multi-head shapes and costs", "make": multi_head, "seed": 6000},
    {"id": "push-gradient", "title": "Push the gradient back", "make": push_gradient, "seed": 7000},
    {"id": "decode-step", "title": "Decode one step", "make": decode_step, "seed": 9000},
    {"id": "positions", "title": "Mark the positions", "make": positions, "seed": 10000},
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
        "title": spec["title"],
        "page": "problems/",
        "library_version": A.__version__,
        "variants": variants,
    }


def all_sets():
    return [problem_set(spec) for spec in SETS]


# ---------------------------------------------------------------- conceptual questions (no arithmetic drill)

CONCEPTS_TITLE = "What changes, and what does not"
CONCEPTS_SEED = 8000
SHIFT = 3.0  # the constant added to a row of scores
WIDE_D_K = 64  # the width of the "how large is q · k" question
WIDE_SAMPLES = 20_000


def question(prompt, choices, answer, explanation, evidence):
    """One multiple-choice question: `answer` indexes `choices`; `evidence` holds the numbers the library
    computed for the explanation (tests/test_problems.py recomputes them)."""
    return {"prompt": prompt, "choices": choices, "answer": answer, "explanation": explanation, "evidence": evidence}


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

    return [
        question(
            f"Add {fmt(SHIFT)} to every score in one row of the scaled scores, before the softmax. What happens to "
            "that row's weights?",
            ["Every weight grows.", "Nothing: the weights stay exactly the same.",
             "The largest weight grows and the others shrink.", "The row no longer adds up to 1."],
            1,
            f"Softmax divides each e^(s̃ + {fmt(SHIFT)}) by the row's total of e^(s̃ + {fmt(SHIFT)}); the factor "
            f"e^{fmt(SHIFT)} cancels. In the running "
            f"example the row of “{first}” has the weights {fmt_vec(A.softmax(row))} before and "
            f"{fmt_vec(shifted)} after adding {fmt(SHIFT)}.",
            {"row": row.tolist(), "shift": SHIFT, "before": A.softmax(row).tolist(), "after": shifted.tolist()},
        ),
        question(
            "Multiply every score in a row by 2 (the scores are not all equal). Do the weights sharpen or flatten?",
            ["They sharpen: the largest weight grows and the row's entropy falls.",
             "They flatten toward an even spread.", "They stay the same, as for adding a constant.",
             "It depends on whether the scores are positive or negative."],
            0,
            "Doubling stretches the gaps between scores, and the softmax turns gaps into ratios: e^(2a) / e^(2b) is "
            f"the square of e^a / e^b. The row of “{first}”: largest weight {fmt(A.softmax(row).max())} → "
            f"{fmt(doubled.max())}, entropy {fmt(A.row_entropy(A.softmax(row)))} → {fmt(A.row_entropy(doubled))} nats.",
            {"row": row.tolist(), "largest": [float(A.softmax(row).max()), float(doubled.max())],
             "entropy": [float(A.row_entropy(A.softmax(row))), float(A.row_entropy(doubled))]},
        ),
        question(
            "Can a row of weights be perfectly even, every key getting 1/n?",
            ["No: the softmax always favours one key.",
             "Yes: whenever every score in the row is equal, for instance a query that is zero, or orthogonal to every key.",
             "Only under a mask.", "Only when dₖ is very large."],
            1,
            f"Equal scores give equal exponentials, so each gets 1/n of the total. A zero query against the running "
            f"example's {n} keys gets the weights {fmt_vec(zero_query_weights[0])}, each 1/{n}.",
            {"weights": zero_query_weights[0].tolist(), "n": n},
        ),
        question(
            f"In the running example “on” scores {fmt(raw[i_on, i_cat])} against “cat”, but “cat” scores "
            f"{fmt(raw[i_cat, i_on])} against “on”. Why is the score table S = QKᵀ not symmetric?",
            ["Because of the division by √dₖ.", "Because the softmax works row by row.",
             "Because queries and keys come from different matrices, W_Q and W_K: “on” asking “cat” is not “cat” asking “on”.",
             "It is symmetric; the difference is rounding."],
            2,
            "s_ij = q_i · k_j uses the query of i and the key of j; swapping i and j swaps which token gives the "
            "query. Give the keys the queries' matrix (W_K = W_Q) and the table becomes symmetric: its largest "
            f"difference from its transpose is then {fmt(np.abs(same_projection - same_projection.T).max())}.",
            {"on_cat": float(raw[i_on, i_cat]), "cat_on": float(raw[i_cat, i_on]),
             "symmetric_gap": float(np.abs(same_projection - same_projection.T).max())},
        ),
        question(
            "A mask forbids every key of one row. What does this site's library give for that row?",
            ["NaN: zero divided by zero.", "An even spread, 1/n per key.",
             "All-zero weights and a zero output row: the query attends to nothing.",
             "The same weights as without the mask."],
            2,
            "Every score of the row becomes −∞ and every exponential 0, so the plain formula divides 0 by 0 "
            "(PyTorch's softmax gives NaN there). The library treats the row as attending to nothing: the row of "
            f"“{first}” gets the weights {fmt_vec(starved_weights[0])} and the output {fmt_vec(starved_out[0])}.",
            {"weights": starved_weights[0].tolist(), "out": starved_out[0].tolist()},
        ),
        question(
            "A mask that allows every pair (all True) is applied. What changes?",
            ["Nothing: the weights and the output are exactly those without a mask.",
             "Each token can no longer attend to itself.", "Every weight becomes 1/n.",
             "Every score becomes −∞."],
            0,
            "A mask only removes forbidden pairs; with none forbidden, no score is replaced. On the running example "
            f"the largest difference in the weights is {fmt(np.abs(all_true_weights - W).max())} and in the output "
            f"{fmt(np.abs(all_true_out - out).max())}.",
            {"weights_gap": float(np.abs(all_true_weights - W).max()), "out_gap": float(np.abs(all_true_out - out).max())},
        ),
        question(
            "A column of the weights adds up to more than 1. Is something wrong?",
            ["Yes: columns must add up to 1, like rows.",
             "No: only rows add up to 1; a popular key's column can add up to anything from 0 to n.",
             "Yes: some weight must be above 1.", "No, but only when a mask is applied."],
            1,
            "Each query spends a budget of 1 across the keys; nothing limits how many queries pick the same key. In "
            f"the running example the column of “{tokens[busiest]}” adds up to {num(column_sums[busiest])}, while "
            f"every row adds up to {num(W.sum(axis=1).max())}.",
            {"column_sums": column_sums.tolist(), "busiest": busiest, "row_sums": W.sum(axis=1).tolist()},
        ),
        question(
            f"Add the same vector, {fmt_vec(b)}, to every value vector. What happens to the outputs?",
            ["Nothing changes.", "Every output row moves by exactly that vector.",
             "Every output row moves by n times that vector.",
             "The weights change, so the outputs change unpredictably."],
            1,
            "The weights do not see the values, and each row of weights adds up to 1, so adding the vector to every "
            "v_j adds it to each output row Σ_j a_ij v_j once: Σ_j a_ij = 1 times. On the running example the "
            "outputs minus the old outputs are "
            f"{fmt_vec((moved_out - out)[0])} in every row.",
            {"b": b.tolist(), "moved": (moved_out - out).tolist()},
        ),
        question(
            f"The entries of q and k are independent, with mean 0 and variance 1, and dₖ = {WIDE_D_K}. Roughly how "
            "large is the spread (standard deviation) of q · k?",
            [f"About {fmt(1)}, whatever dₖ is.", f"About √dₖ = {fmt(root)}.", f"About dₖ = {WIDE_D_K}.",
             f"About 1/√dₖ = {fmt(1 / root)}."],
            1,
            f"q · k adds up dₖ products, each of variance 1, so its variance is dₖ and its spread √dₖ. Sampled "
            f"{WIDE_SAMPLES:,} times, the spread is {num(raw_spread)}; divided by √dₖ, as attention does, it is "
            f"{num(scaled_spread)}.",
            {"raw_spread": raw_spread, "scaled_spread": scaled_spread, "root": root},
        ),
    ]


def concepts_set():
    """The conceptual set as published at problems/concepts.json."""
    questions = [{"id": f"concepts-{k:02d}", **q} for k, q in enumerate(concept_questions(), 1)]
    return {"set": "concepts", "title": CONCEPTS_TITLE, "page": "problems/",
            "library_version": A.__version__, "questions": questions}
