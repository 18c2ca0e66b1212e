"""Benchmark: the watch-it-write page's tiny decoder. What the build spends on it (loading the committed parameters,
measuring them on 1,000 held-out strings; its training is `make train`'s, in scripts/bench_training.py), decoding speed
(tokens per second) in numpy and in JavaScript (Node, docs/widgets/watch-it-write/decoder.js) side by side, with the
KV cache and recomputing everything, and the bytes the page ships on demand.

    .venv/bin/python scripts/bench_decoder.py      (needs the built generated/ and Node)
"""
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from figures_src.pages import watch_it_write as page  # noqa: E402
from models import decoder  # noqa: E402

RUNS = 200  # strings decoded, 2L tokens each

JS_TIMER = """
import { readFileSync } from "node:fs";
import { generate } from "%s";
const model = JSON.parse(readFileSync(process.argv[2], "utf8"));
const sources = JSON.parse(readFileSync(process.argv[3], "utf8"));
const out = {};
for (const recompute of [false, true]) {
  generate(model, sources[0], recompute);  // warm up
  const start = performance.now();
  for (const source of sources) generate(model, source, recompute);
  out[recompute ? "recomputed" : "cached"] = (performance.now() - start) / 1000;
}
console.log(JSON.stringify(out));
"""


def gz(data):
    return len(gzip.compress(data, 9, mtime=0))


def main():
    page.trained.cache_clear()
    start = time.process_time()
    data = page.trained()
    training = time.process_time() - start
    print(f"both models loaded from data/trained/ and measured: {training:6.2f} s CPU")
    print(f"accuracy {data['accuracy']:.3f}, without positions {data['blind_accuracy']:.3f}, "
          f"job head {data['job_head']} share {data['shares'].max():.4f}")

    sources = np.random.default_rng(0).integers(0, 10, size=(RUNS, page.CONFIG.length))
    tokens = RUNS * page.CONFIG.n_positions
    numpy_seconds = {}
    with threadpool_limits(limits=1, user_api="blas"):
        for name, use_cache in (("cached", True), ("recomputed", False)):
            start = time.perf_counter()
            for source in sources:
                decoder.generate(data["params"], page.CONFIG, source, use_cache=use_cache)
            numpy_seconds[name] = time.perf_counter() - start
    weights = next((ROOT / "generated" / "public" / "models").glob("reverse-digits.*.json"))
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "time.mjs"
        script.write_text(JS_TIMER % (ROOT / "docs" / "widgets" / "watch-it-write" / "decoder.js").as_uri(), encoding="utf-8")
        (Path(folder) / "sources.json").write_text(json.dumps(sources.tolist()), encoding="utf-8")
        # decoder.js reads attention-math.js, which imports the build's contract.js: the tests' loader generates it
        loader = (ROOT / "tests" / "js" / "contract-loader.mjs").as_uri()
        result = subprocess.run([shutil.which("node"), "--import", loader, str(script), str(weights),
                                 str(Path(folder) / "sources.json")],
                                capture_output=True, text=True, check=True)
        js_seconds = json.loads(result.stdout)
    print(f"{'tokens per second':<20} {'numpy':>10} {'JS (Node)':>10} {'JS / numpy':>11}")
    for name in ("cached", "recomputed"):
        numpy_rate, js_rate = tokens / numpy_seconds[name], tokens / js_seconds[name]
        print(f"{name:<20} {numpy_rate:10.0f} {js_rate:10.0f} {js_rate / numpy_rate:10.1f}×")
    on_demand = [ROOT / "docs" / "widgets" / "watch-it-write" / name for name in ("decoder.js", "watch-it-write-app.js")]
    shipped = {"weights (JSON)": weights.read_bytes(), **{f"{p.name} (source, unminified)": p.read_bytes() for p in on_demand}}
    print(f"{'shipped after Generate':<40} {'bytes':>8} {'gzipped':>8}")
    for name, content in shipped.items():
        print(f"{name:<40} {len(content):8,} {gz(content):8,}")


if __name__ == "__main__":
    main()
