"""The weights the browser downloads, in a format chosen by measurement (scripts/weight_formats.py).

Read with numpy alone, so the site build needs neither torch nor safetensors:
- `read_safetensors(path)`: a safetensors file is an 8-byte little-endian header length, a JSON header
  (name -> dtype, shape, data_offsets) and the raw little-endian data.
- `quantize(state, fmt)` -> (layout, blob): each matrix stored as `fmt` says (`Format`: a rule per tensor,
  first match wins), each vector (biases, LayerNorm) as float32. A matrix is stored as
    int16: every value a whole number of steps, one step per row (the row's standard deviation / `fineness`),
      the 16-bit numbers split into two planes, high bytes then low bytes: most high bytes are 0 or 255,
      which the compression squeezes to a couple of bits;
    int8: groups of `group` consecutive values of a row (PyTorch's layout: a row is a Linear's output unit,
      or one token's embedding), each group scaled by max|group| / 127, optionally after dividing each
      column by its largest |value|; or
    float16 (IEEE half precision).
  `layout` names each tensor's shape, dtype, scales and byte offsets in `blob`.
- `pack(blob)`: the file the browser downloads, blob compressed with deflate (zlib's format, which the
  browser's DecompressionStream("deflate") reads); `unpack` undoes it.
- `dequantize(layout, blob)` -> state dict of float32 arrays, the numbers the browser computes with;
  `EncoderParams.from_state_dict` takes it like the original.

The shipped format, `SHIPPED`: every matrix as int16 with steps of 1/200 of its row's standard deviation.
Measured by scripts/weight_formats.py against the float32 model: 8-bit formats move the attention weights by
0.02 to 0.04, float16 everywhere by 0.001 but weighs 46 MB; this one moves them by at most 0.004 on the
site's sentences and 0.008 on 60 others, in 29 MB.
"""
import json
import struct
import zlib
from dataclasses import dataclass

import numpy as np

SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
ALIGN = 4  # every tensor starts on a 4-byte boundary, so a Float32Array can view it in place
ROW = 0  # Encoding.group for one scale per row
DTYPES = ("int16", "int8", "float16")


@dataclass(frozen=True)
class Encoding:
    """How one matrix is stored: "int16" (steps of the row's standard deviation / `fineness`), "int8" (`group`
    values per scale, ROW for a whole row; `columns`: each column divided by its largest |value| first) or
    "float16"."""

    dtype: str
    group: int = 32
    columns: bool = False
    fineness: int = 200

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"a matrix is stored as one of {', '.join(DTYPES)}, not {self.dtype!r}")
        if not (isinstance(self.group, int) and self.group >= 0):
            raise ValueError(f"an int8 group is a positive number of values (or ROW), not {self.group!r}")
        if not (isinstance(self.fineness, int) and self.fineness > 0):
            raise ValueError(f"int16's fineness is a positive number of steps per standard deviation, not {self.fineness!r}")


@dataclass(frozen=True)
class Format:
    """A weight format: `rules`, (name suffix, Encoding) pairs, the first suffix a tensor's name ends with wins;
    any other matrix gets `default`."""

    default: Encoding
    rules: tuple = ()

    def encoding(self, name):
        return next((encoding for suffix, encoding in self.rules if name.endswith(suffix)), self.default)


SHIPPED = Format(Encoding("int16", fineness=200))


def read_safetensors(path):
    """path -> {name: numpy array}, the file's tensors (float32 as stored)."""
    with open(path, "rb") as f:
        data = f.read()
    (header_length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + header_length])
    body = memoryview(data)[8 + header_length:]
    state = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] not in SAFETENSORS_DTYPES:
            raise ValueError(f"{path}: tensor {name!r} has dtype {entry['dtype']}, which this reader does not know")
        start, end = entry["data_offsets"]
        array = np.frombuffer(body[start:end], dtype=np.dtype(SAFETENSORS_DTYPES[entry["dtype"]]).newbyteorder("<"))
        state[name] = array.reshape(entry["shape"]).astype(SAFETENSORS_DTYPES[entry["dtype"]])
    return state


