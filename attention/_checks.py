"""Input checks shared by every function: clear messages that name the culprit."""
import numpy as np


def as_float_array(name, x, *, allow_neg_inf=False):
    """`x` as a floating array (float64 unless it already is float32/float64), or a clear error.

    Rejects NaN and +inf always; -inf only unless `allow_neg_inf` (scores may carry -inf as a mask).
    """
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be an array of numbers, got {type(x).__name__}")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged nested lists, objects numpy cannot hold
        raise TypeError(f"{name} must be an array of numbers: {exc}") from None
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.number)):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    bad = np.isnan(arr) | (arr == np.inf)
    if not allow_neg_inf:
        bad |= arr == -np.inf
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} contains {arr[where]} at index {where}; attention needs finite inputs")
    return arr


def at_least(name, arr, ndim, shape_doc):
    if arr.ndim < ndim:
        raise ValueError(f"{name} must have shape {shape_doc}, got shape {arr.shape}")


def check_mask(mask, target_shape, name="mask"):
    """A boolean mask that broadcasts to `target_shape` (True = may attend)."""
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise TypeError(f"{name} must be boolean (True = may attend), got dtype {mask.dtype}")
    try:
        shape = np.broadcast_shapes(mask.shape, target_shape)
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
        raise ValueError(f"batch dimensions do not broadcast: {shapes}") from None


def positive_int(name, value, minimum=1):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)
