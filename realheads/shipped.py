"""The weights the browser downloads: all-MiniLM-L6-v2 in int8 with float32 scales, one per group of a row.

Read with numpy alone, so the site build needs neither torch nor safetensors:
- `read_safetensors(path)`: a safetensors file is an 8-byte little-endian header length, a JSON header
  (name -> dtype, shape, data_offsets) and the raw little-endian data.
- `quantize(state)` -> (layout, blob): every 2-D tensor as int8 in groups of `group` consecutive values of a
  row (PyTorch's layout: a row is a Linear's output unit, or one token's embedding), each group scaled by
  max|group| / 127; every 1-D tensor (biases, LayerNorm) as float32. `layout` names each tensor's shape,
  dtype, group and byte offsets in `blob`. Groups of 32 keep the attention weights within about 0.02 of
  the float32 model's; one scale per row (group = the row) left 0.07, mostly from the feed-forward's W_2.
  The word embeddings, which hold half the bytes, keep one scale per row: finer groups there buy nothing.
- `dequantize(layout, blob)` -> state dict of float32 arrays, the numbers the browser computes with;
  `EncoderParams.from_state_dict` takes it like the original.
"""
import json
import struct

import numpy as np

SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
ALIGN = 4  # every tensor starts on a 4-byte boundary, so a Float32Array can view it in place
GROUP = 32  # values per scale in a row
ROW_SCALED = ("embeddings.word_embeddings.weight",)  # one scale per row


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


def dequantize_groups(q, scales):
    """The inverse: int8 (rows, cols), scales (rows, cols // group) -> float32 (rows, cols)."""
    rows, cols = q.shape
    grouped = q.reshape(rows, scales.shape[1], -1).astype(np.float32) * scales[..., None]
    return grouped.reshape(rows, cols).astype(np.float32)


def quantize(state, names=None):
    """state {name: array} -> (layout list of dicts, blob bytes), in the order of `names` (default: sorted).

    A layout entry: {"name", "shape", "dtype": "int8" | "float32", "offset"} and, for int8, "group" and
    "scales_offset" (float32, rows × cols / group, row-major). Offsets are bytes into blob.
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
        if value.ndim == 2:
            group = value.shape[1] if name in ROW_SCALED else GROUP
            q, scales = quantize_groups(value, group)
            entry = {"name": name, "shape": list(value.shape), "dtype": "int8", "group": group, "offset": add(q.tobytes())}
            entry["scales_offset"] = add(scales.astype("<f4").tobytes())
        elif value.ndim == 1:
            entry = {"name": name, "shape": list(value.shape), "dtype": "float32",
                     "offset": add(value.astype("<f4").tobytes())}
        else:
            raise ValueError(f"tensor {name!r} has shape {value.shape}: only vectors and matrices are shipped")
        layout.append(entry)
    return layout, b"".join(parts)


def dequantize(layout, blob):
    """The shipped tensors as float32: {name: array}, each int8 group times its scale."""
    state = {}
    for entry in layout:
        shape = tuple(entry["shape"])
        count = int(np.prod(shape))
        if entry["dtype"] == "int8":
            q = np.frombuffer(blob, dtype=np.int8, count=count, offset=entry["offset"]).reshape(shape)
            n_groups = shape[1] // entry["group"]
            scales = np.frombuffer(blob, dtype="<f4", count=shape[0] * n_groups, offset=entry["scales_offset"])
            state[entry["name"]] = dequantize_groups(q, scales.reshape(shape[0], n_groups))
        elif entry["dtype"] == "float32":
            state[entry["name"]] = np.frombuffer(blob, dtype="<f4", count=count, offset=entry["offset"]).reshape(shape).astype(np.float32)
        else:
            raise ValueError(f"tensor {entry['name']!r}: unknown dtype {entry['dtype']!r}")
    return state
