"""Non-finite numbers never reach a reader: NaN and ±∞ stop the build, naming the array and the first bad index.
Only −∞ is ever shown (a masked score), and only where the declaration says a mask forbids the pair."""
import numpy as np

from .errors import BuildError


def check_finite(values, what, masked=None):
    """Raise BuildError unless every entry of `values` is finite, or −∞ where `masked` (bool, broadcast) is True.

    what: names the array in the message ("heatmap h1 (weights)", "example ex-x: steps.scores").
    """
    values = np.asarray(values)
    if values.dtype == bool or not np.issubdtype(values.dtype, np.number):
        return
    bad = ~np.isfinite(values)
    if masked is not None:
        bad &= ~(np.broadcast_to(np.asarray(masked, dtype=bool), values.shape) & (values == -np.inf))
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        value = values[index]
        kind = "NaN" if np.isnan(value) else "+∞" if value > 0 else "−∞"
        where = "" if masked is None else " (−∞ is allowed only where the mask forbids the pair)"
        raise BuildError(f"{what} holds {kind} at index {list(index)}{where}; "
                         f"{int(bad.sum())} non-finite entr{'y' if bad.sum() == 1 else 'ies'} in all")
