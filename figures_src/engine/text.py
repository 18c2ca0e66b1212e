"""The site's one vocabulary for printing numbers, vectors and tables, in Markdown, LaTeX and figures.

Every number a page, a figure, a table or a problem prints goes through `num`: a fixed number of decimals,
ties rounded as Python rounds the exact binary value, a true minus sign, never "−0", and −∞ for a masked score.
The page's JavaScript prints with the same rules: docs/javascripts/attention-math.js's formatNumber and
formatCell take their digits and tie rule from the contract this module's constants are emitted in
(figures_src/engine/contract.py), and tests/test_contract.py runs both languages over the same cases.

What a download writes in full (an example's JSON, a figure's CSV, a problem set, the kit) goes through
`published`: each array to PUBLISHED_DIGITS significant digits of its largest entry, the same bytes whichever BLAS
kernel computed it.
"""
import dataclasses
import math
import re
from decimal import ROUND_FLOOR, Decimal
from html import escape

import numpy as np

from .errors import BuildError
from .words import SITE_WORDS as WORDS

MINUS = "−"
MASKED = "−∞"
DIGITS = 2  # a heatmap cell's, a table's, a caption's number
TIE_DIGITS = 3  # a cell whose 2 decimals would round an exact tie (see cell())
TIE_NOISE = 1e-6  # how far from halfway (in units of the last digit) a value still counts as a tie
PROBLEM_DIGITS = 4  # a problem's number: at most 4 decimals, trailing zeros dropped
PROBLEM_WIDE_CHARS = 6  # an answer grid whose printed answers run longer gets wider boxes (problems.css, --wide)
BY_HAND_DIGITS = 4  # the weights of an output row worked by hand: all with 4 decimals, more only where 4 miss the output


def num(value, digits=DIGITS, trim=False):
    """`value` with `digits` decimals; trim=True drops trailing zeros (0.30 -> 0.3, 2.00 -> 2).

    None (a masked score in the JSON) and −inf print as −∞; booleans as 1 and 0 (a mask's entries). NaN and +inf
    are no number a reader should see: ValueError.
    """
    if value is None:
        return MASKED
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    value = float(value)
    if value == -np.inf:
        return MASKED
    if not np.isfinite(value):
        raise ValueError(f"{value} is not a number to print")
    text = f"{value:.{digits}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    if text.lstrip("-").strip("0.") == "":  # a zero, or a tiny number that rounds to one: never "−0"
        text = text.lstrip("-")
    return text.replace("-", MINUS)


def is_tie(value, digits=DIGITS, noise=0):
    """Whether `value` (a float, or a Decimal known exactly) lies halfway between two numbers of `digits` decimals,
    within `noise` units of the last digit: printed, it could be read either way (0.185 with 2 decimals). The one
    tie rule of the build's arithmetic; docs/javascripts/attention-math.js's isTie is its twin for the page."""
    shifted = abs(Decimal(value)).scaleb(digits)
    return abs(shifted - shifted.to_integral_value(ROUND_FLOOR) - Decimal("0.5")) <= Decimal(noise)


def cell(value):
    """A heatmap cell's or a figure table's number: 2 decimals, or 3 where 2 would round an exact tie
    (0.415, 0.675, a raw score over √4), which then prints as it is instead of rounding one way here and
    the other way there. The interactive heatmap prints its grid cells the same way (formatCell)."""
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and is_tie(value, DIGITS, TIE_NOISE):
        return num(value, TIE_DIGITS)
    return num(value)


@dataclasses.dataclass(frozen=True)
class Shown:
    """A figure table's cell (or column label) that the page prints as `text` and the CSV download writes as
    `value`: a number as `published` writes it ("256 KiB" on the page is 262144 bytes in the CSV, "−0.0004" is
    -0.000387…), or "" for a cell the page marks "—". A column label's `value` is the CSV's header, units in it."""
    value: object
    text: str


# What a download writes (an example's JSON, a figure's CSV, a problem set, the kit): each array of numbers to
# PUBLISHED_DIGITS significant digits of its largest entry. Two BLAS kernels (OpenBLAS's default and Sandybridge on an
# AMD EPYC) left the worked examples apart by up to 3e-15 of an array's largest entry, a true zero as ±1e-16: rounded
# to 12 digits, 2 entries of ex-block still fell on either side of a rounding boundary (0.4 expected from the noise);
# to 10, 0.004 are expected.
PUBLISHED_DIGITS = 10
# How far a number worked out again from a download's rounded numbers may land from the download's own, relative to
# the largest entry of its array: each operand is off by up to half a unit in its last digit, a few sums add that up.
PUBLISHED_TOLERANCE = 10.0 ** (3 - PUBLISHED_DIGITS)


