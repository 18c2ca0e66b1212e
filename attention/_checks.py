"""Input checks shared by every function: clear messages that name the culprit and its shape."""
import decimal
import numbers

import numpy as np


def as_float_array(name, x, *, allow_neg_inf=False):
    """`x` as a floating array (float64 unless it already is float32 or float64), or a clear error.

    Rejects NaN and +inf always; -inf too unless `allow_neg_inf` (scores may carry -inf as a mask).
    """
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be an array of numbers, got {type(x).__name__}")
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:  # ragged nested lists, objects numpy cannot hold
        raise TypeError(f"{name} must be an array of numbers: {exc}") from None
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype} (shape {arr.shape})")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        bad = np.isnan(arr) | (arr == np.inf) if allow_neg_inf else ~np.isfinite(arr)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            allowed = "finite numbers or -inf" if allow_neg_inf else "finite numbers"
            raise ValueError(f"{name} of shape {arr.shape} contains {arr[where]} at index {where}; it must hold {allowed}")
    return arr


def at_least(name, arr, ndim, shape_doc):
    """Raise unless `arr` has at least `ndim` axes; `shape_doc` is the expected shape, e.g. "(..., n_q, d_k)"."""
    if arr.ndim < ndim:
        raise ValueError(f"{name} must have shape {shape_doc}, got shape {arr.shape}")


def check_mask(mask, target_shape, name="mask"):
    """`mask` as a boolean array that broadcasts to `target_shape` (True = may attend), or a clear error."""
    if mask is None or isinstance(mask, (str, bytes)):
        raise TypeError(f"{name} must be a boolean array (True = may attend), got {type(mask).__name__}")
    try:
        mask = np.asarray(mask)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"{name} must be a boolean array (True = may attend): {exc}") from None
    if mask.dtype != bool:
        raise TypeError(f"{name} must be boolean (True = may attend), got dtype {mask.dtype} (shape {mask.shape})")
    try:
        shape = np.broadcast_shapes(mask.shape, tuple(target_shape))
    except ValueError:
        shape = None
    if shape != tuple(target_shape):
        raise ValueError(f"{name} of shape {mask.shape} does not broadcast to the scores' shape {tuple(target_shape)}")
    return mask


def batch_shape(**named):
    """The broadcast of the leading (batch) dimensions of several arrays, or an error naming them."""
    try:
        return np.broadcast_shapes(*(a.shape[:-2] for a in named.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {a.shape}" for k, a in named.items())
        raise ValueError(f"batch dimensions (all but the last two axes) do not broadcast: {shapes}") from None


def positive_int(name, value, minimum=1):
    """`value` as a Python int >= `minimum`, or a TypeError / ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def real_number(name, value):
    """`value` as a finite Python float: any real number (int, float, Fraction, Decimal, a numpy scalar),
    or a TypeError / ValueError naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:  # a Fraction or int beyond any float
        number = float("inf") if value > 0 else float("-inf")
    if not np.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value}")
    return number


class ScoresOverflow(ValueError):
    """Finite Q and K gave scores beyond their dtype's range (`attend` says which operand did it)."""


def scores_did_not_overflow(row_max, dtype, score_shape):
    """Raise ScoresOverflow if a row maximum of the scores is +inf or NaN: finite inputs left `dtype`'s range."""
    if np.isnan(row_max).any() or (row_max == np.inf).any():
        raise ScoresOverflow(f"the {np.dtype(dtype)} scores of shape {tuple(score_shape)} contain +inf or NaN")


def overflowed(S):
    """Whether a score table holds +inf or NaN (−inf is a score so low its weight is 0, as a masked one's)."""
    return bool(np.isnan(S).any() or (S == np.inf).any())


def overflow_error(dtype, score_shape, raw_overflowed):
    """The ValueError for scores of `dtype` that overflowed, naming the culprit: Q Kᵀ itself when the unscaled
    scores already left the range (`raw_overflowed`), else the scale that multiplied them."""
    dtype = np.dtype(dtype)
    culprit, fix = ("Q Kᵀ", "use smaller Q and K") if raw_overflowed else ("the scale times Q Kᵀ", "use a smaller scale")
    wider = "" if dtype == np.float64 else ", or float64"
    return ValueError(f"the {dtype} scores of shape {tuple(score_shape)} contain +inf or NaN: {culprit} "
                      f"overflowed {dtype}; {fix}{wider}")


def gradient_overflow_error(gradient, dtype, shape, culprits):
    """The ValueError for a gradient of `dtype` that left its range: `gradient` names it and its formula
    ("dW = d_out Vᵀ"), `culprits` the arguments whose size did it ("d_out and V")."""
    dtype = np.dtype(dtype)
    wider = "" if dtype == np.float64 else ", or float64"
    return ValueError(f"the {dtype} gradient {gradient} of shape {tuple(shape)} contains +inf or NaN: it overflowed "
                      f"{dtype}; use smaller {culprits}{wider}")


def softmax_rows(name, W):
    """Raise unless every row of `W` (..., n_k) could come from a softmax: no negative weight, and a sum of 1
    (or 0, a row that attended to nothing), within what the dtype's rounding over n_k terms allows."""
    if W.size == 0:
        return
    negative = W < 0
    if negative.any():
        where = tuple(int(i) for i in np.argwhere(negative)[0])
        raise ValueError(f"{name} of shape {W.shape} has the negative weight {W[where]} at index {where}; "
                         "a softmax's weights are >= 0")
    sums = W.sum(axis=-1, dtype=np.float64)
    tolerance = 8 * W.shape[-1] * np.finfo(W.dtype).eps
    off = (np.abs(sums - 1) > tolerance) & (sums != 0)
    if off.any():
        row = tuple(int(i) for i in np.argwhere(off)[0])
        raise ValueError(f"{name} of shape {W.shape} has a row summing to {sums[row]:.9g} at index {row}; "
                         f"a softmax's rows sum to 1 (within {tolerance:.1e} in {W.dtype}), or to 0 where nothing was attended")
