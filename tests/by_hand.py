"""Redoing printed arithmetic the way a reader with pencil and paper does: from the numbers as printed.

A printed result "follows" from its printed operands when the exact value computed from the operands,
rounded to the decimals the result is printed with, is the printed result, and that rounding is not a tie
(a tie could be read either way: 0.37 × 1/2 = 0.185 printed as 0.18 or 0.19).
"""
import math
import re
from decimal import ROUND_HALF_EVEN, Decimal, getcontext

getcontext().prec = 50

# A symbol written the way code or plain text writes a subscript: d_k, d_model, W_O, XW_Q, q_i, w_ij,
# ∂w_i, dW_ij, √d_k. Code names (attend_chunked, split_heads) do not match.
PLAIN_SUBSCRIPT = re.compile(r"(?<![A-Za-z0-9_])(?:X?W|dW|dS|dO|∂w|∂s|[dqkvwsδΣ])_(?:\{|[A-Za-z0-9])")

NUMBER = r"−?\d[\d,]*(?:\.\d+)?(?:e[+−-]?\d+)?"


def number(text):
    """A printed number as an exact Decimal: '−0.185' -> Decimal('-0.185'); '1.235e+4' too."""
    text = text.strip().replace("−", "-").replace(",", "").strip("()")
    return Decimal(text)


def decimals(text):
    """How many decimals a printed number shows: '−0.185' -> 3, '2' -> 0."""
    text = text.strip().strip("()")
    mantissa = re.split(r"e", text)[0]
    return len(mantissa.split(".")[1]) if "." in mantissa else 0


def significant(text):
    """How many significant digits a printed number shows: '2.718' -> 4, '1.235e+4' -> 4, '0.0540' -> 3."""
    mantissa = re.split(r"e", text.strip().replace("−", ""))[0]
    return len(mantissa.replace(".", "").lstrip("0"))


def follows(exact, printed, *, sig=False):
    """Whether `printed` (text) is `exact` (a Decimal or float) rounded as printed, and not a tie.
    sig=True rounds to the printed significant digits instead of decimals."""
    exact = Decimal(exact) if not isinstance(exact, Decimal) else exact
    shown = number(printed)
    if sig:
        if exact == 0:
            return shown == 0
        places = significant(printed) - exact.copy_abs().adjusted() - 1
    else:
        places = decimals(printed)
    quantum = Decimal(1).scaleb(-places)
    rounded = exact.quantize(quantum, rounding=ROUND_HALF_EVEN)
    tie = (exact - rounded).copy_abs() * 2 == quantum
    return rounded == shown.quantize(quantum) and not tie


def exp(x):
    return Decimal(math.exp(float(x)))  # float precision is far beyond any printed digit here


def ln(x):
    return Decimal(math.log(float(x)))
