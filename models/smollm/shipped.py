"""The files the browser downloads for SmolLM2-135M: the GGUF's own quantized weights, rearranged so WebAssembly
reads them in place, and a numpy reader that turns them back into numbers.

`ship(path=None) -> Shipped(files, layout)`:
- `files`, {stem: bytes}: "smollm-weights-0", "smollm-weights-1", … (shards of at most SHARD_BYTES) and
  "smollm-tokenizer" (the vocabulary and merges as JSON) and "smollm-kernels" (the WebAssembly that multiplies by
  the quantized weights: docs/widgets/your-sentence/kernels.wat, which the your-sentence encoder shares). The page module writes each under a content-hashed name
  and lists it, with its byte count and SHA-256, in the manifest.
- `layout`, what the manifest holds besides the files' names: "config" (the model's shape), "tokenizer" (its file's
  stem and special tokens), "shards" (the weight files' stems, in order) and "tensors", one entry per GGUF tensor,
  in the GGUF's order: {"name", "type" ("Q4_1", "Q8_0" or "F32"), "shape" [rows, cols] (numpy's order: a weight
  matrix is (d_out, d_in), the GGUF's ne1 × ne0), "shard" (index into "shards"), "parts" {part: [offset, bytes]}}.

Every tensor keeps the GGUF's quantization, value for value: only the bytes move. The GGUF interleaves each block's
scales with its codes; here each tensor is *planar*, one array per field, so that SIMD loads are aligned and a
block's codes are 16 bytes in a row:
- Q4_1 (blocks of 32 along a row, x = d·q + m): "d" (float16, one per block), "m" (float16), "qs" (uint8, 16 per
  block, the GGUF's nibble order: value j (0 … 15) is byte j's low nibble, value j + 16 its high nibble);
- Q8_0 (blocks of 32, x = d·q): "d" (float16), "qs" (int8, 32 per block);
- F32: "values" (float32).
Blocks run in row-major order (row r's blocks are r·cols/32 … (r+1)·cols/32 - 1). Each part starts on a 16-byte
boundary of its shard, and every shard's length is a multiple of 16, so the browser can lay the shards end to end in
one WebAssembly memory and every part stays aligned. A tensor never straddles two shards.

`read_tensor(files, layout, name)` dequantizes one tensor from the shipped files exactly as gguf's
`quants.dequantize` does from the GGUF (float32, bit for bit: d·q rounded to float32, then + m); `dequantized(...)`
does every tensor. The bytes depend on the GGUF alone: two calls write the same files.
"""
import json
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

import numpy as np

from .model import load_config, metadata, reader

