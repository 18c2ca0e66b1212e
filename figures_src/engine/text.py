"""The site's one vocabulary for printing numbers, vectors and tables, in Markdown, LaTeX and figures.

Every number a page, a figure, a table or a problem prints goes through `num`: a fixed number of decimals,
ties rounded as Python rounds the exact binary value (as docs/javascripts/attention-math.js's formatNumber
does; a browser test keeps the two identical), a true minus sign, never "−0", and −∞ for a masked score.
"""
import numpy as np

MINUS = "−"
MASKED = "−∞"


def num(value, digits=2, trim=False):
    """`value` with `digits` decimals; trim=True drops trailing zeros (0.30 -> 0.3, 2.00 -> 2).

    None (a masked score in the JSON) and −inf print as −∞; booleans as 1 and 0 (a mask's entries).
    """
    if value is None:
        return MASKED
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    value = float(value)
    if value == -np.inf:
        return MASKED
    text = f"{value:.{digits}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    if text.lstrip("-").strip("0.") == "":  # a zero, or a tiny number that rounds to one: never "−0"
        text = text.lstrip("-")
    return text.replace("-", MINUS)


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
    """A Markdown table from column names and rows of already formatted cells (first column left, the rest right)."""
    align = align or ["---"] + ["---:"] * (len(columns) - 1)
    lines = ["| " + " | ".join(columns) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def dims(prefix, count):
    """Labels for the entries of a vector, counted from 1: dims("d", 3) -> ["d1", "d2", "d3"]."""
    return [f"{prefix}{i + 1}" for i in range(count)]