def published_note():
    """What an example's or a problem set's JSON says of its numbers' rounding (words/site.md, published-note)."""
    return WORDS.line("published-note", digits=PUBLISHED_DIGITS)


def published(value):
    """`value` as a download writes it. An array of numbers (a list, nested or not, or an ndarray) is rounded to
    PUBLISHED_DIGITS significant digits of its largest entry: the same decimals for every entry, so noise around a
    true zero (1e-16 beside entries near 1) rounds to 0 wherever it comes from. A number on its own is rounded to
    PUBLISHED_DIGITS of its own; a dict, or a list of dicts, item by item. What is exact stays as it is: integers,
    booleans, ±inf, None and strings; −0.0 becomes 0.0."""
    if isinstance(value, dict):
        return {key: published(item) for key, item in value.items()}
    entries = _entries(value)
    if entries is None:  # a list of records
        return [published(item) for item in value]
    sizes = [abs(float(x)) for x in entries if isinstance(x, (int, float, np.integer, np.floating))
             and not isinstance(x, (bool, np.bool_)) and math.isfinite(x)]
    largest = max(sizes, default=0.0)
    # the decimals that print the largest entry with PUBLISHED_DIGITS significant digits (0.99999999999999989 as 1)
    exponent = int(f"{largest:.{PUBLISHED_DIGITS - 1}e}".split("e")[1])
    return _rounded(value, PUBLISHED_DIGITS - 1 - exponent)