SHARD_BYTES = 50_000_000  # GitHub Pages refuses files over 100 MB; the issue asks for at most 50 MB each
TOTAL_BYTES = 100_000_000  # every file together, at most
ALIGN = 16  # a SIMD load's width: every part starts on it
BLOCK = 32  # values per Q4_1 or Q8_0 block
WEIGHTS_STEM = "smollm-weights-{}"
TOKENIZER_STEM = "smollm-tokenizer"
KERNELS_STEM = "smollm-kernels"
KERNELS = Path(__file__).resolve().parents[2] / "docs" / "widgets" / "your-sentence" / "kernels.wat"
# One block's fields in the GGUF, in order: (name, numpy dtype, count per block)
FIELDS = {
    "Q4_1": (("d", np.float16, 1), ("m", np.float16, 1), ("qs", np.uint8, BLOCK // 2)),
    "Q8_0": (("d", np.float16, 1), ("qs", np.int8, BLOCK)),
}


@dataclass(frozen=True)
class Shipped:
    files: dict  # stem -> bytes
    layout: dict  # config, tokenizer, shards, tensors (see the module's docstring)


def aligned(n):
    return -(-n // ALIGN) * ALIGN


def planar_parts(tensor):
    """One GGUF tensor -> {part: its bytes}, the planar arrays described above."""
    kind = tensor.tensor_type.name
    if kind == "F32":
        return {"values": np.ascontiguousarray(tensor.data, dtype="<f4").tobytes()}
    if kind not in FIELDS:
        raise ValueError(f"{tensor.name}: {kind} is not a type the browser reads (Q4_1, Q8_0, F32)")
    blocks = np.asarray(tensor.data, dtype=np.uint8).reshape(-1, sum(np.dtype(t).itemsize * c for _, t, c in FIELDS[kind]))
    parts, start = {}, 0
    for field, dtype, count in FIELDS[kind]:
        width = np.dtype(dtype).itemsize * count
        parts[field] = np.ascontiguousarray(blocks[:, start:start + width]).tobytes()
        start += width
    return parts


def tokenizer_specials(path=None):
    """The special tokens' ids and the BOS rule, from the GGUF's metadata."""
    key = lambda name: int(metadata(f"tokenizer.ggml.{name}", path))  # noqa: E731
    return {"bos": key("bos_token_id"), "eos": key("eos_token_id"), "unknown": key("unknown_token_id"),
            "padding": key("padding_token_id"), "add_bos": bool(metadata("tokenizer.ggml.add_bos_token", path))}


def engine_tokenizer_json(path=None):
    """The tokenizer's JSON as models.smollm.tokenizer.tokenizer_json writes it ({"tokens", "merges", "special" (the
    CONTROL tokens' ids), "eos"}), written here until that module (the ref helper's) has landed."""
    tokens = metadata("tokenizer.ggml.tokens", path)
    special = [id for id, kind in enumerate(metadata("tokenizer.ggml.token_type", path)) if kind == 3]  # CONTROL
    content = {"tokens": tokens, "merges": metadata("tokenizer.ggml.merges", path), "special": special,
               "eos": int(metadata("tokenizer.ggml.eos_token_id", path))}
    return json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def tokenizer_json(path=None):
    try:
        from .tokenizer import tokenizer_json as written  # noqa: PLC0415: the ref helper's, once it has landed
    except ImportError:
        return engine_tokenizer_json(path)
    return written(path)


def kernels():
    """The compiled kernels (needs Node and wabt, as the site's build)."""
    from figures_src.engine.wasm import compile_wat  # noqa: PLC0415: only shipping compiles them

    return compile_wat(KERNELS)


@cache
def ship(path=None):
    """The GGUF at `path` (default: the pinned package's) -> Shipped. Raises ValueError when a limit is broken."""
    config = load_config(path)
    shards, tensors = [bytearray()], []
    for tensor in reader(path).tensors:
        parts = planar_parts(tensor)
        size = sum(aligned(len(part)) for part in parts.values())
        if size > SHARD_BYTES:
            raise ValueError(f"{tensor.name}: {size} bytes, more than a shard holds ({SHARD_BYTES})")
        if len(shards[-1]) + size > SHARD_BYTES:
            shards.append(bytearray())
        shard = shards[-1]
        placed = {}
        for name, part in parts.items():
            placed[name] = [len(shard), len(part)]
            shard += part + bytes(aligned(len(part)) - len(part))
        shape = [int(n) for n in reversed(tensor.shape.tolist())]  # GGUF's ne0 (a row's length) comes first
        tensors.append({"name": tensor.name, "type": tensor.tensor_type.name, "shape": shape, "shard": len(shards) - 1,
                        "parts": placed})
    files = {WEIGHTS_STEM.format(index): bytes(shard) for index, shard in enumerate(shards)}
    files[TOKENIZER_STEM] = tokenizer_json(path)
    files[KERNELS_STEM] = kernels()
    total = sum(map(len, files.values()))
    if total > TOTAL_BYTES:
        raise ValueError(f"the shipped files weigh {total} bytes, more than {TOTAL_BYTES}")
    layout = {"config": asdict(config), "tokenizer": {"file": TOKENIZER_STEM, **tokenizer_specials(path)},
              "shards": [WEIGHTS_STEM.format(index) for index in range(len(shards))], "tensors": tensors}
    return Shipped(files=files, layout=layout)


def part(files, layout, entry, name, dtype):
    offset, size = entry["parts"][name]
    return np.frombuffer(files[layout["shards"][entry["shard"]]], dtype=dtype, count=size // np.dtype(dtype).itemsize,
                         offset=offset)


def read_tensor(files, layout, name):
    """One tensor of the shipped files, dequantized to float32 with its shape, as gguf dequantizes the GGUF."""
    entry = next((entry for entry in layout["tensors"] if entry["name"] == name), None)
    if entry is None:
        raise KeyError(f"the shipped weights have no tensor {name!r}")
    get = lambda field, dtype: part(files, layout, entry, field, dtype)  # noqa: E731
    if entry["type"] == "F32":
        values = get("values", "<f4").copy()
    elif entry["type"] == "Q4_1":
        qs = get("qs", np.uint8).reshape(-1, 1, BLOCK // 2) >> np.array([0, 4], dtype=np.uint8).reshape(1, 2, 1)
        q = (qs & np.uint8(0x0F)).reshape(-1, BLOCK).astype(np.float32)  # (blocks, 32): low nibbles, then high
        d = get("d", "<f2").astype(np.float32)[:, None]
        m = get("m", "<f2").astype(np.float32)[:, None]
        values = d * q + m
    elif entry["type"] == "Q8_0":
        values = get("qs", np.int8).reshape(-1, BLOCK).astype(np.float32) * get("d", "<f2").astype(np.float32)[:, None]
    else:
        raise ValueError(f"{name}: unknown type {entry['type']}")
    return values.reshape(entry["shape"])


def dequantized(shipped):
    """Every tensor of `shipped`, {name: float32 array}."""
    return {entry["name"]: read_tensor(shipped.files, shipped.layout, entry["name"]) for entry in shipped.layout["tensors"]}
