"""Which weight format the your-sentence page ships: each candidate's download and accuracy, side by side.

    .venv/bin/python scripts/weight_formats.py

For every candidate format (models/minilm/shipped.py's `Format`), the weights are quantized and read back as the
browser reads them, and the numpy encoder runs on them and on the float32 model, on the site's three sentences
and on the 60 test sentences of tests/test_your_sentence.py. Printed per format: the download (the weights
compressed with deflate as the page ships them, the vocabulary and the manifest, in MB) and the largest |Δ weight| against float32 on each set. The bounds the
page must meet (tests/test_your_sentence.py holds the shipped format to them): ≤ 0.005 on the site's
sentences, ≤ 0.01 on the test sentences, ≤ 30 MB.

Needs the test extra (tokenizers), like the tests it borrows the sentences from.
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from models.minilm.data import SENTENCES  # noqa: E402
from models.minilm.encoder import EncoderParams, encode  # noqa: E402
from models.minilm.model import load_model  # noqa: E402
from models.minilm.shipped import ROW, SHIPPED, Encoding, Format, dequantize, pack, quantize, read_safetensors  # noqa: E402
from figures_src.pages.your_sentence import shipped_state  # noqa: E402
from test_your_sentence import parity_texts  # noqa: E402

SITE_BOUND, TEST_BOUND, DOWNLOAD_LIMIT = 0.005, 0.01, 30_000_000

INT8_32, INT8_ROW, FLOAT16 = Encoding("int8", 32), Encoding("int8", ROW), Encoding("float16")
WORDS = "embeddings.word_embeddings.weight"
Q_K = (("attention.self.query.weight", FLOAT16), ("attention.self.key.weight", FLOAT16))
V_O = (("attention.self.value.weight", FLOAT16), ("attention.output.dense.weight", FLOAT16))
CANDIDATES = {
    "int8, groups of 32, word embeddings by row (before)": Format(INT8_32, ((WORDS, INT8_ROW),)),
    "int8 by row everywhere": Format(INT8_ROW),
    "int8, groups of 32": Format(INT8_32),
    "int8, groups of 8": Format(Encoding("int8", 8)),
    "int8, groups of 32 + column scales": Format(Encoding("int8", 32, columns=True)),
    "int8 g32, float16 W_Q W_K": Format(INT8_32, Q_K),
    "int8 g32, float16 W_Q W_K W_V W_O": Format(INT8_32, (*Q_K, *V_O)),
    "float16, word embeddings int8 g32": Format(FLOAT16, ((WORDS, INT8_32),)),
    "float16 everywhere": Format(FLOAT16),
    "int16, steps of σ/100 of a row": Format(Encoding("int16", fineness=100)),
    "int16, steps of σ/150 of a row": Format(Encoding("int16", fineness=150)),
    "int16, steps of σ/200 of a row (shipped)": SHIPPED,
    "int16, steps of σ/250 of a row": Format(Encoding("int16", fineness=250)),
}


def worst_difference(reference, candidate, config, id_lists):
    """max over the sentences of max |Δ| between the two models' attention weights."""
    return max(float(np.abs(encode(reference, config, ids).weights - encode(candidate, config, ids).weights).max())
               for ids in id_lists)


def main():
    started = time.perf_counter()
    model = load_model()
    state = shipped_state(read_safetensors(model.folder / "model.safetensors"))
    vocabulary_bytes = (model.folder / "vocab.txt").stat().st_size
    site = [model.tokenize(sentence.text)[1] for sentence in SENTENCES]
    tests = [model.tokenize(text)[1][:64] for text in parity_texts()]
    assert len(tests) == 60, len(tests)
    print(f"{len(site)} site sentences, {len(tests)} test sentences; bounds: ≤ {SITE_BOUND} and ≤ {TEST_BOUND} "
          f"max |Δ weight| against float32, download ≤ {DOWNLOAD_LIMIT / 1e6:.0f} MB\n")
    print(f"| {'format':<52} | download (MB) | site max |Δw| | tests max |Δw| | meets all |")
    print(f"|{'-' * 54}|--------------:|--------------:|---------------:|:---------:|")
    for label, fmt in CANDIDATES.items():
        layout, blob = quantize(state, fmt)
        manifest_bytes = len(json.dumps({"tensors": layout}, indent=1)) + 1000  # the rest of the manifest: under 1 kB
        download = len(pack(blob)) + vocabulary_bytes + manifest_bytes
        shipped = EncoderParams.from_state_dict(dequantize(layout, blob), model.config)
        on_site = worst_difference(model.params, shipped, model.config, site)
        on_tests = worst_difference(model.params, shipped, model.config, tests)
        meets = on_site <= SITE_BOUND and on_tests <= TEST_BOUND and download <= DOWNLOAD_LIMIT
        print(f"| {label:<52} | {download / 1e6:13.2f} | {on_site:13.4f} | {on_tests:14.4f} | {'yes' if meets else 'no':^9} |",
              flush=True)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
