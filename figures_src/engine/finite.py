"""Non-finite numbers never reach a reader: NaN and ±∞ stop the build, naming the array and the first bad index.
Only −∞ is ever shown (a masked score), and only where the declaration says a mask forbids the pair.

check_finite checks one array; check_tree every number of a figure's or a snippet's data, whatever its shape,
so a figure of any kind (arrows, curves, bars, a heatmap) and every snippet print only finite numbers."""
import dataclasses

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


def check_tree(value, what, allowed=(), masked_scores=False):
    """Raise BuildError unless every number anywhere in `value` is finite: dicts, lists, tuples, arrays and the
    fields of dataclasses are walked (a declaration met on the way, an Example or a Figure, holds functions and
    names, which are passed over). The message names `what` and the path to the first bad number: "figure x: data()" gives
    "figure x: data()['keys'][1]['k'] holds NaN at index [0]". `allowed`: top-level keys of a dict checked
    elsewhere (an example's arrays). masked_scores: let −∞ through, for a figure's data, whose masked scores
    heatmap() checks against the mask it is given; NaN and +∞ never pass.
    """

    def walk(value, path):
        if isinstance(value, dict):
            for key, item in value.items():
                if not (path == "" and key in allowed):
                    walk(item, f"{path}[{key!r}]")
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]")
        elif isinstance(value, np.ndarray) and value.dtype == object:
            for index in np.ndindex(value.shape):
                walk(value[index], f"{path}[{', '.join(map(str, index))}]")
        elif isinstance(value, np.ndarray):
            if masked_scores and np.issubdtype(value.dtype, np.floating):
                value = np.where(value == -np.inf, 0.0, value)
            check_finite(value, f"{what}{path}")
        elif isinstance(value, (float, np.floating)) and not np.isfinite(value):
            if not (masked_scores and value == -np.inf):
                raise BuildError(f"{what}{path} is {'NaN' if np.isnan(value) else '+∞' if value > 0 else '−∞'}")
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for field in dataclasses.fields(value):
                walk(getattr(value, field.name), f"{path}.{field.name}")

    walk(value, "")
