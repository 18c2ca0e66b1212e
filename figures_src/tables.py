"""Markdown for the content pages' generated snippets: matrices as tables, numbers in one format.

Numbers go through `num`, which prints a true minus sign and drops trailing zeros only when asked,
so a table of one-decimal inputs reads 0.3 and a table of weights reads 0.27.
"""
import numpy as np

from .heatmap import format_number


def num(value, digits=2, trim=False):
    """`value` with `digits` decimals and a true minus sign; trim=True drops trailing zeros (0.30 -> 0.3)."""
    value = float(value)
    if value == -np.inf:
        return "−∞"
    if digits == 2 and not trim:
        return format_number(value)
    text = f"{value:.{digits}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    if text.lstrip("-").strip("0.") == "":  # a zero, or a tiny number that rounds to one: never "−0"
        text = text.lstrip("-")
    return text.replace("-", "−")


def vector(values, digits=2, trim=False):
    """A row vector in brackets: [0.2, −0.4, 1]."""
    return "[" + ", ".join(num(v, digits, trim) for v in values) + "]"


def matrix(values, row_labels, col_labels, corner="", digits=2, trim=False, caption=None):
    """A Markdown table of a 2-D array with labelled rows and columns."""
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
    """A Markdown table from column names and rows of already formatted cells."""
    align = align or ["---"] + ["---:"] * (len(columns) - 1)
    lines = ["| " + " | ".join(columns) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def dims(prefix, count):
    """Column labels for the entries of a vector: dims("d", 3) -> ["d1", "d2", "d3"]."""
    return [f"{prefix}{i + 1}" for i in range(count)]