def quantize_groups(matrix, group):
    """(rows, cols) float -> (int8 (rows, cols), float32 scales (rows, cols // group)):
    matrix[r, g*group:(g+1)*group] ≈ q[r, g*group:(g+1)*group] * scales[r, g]."""
    matrix = np.asarray(matrix, dtype=np.float32)
    rows, cols = matrix.shape
    if cols % group:
        raise ValueError(f"a row of {cols} values does not split into groups of {group}")
    grouped = matrix.reshape(rows, cols // group, group)
    scales = np.abs(grouped).max(axis=-1) / 127
    scales = np.where(scales == 0, 1, scales).astype(np.float32)
    q = np.clip(np.rint(grouped / scales[..., None]), -127, 127).astype(np.int8)
    return q.reshape(rows, cols), scales


def column_scales(matrix):
    """(rows, cols) -> float32 (cols,): each column's largest |value| (1 for a column of zeros)."""
    largest = np.abs(np.asarray(matrix, dtype=np.float32)).max(axis=0)
    return np.where(largest == 0, 1, largest).astype(np.float32)


def dequantize_groups(q, scales):
    """The inverse: int8 (rows, cols), scales (rows, cols // group) -> float32 (rows, cols)."""
    rows, cols = q.shape
    grouped = q.reshape(rows, scales.shape[1], -1).astype(np.float32) * scales[..., None]
    return grouped.reshape(rows, cols).astype(np.float32)


def quantize_steps(matrix, fineness):
    """(rows, cols) float -> (int16 (rows, cols), float32 steps (rows,)): matrix[r] ≈ q[r] * steps[r], each step
    the row's standard deviation / fineness (1 for a constant row)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    steps = matrix.std(axis=1) / fineness
    steps = np.where(steps == 0, 1, steps).astype(np.float32)
    q = np.rint(matrix / steps[:, None])
    if np.abs(q).max() > 32767:
        raise ValueError(f"a value lies {np.abs(q).max():.0f} steps from 0, beyond int16; use a smaller fineness")
    return q.astype(np.int16), steps


def quantize(state, fmt=SHIPPED, names=None):
    """state {name: array} -> (layout list of dicts, blob bytes), in the order of `names` (default: sorted).

    A layout entry: {"name", "shape", "dtype": "int16" | "int8" | "float16" | "float32", "offset"}; int16 adds
    "steps_offset" (float32, one per row) and stores its high bytes at offset, its low bytes right after them;
    int8 adds "group" and "scales_offset" (float32, rows × cols / group, row-major), and with column scales
    "column_scales_offset" (float32, cols: the value is q × its group's scale × its column's scale). Offsets
    are bytes into blob.
    """
    layout, parts, size = [], [], 0

    def add(raw):
        nonlocal size
        offset = size
        padding = -len(raw) % ALIGN
        parts.append(raw + b"\0" * padding)
        size += len(raw) + padding
        return offset

    for name in names or sorted(state):
        value = np.asarray(state[name])
        entry = {"name": name, "shape": list(value.shape)}
        if value.ndim == 2:
            encoding = fmt.encoding(name)
            if encoding.dtype == "int16":
                q, steps = quantize_steps(value, encoding.fineness)
                planes = q.astype("<i2").view(np.uint8).reshape(-1, 2)  # (count, [low, high])
                entry.update(dtype="int16", offset=add(planes[:, 1].tobytes() + planes[:, 0].tobytes()))
                entry["steps_offset"] = add(steps.astype("<f4").tobytes())
            elif encoding.dtype == "float16":
                half = value.astype("<f2")
                if not np.isfinite(half).all():
                    raise ValueError(f"tensor {name!r} has values beyond float16's range")
                entry.update(dtype="float16", offset=add(half.tobytes()))
            else:
                group = encoding.group or value.shape[1]
                columns = column_scales(value) if encoding.columns else None
                q, scales = quantize_groups(value if columns is None else value / columns, group)
                entry.update(dtype="int8", group=group, offset=add(q.tobytes()))
                entry["scales_offset"] = add(scales.astype("<f4").tobytes())
                if columns is not None:
                    entry["column_scales_offset"] = add(columns.astype("<f4").tobytes())
        elif value.ndim == 1:
            entry.update(dtype="float32", offset=add(value.astype("<f4").tobytes()))
        else:
            raise ValueError(f"tensor {name!r} has shape {value.shape}: only vectors and matrices are shipped")
        layout.append(entry)
    return layout, b"".join(parts)


def pack(blob):
    """The file the browser downloads: blob compressed with deflate (zlib's format, level 9)."""
    return zlib.compress(blob, 9)


def unpack(packed):
    """The blob `pack` compressed, read as the page reads it (DecompressionStream): one whole deflate stream, and
    nothing after it (zlib.decompress alone ignores trailing bytes)."""
    stream = zlib.decompressobj()
    blob = stream.decompress(packed)
    if not stream.eof or stream.unused_data:
        raise ValueError(f"not one whole deflate stream: {'bytes after its end' if stream.eof else 'it is cut short'}")
    return blob


def dequantize(layout, blob):
    """The shipped tensors as float32: {name: array}: whole steps times the row's step, int8 times its
    scale(s), float16 widened."""
    state = {}
    for entry in layout:
        shape = tuple(entry["shape"])
        count = int(np.prod(shape))
        if entry["dtype"] == "int16":
            planes = np.frombuffer(blob, dtype=np.uint8, count=2 * count, offset=entry["offset"]).reshape(2, count)
            q = (planes[0].astype(np.int8).astype(np.int32) * 256 + planes[1]).reshape(shape)  # high byte signed
            steps = np.frombuffer(blob, dtype="<f4", count=shape[0], offset=entry["steps_offset"])
            state[entry["name"]] = (q * steps[:, None]).astype(np.float32)
        elif entry["dtype"] == "int8":
            q = np.frombuffer(blob, dtype=np.int8, count=count, offset=entry["offset"]).reshape(shape)
            n_groups = shape[1] // entry["group"]
            scales = np.frombuffer(blob, dtype="<f4", count=shape[0] * n_groups, offset=entry["scales_offset"])
            values = dequantize_groups(q, scales.reshape(shape[0], n_groups))
            if "column_scales_offset" in entry:
                values *= np.frombuffer(blob, dtype="<f4", count=shape[1], offset=entry["column_scales_offset"])
            state[entry["name"]] = values
        elif entry["dtype"] in ("float16", "float32"):
            dtype = "<f2" if entry["dtype"] == "float16" else "<f4"
            state[entry["name"]] = np.frombuffer(blob, dtype=dtype, count=count, offset=entry["offset"]).reshape(shape).astype(np.float32)
        else:
            raise ValueError(f"tensor {entry['name']!r}: unknown dtype {entry['dtype']!r}")
    return state
