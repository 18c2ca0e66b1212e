"""Benchmark: SmolLM2-135M writing in headless Chromium, side by side with the numpy reference's decode step.

    .venv/bin/python scripts/bench_smollm.py [--repeats 3] [--site PATH]

One run measures, for a 32-token prompt and 64 new tokens (greedy):
- in headless Chromium, through the real worker (docs/widgets/smollm/smollm-worker.js): the prompt's forward pass
  (write -> the "prompt" message), a decode step (the median time between two "token" messages: sampling, the
  forward pass of one token through the KV cache, the message), and tokens per second (64 / write -> done);
- numpy: the reference's decode step (models/smollm/reference.py) at the same context length (the JS steps' median
  is the one at 64 keys), on one BLAS thread (threadpoolctl), float32 and float64 weights, and the ratio JS / numpy
  (the issue's aim: at most 2);
- peak memory: the resident set's high-water mark (VmHWM) of the renderer process that runs the page and its worker
  (found through CDP's SystemInfo.getProcessInfo), over the whole run, download included (the issue's bound: 400 MB).

The page is a small harness served on 127.0.0.1 beside the files: the built site's (site/models/smollm.*.json and
its minified worker) when it has them or --site says so, else the files models/smollm/shipped.py writes now, with
the worker's source, in a temporary folder.
"""
import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # numpy's BLAS on one thread, before numpy is imported
os.environ["OMP_NUM_THREADS"] = "1"

import argparse
import functools
import hashlib
import http.server
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROMPT_TOKENS, NEW_TOKENS = 32, 64
# 32 tokens (the bench checks): a prompt greedy decoding continues for 64 tokens without its end-of-text token
PROMPT = ("The history of the printing press begins in the fifteenth century, when a goldsmith in Mainz combined "
          "movable type with an oil-based ink and a press.")
LIMITS = {"max_prompt_tokens": 128, "max_new": 64, "max_characters": 2000}  # figures_src/pages/smollm.py's
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]
HARNESS = """<!doctype html><meta charset="utf-8"><title>smollm bench</title><script type="module">
const worker = new Worker(new URL("../widgets/smollm/smollm-worker.js", location.href), { type: "module" });
let handler = null;
worker.onmessage = ({ data }) => handler(data);
const ask = (message, until) => new Promise((resolve, reject) => {
  const times = { start: performance.now(), tokens: [] };
  handler = (data) => {
    const now = performance.now();
    if (data.type === "error") reject(new Error(data.message));
    else if (data.type === "prompt") Object.assign(times, { prompt: now, ids: data.ids });
    else if (data.type === "token") times.tokens.push({ at: now, id: data.tokenId });
    else if (data.type === until) resolve({ ...times, end: now, reason: data.reason });
  };
  worker.postMessage(message);
});
let id = 0;
window.load = (manifest) => ask({ type: "load", manifest }, "ready");
window.write = (prompt) => ask({ type: "write", id: ++id, prompt, maxNew: %d, temperature: 0, topK: 40, seed: 1 }, "done");
</script>""" % NEW_TOKENS


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def tokenizer_ids(text):
    """The prompt's ids by transformers' tokenizer of the same GGUF (the outside reference)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    from transformers import AutoTokenizer  # noqa: PLC0415

    from models.smollm.model import gguf_path  # noqa: PLC0415

    path = gguf_path()
    return AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)(text)["input_ids"]


def scratch_site(folder, ids):
    """The shipped files, the worker's modules and a manifest in `folder` (a site root) -> the manifest's path."""
    from models.smollm.shipped import ship  # noqa: PLC0415

    shipped = ship()
    (folder / "models").mkdir()
    names = {stem: f"models/{stem}.{hashlib.sha256(content).hexdigest()[:12]}.bin" for stem, content in shipped.files.items()}
    for stem, content in shipped.files.items():
        (folder / names[stem]).write_bytes(content)
    widgets = folder / "widgets" / "smollm"
    widgets.mkdir(parents=True)
    (folder / "javascripts").mkdir()
    shutil.copy(ROOT / "docs" / "javascripts" / "model-files.js", folder / "javascripts")
    for script in (ROOT / "docs" / "widgets" / "smollm").glob("*.js"):
        shutil.copy(script, widgets)
    if not (widgets / "bpe.js").exists():  # the tokenizer is not written yet: a stand-in that knows the one prompt
        (widgets / "bpe.js").write_text(f"""const IDS = {json.dumps({PROMPT: ids})};
const printable = [...Array(256).keys()].filter((b) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174);
const BYTE = new Map(printable.map((b) => [String.fromCodePoint(b), b]));
let extra = 0;
for (let b = 0; b < 256; b++) if (!printable.includes(b)) BYTE.set(String.fromCodePoint(256 + extra++), b);
export class BPE {{
  constructor(json) {{ this.tokens = json.tokens; }}
  encode(text) {{ return IDS[text]; }}
  bytes(id) {{ return Array.from(this.tokens[id], (character) => BYTE.get(character)); }}
  decode(ids) {{ return new TextDecoder().decode(Uint8Array.from(ids.flatMap((id) => this.bytes(id)))); }}
}}
""", encoding="utf-8")
    manifest = {"files": names, "limits": LIMITS, "layout": shipped.layout,
                "integrity": {stem: {"bytes": len(c), "sha256": hashlib.sha256(c).hexdigest()} for stem, c in shipped.files.items()}}
    path = folder / "models" / "smollm.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def numpy_decode_ms(ids, dtype, repeats):
    """The reference's decode step with len(ids) - 1 tokens already in its cache, one BLAS thread: median ms."""
    from threadpoolctl import threadpool_limits  # noqa: PLC0415

    from models.smollm.reference import Cache, decode_step, forward, load_weights  # noqa: PLC0415

    weights = load_weights(dtype)
    times = []
    with threadpool_limits(1):
        cache = Cache(weights.config, weights.embedding.dtype)
        forward(weights, ids[:-1], cache)
        for _ in range(repeats + 1):  # the first is a warm-up
            step = Cache(weights.config, weights.embedding.dtype)
            step.keys, step.values = list(cache.keys), list(cache.values)
            start = time.perf_counter()
            decode_step(weights, step, ids[-1])
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times[1:])


