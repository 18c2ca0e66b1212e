"""Benchmark: the your-sentence page in headless Chromium, and its JS forward pass against the numpy encoder.

    .venv/bin/python scripts/bench_your_sentence.py [--repeats 5]

Serves the built site/ on 127.0.0.1, loads the model once (not timed), then for a 16-token and a 64-token
input times Run -> grid drawn (the page's performance marks "aih-yours-run" and "aih-yours-grid"), the
median of `repeats`, and records the main thread's long tasks (the browser reports tasks over 50 ms) during
those runs. The worker's forward time is compared with the numpy encoder on the same tokens and the same
(dequantized) weights, one BLAS thread, measured in this run; the ratio is JS / numpy.
"""
import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # numpy's BLAS on one thread, before numpy is imported
os.environ["OMP_NUM_THREADS"] = "1"

import argparse
import functools
import http.server
import json
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from realheads.encoder import EncoderParams, encode  # noqa: E402
from realheads.model import load_config, model_folder  # noqa: E402
from realheads.shipped import dequantize, unpack  # noqa: E402

SITE = ROOT / "site"
INPUTS = {
    16: "The animal didn't cross the street because it was too tired.",
    64: "The author who wrote the letters that the editor rejected finally published them herself in a small "
        "magazine, and the readers who found it years later wrote to ask where the rest of the letters had gone, "
        "but nobody at the magazine could remember who had kept them or why they were never printed at all, not even "
        "the editor.",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def numpy_forward_ms(ids, repeats):
    manifest_path = next((SITE / "models").glob("model.*.json"))
    manifest = json.loads(manifest_path.read_text())
    blob = (SITE / manifest["files"]["weights"]).read_bytes()
    config = load_config(model_folder())
    params = EncoderParams.from_state_dict(dequantize(manifest["tensors"], unpack(blob)), config)
    encode(params, config, ids)  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        encode(params, config, ids)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if not (SITE / "your-sentence" / "index.html").exists():
        sys.exit("site/ is not built: make site")
    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/your-sentence/"
    vocabulary = {}
    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=os.environ.get("CHROMIUM") or shutil.which("chromium"),
                                             args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.evaluate("""() => { window.longTasks = [];
            new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration)))
              .observe({ type: "longtask" }); }""")
        page.fill("#aih-yours-text", "Warm up.")
        page.click("[data-slot=run]")
        page.wait_for_selector("#aih-yours[data-state=done]", timeout=300_000)  # download + first run, not timed
        for size, text in INPUTS.items():
            run_to_grid, forward = [], []
            page.evaluate("() => { window.longTasks.length = 0; }")
            for _ in range(args.repeats):
                page.evaluate("() => { performance.clearMarks(); document.getElementById('aih-yours').dataset.state = ''; }")
                page.fill("#aih-yours-text", text)
                page.click("[data-slot=run]")
                page.wait_for_selector("#aih-yours[data-state=done]", timeout=60_000)
                run_to_grid.append(page.evaluate(
                    "() => performance.measure('run', 'aih-yours-run', 'aih-yours-grid').duration"))
                forward.append(float(page.get_attribute("#aih-yours", "data-forward-milliseconds")))
            tokens = page.inner_text("[data-slot=tokens]").split(" ")
            assert len(tokens) == size, f"the {size}-token input gave {len(tokens)} tokens"
            longest = max(page.evaluate("() => window.longTasks"), default=0)
            if not vocabulary:
                manifest = json.loads(next((SITE / "models").glob("model.*.json")).read_text())
                lines = (SITE / manifest["files"]["vocabulary"]).read_text(encoding="utf-8").split("\n")
                vocabulary = {token: index for index, token in enumerate(lines)}
            ids = np.array([vocabulary[token] for token in tokens])
            numpy_ms = numpy_forward_ms(ids, args.repeats)
            rows.append((size, statistics.median(run_to_grid), longest, statistics.median(forward), numpy_ms))
        browser.close()
    server.shutdown()
    print(f"your-sentence page, headless Chromium, median of {args.repeats}; numpy encoder on 1 BLAS thread")
    print(f"{'tokens':>6}  {'Run→grid':>9}  {'longest main-thread task':>24}  {'JS forward':>10}  {'numpy':>8}  {'JS/numpy':>8}")
    for size, grid_ms, longest, js_ms, numpy_ms in rows:
        task = f"{longest:.0f} ms" if longest else "none > 50 ms"
        print(f"{size:>6}  {grid_ms:>6.0f} ms  {task:>24}  {js_ms:>7.0f} ms  {numpy_ms:>5.0f} ms  {js_ms / numpy_ms:>8.1f}")


if __name__ == "__main__":
    main()