def _entries(value):
    """Every entry of `value`, a number or a (nested) list or ndarray of them; None when it holds a dict."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, dict):
        return None
    if not isinstance(value, (list, tuple)):
        return [value]
    entries = []
    for item in value:
        inner = _entries(item)
        if inner is None:
            return None
        entries += inner
    return entries


def _rounded(value, decimals):
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_rounded(item, decimals) for item in value]
    if isinstance(value, (float, np.floating)) and math.isfinite(value):
        return round(float(value), decimals) + 0.0  # correctly rounded, so the same on every machine; never −0.0
    return float(value) if isinstance(value, np.floating) else value


def tie_note(values):
    """The sentence a heatmap's caption ends with when one of its cells prints 3 decimals (see cell()), naming
    the first such cell; "" when none does. docs/widgets/heatmap/heatmap.js adds the same sentence to a caption it writes."""
    for value in np.ravel(values):
        if isinstance(value, (float, np.floating)) and np.isfinite(value) and len(cell(value).split(".")[-1]) == 3:
            return WORDS.line("tie-note", digits=DIGITS, tie_digits=TIE_DIGITS, value=cell(value))
    return ""


def rounding_note(weights, labels, values=None):
    """The sentence a caption of weights ends with when a row, as its cells print (see cell()), does not add up
    to 1.00, naming the first such row by its label (its token), and by its number too when another row has the
    same label; "" when every printed row does. `values`: what the numbers are called ("Weights" unless given)."""
    labels = list(labels)
    for index, (label, row) in enumerate(zip(labels, np.asarray(weights, dtype=float))):
        total = sum(Decimal(cell(w)) for w in row)
        if total != 1:
            named = dict(values=values or WORDS.line("rounding-note/weights"), digits=DIGITS, label=str(label),
                         total=num(total))
            if labels.count(label) > 1:
                return WORDS.line("rounding-note/numbered", row=index + 1, **named)
            return WORDS.line("rounding-note", **named)
    return ""


# A symbol with a subscript, as plain text writes it: d_k, d_model, s̃_max, W_Q, XW_Q, a_ij, s̃_ij, dO_i, Σ_j, out_i (as
# Home's notation table writes an output row; not code names such as attend_chunked). The Problems page's JavaScript typesets with this pattern too (the contract emits it).
SUBSCRIPTED = re.compile(r"(?<![A-Za-z0-9_])(XW|dW|dA|dS̃|dS|dO|∂a|∂s̃|s̃|out|[dWqkvasδΣQKV])_(model|max|ij|[kvQKVOijlg])(?![A-Za-z0-9_])")


def typeset(text):
    """Plain text as HTML, each subscript of SUBSCRIPTED set as one: "W_Q (2 × 4)" -> "W<sub>Q</sub> (2 × 4)"."""
    return SUBSCRIPTED.sub(r"\1<sub>\2</sub>", escape(text))


def vector(values, digits=2, trim=False):
    """A row vector in brackets: [0.2, −0.4, 1]."""
    return "[" + ", ".join(num(v, digits, trim) for v in values) + "]"


def latex_number(value, digits=2, trim=False):
    """A number for LaTeX: a negative one in braces, so its minus sign reads as a sign, not a subtraction."""
    text = num(value, digits, trim).replace(MINUS, "-")
    return f"{{{text}}}" if text.startswith("-") else text


def latex_vector(values, digits=2, trim=False):
    """A row vector for LaTeX: [1,\\ {-0.5},\\ 2]."""
    return "[" + ",\\ ".join(latex_number(v, digits, trim) for v in values) + "]"


def matrix(values, row_labels, col_labels, corner="", digits=2, trim=False, caption=None):
    """A Markdown table of a 2-D array with labelled rows (in bold) and columns."""
    values = np.asarray(values, dtype=float)
    if values.shape != (len(row_labels), len(col_labels)):
        raise ValueError(f"matrix of shape {values.shape} needs {values.shape[0]} row and {values.shape[1]} column labels")
    lines = []
    if caption:
        lines += [caption, ""]
    lines.append("| " + " | ".join([corner] + [str(c) for c in col_labels]) + " |")
    lines.append("| --- |" + " ---: |" * len(col_labels))
    for label, row in zip(row_labels, values):
        lines.append("| " + " | ".join([f"**{label}**"] + [num(v, digits, trim) for v in row]) + " |")
    return "\n".join(lines) + "\n"


def table(columns, rows, align=None):
    """A Markdown table from column names and rows of already formatted cells (first column left, the rest right).
    Every row has a cell per column: column heads read from a words file ("a | b | c") that lost or gained one
    stop the build here, not as a table that reads wrongly."""
    widths = {len(row) for row in rows} | ({len(align)} if align else set())
    if widths - {len(columns)}:
        raise BuildError(f"a table of {len(columns)} columns ({' | '.join(columns)}) has a row or an alignment of "
                         f"{sorted(widths - {len(columns)})[0]} cells")
    align = align or ["---"] + ["---:"] * (len(columns) - 1)
    lines = ["| " + " | ".join(columns) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def head_label(layer, head):
    """Layer 0, head 2 (as the code counts) reads "layer 1, head 3": counted from 1, as everywhere a reader looks."""
    return WORDS.line("head-label", layer=layer + 1, head=head + 1)


def as_many(k):
    """How many there are of something cut to 1/k of a count, in words: as_many(2) -> "half as many", as_many(3) ->
    "a third as many" (words/site.md's as-many sections; never "2 times fewer")."""
    if k < 2 or int(k) != k:
        raise ValueError(f"as_many: {k} is not a whole number above 1")
    named = {2: "as-many/2", 3: "as-many/3", 4: "as-many/4"}
    return WORDS.line(named[k]) if k in named else WORDS.line("as-many", k=int(k))


def dims(prefix, count):
    """Labels for the entries of a vector, counted from 1: dims("d", 3) -> ["d1", "d2", "d3"]."""
    return [f"{prefix}{i + 1}" for i in range(count)]


def by_hand(value, digits):
    """`value` printed with `digits` decimals, and the exact number a reader reads from that print."""
    text = num(value, digits)
    return text, Decimal(text.replace(MINUS, "-"))


def softmax_by_hand(scores, weights, score_digits=3, weight_digits=4):
    """One row's softmax as a reader redoes it from the printed numbers, so that every line of its table
    checks out by hand: e^(s_j − max s) from the printed scores (None where masked), their total added up
    from the printed exponentials, each weight divided out from the printed exponential and total, their sum,
    and −w_j ln w_j from the printed weight. The exponentials get the fewest decimals (4 to 8) with which the
    weights come out as `weights`, the true ones, print.

    -> {"exponentials", "total", "weights", "weight_total", "entropy_terms", "entropy"}: printed texts
    ("0" where masked; the lists run over every key).
    """
    shown = [None if s is None else by_hand(s, score_digits)[1] for s in scores]
    top = max(s for s in shown if s is not None)
    for digits in range(4, 9):
        exponentials = [None if s is None else by_hand(np.exp(float(s - top)), digits) for s in shown]
        total = sum(e[1] for e in exponentials if e is not None)
        quantum = Decimal(1).scaleb(-weight_digits)
        derived = [None if e is None else (e[1] / total).quantize(quantum) for e in exponentials]
        if all(d is None or num(d, weight_digits) == num(w, weight_digits) for d, w in zip(derived, weights)):
            break
    terms = [None if d is None or d == 0 else (-d * Decimal(np.log(float(d)))).quantize(quantum) for d in derived]
    return {
        "exponentials": ["0" if e is None else e[0] for e in exponentials],
        "total": num(total, digits),
        "weights": ["0" if d is None else num(d, weight_digits) for d in derived],
        "weight_total": num(sum(d for d in derived if d is not None), weight_digits),
        "entropy_terms": ["0" if t is None else num(t, weight_digits) for t in terms],
        "entropy": num(sum(t for t in terms if t is not None), weight_digits),
    }