def renderer_memory_mb(browser, field="VmHWM"):
    """The largest `field` of /proc/PID/status (VmHWM: the peak resident set; VmRSS: the resident set now) among the
    browser's renderer processes, in MB (10^6 bytes)."""
    session = browser.new_browser_cdp_session()
    processes = session.send("SystemInfo.getProcessInfo")["processInfo"]
    sizes = []
    for process in processes:
        if process["type"] == "renderer":
            status = Path(f"/proc/{process['id']}/status").read_text(encoding="utf-8")
            kilobytes = next(int(line.split()[1]) for line in status.splitlines() if line.startswith(f"{field}:"))
            sizes.append(kilobytes * 1024 / 1e6)
    return max(sizes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="a built site with the smollm page (default: site/)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    ids = tokenizer_ids(PROMPT)
    assert len(ids) == PROMPT_TOKENS, f"the bench's prompt is {len(ids)} tokens, not {PROMPT_TOKENS}"
    built = sorted((args.site / "models").glob("smollm.*.json")) if args.site.is_dir() else []
    scratch = tempfile.TemporaryDirectory()
    if built:
        root, manifest, origin = args.site.resolve(), built[0], f"the built site {args.site}"
    else:
        root = Path(scratch.name)
        manifest, origin = scratch_site(root, ids), "files shipped now, with the worker's source (no built smollm page)"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    runs = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=os.environ.get("CHROMIUM") or shutil.which("chromium"),
                                             args=CHROMIUM_FLAGS)
        page = browser.new_page()
        page.route(f"{base}/bench/", lambda route: route.fulfill(body=HARNESS, content_type="text/html"))
        page.goto(f"{base}/bench/")
        started = time.perf_counter()
        page.evaluate("(url) => load(url)", f"{base}/{manifest.relative_to(root).as_posix()}")
        load_seconds = time.perf_counter() - started
        loaded = renderer_memory_mb(browser)
        for _ in range(args.repeats):
            runs.append(page.evaluate("(prompt) => write(prompt)", PROMPT))
        peak, resident = renderer_memory_mb(browser), renderer_memory_mb(browser, "VmRSS")
        browser.close()
    server.shutdown()
    scratch.cleanup()
    first = runs[0]
    assert first["ids"] == ids, "the worker's tokens are transformers' tokens"
    assert len(first["tokens"]) == NEW_TOKENS and first["reason"] == "length", "64 new tokens, no end-of-text token"
    assert all([t["id"] for t in run["tokens"]] == [t["id"] for t in first["tokens"]] for run in runs), "greedy repeats"
    prefill = statistics.median(run["prompt"] - run["start"] for run in runs)
    steps = [b["at"] - a["at"] for run in runs for a, b in zip(run["tokens"], run["tokens"][1:])]
    step_at_64 = statistics.median(run["tokens"][31]["at"] - run["tokens"][30]["at"] for run in runs)  # 64 keys
    per_second = statistics.median(NEW_TOKENS / (run["end"] - run["start"]) * 1000 for run in runs)
    decode_per_second = statistics.median(NEW_TOKENS / (run["end"] - run["prompt"]) * 1000 for run in runs)
    context = ids + [t["id"] for t in first["tokens"]][:PROMPT_TOKENS]  # the step that makes 64 keys
    numpy32 = numpy_decode_ms(context, np.float32, max(args.repeats, 5))
    numpy64 = numpy_decode_ms(context, np.float64, max(args.repeats, 5))
    print(f"SmolLM2-135M, {origin}; headless Chromium, median of {args.repeats} runs of a {PROMPT_TOKENS}-token prompt "
          f"+ {NEW_TOKENS} new tokens (greedy); load (download, check, cache) {load_seconds:.1f} s")
    print(f"  prompt's forward pass (write -> prompt): {prefill:.0f} ms")
    print(f"  decode step: median {statistics.median(steps):.1f} ms (min {min(steps):.1f}, max {max(steps):.1f}); "
          f"at 64 keys {step_at_64:.1f} ms")
    print(f"  tokens per second: {per_second:.1f} (write -> done, prompt included); {decode_per_second:.1f} (decoding alone)")
    print(f"  numpy reference's decode step at 64 keys, 1 BLAS thread: float32 {numpy32:.1f} ms, float64 {numpy64:.1f} ms")
    print(f"  JS / numpy at 64 keys: {step_at_64 / numpy32:.2f} (float32), {step_at_64 / numpy64:.2f} (float64); aim <= 2")
    print(f"  peak memory (the renderer process: page + worker, VmHWM): {peak:.0f} MB over the whole run ({loaded:.0f} MB "
          f"by the end of the load); {resident:.0f} MB resident after the writes; bound 400 MB")


if __name__ == "__main__":
    main()
