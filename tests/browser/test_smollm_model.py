"""The smollm page with the real model in Chromium (the site's smollm-worker.js, its weights and tokenizer): greedy
"The capital of France is" writes transformers' greedy tokens (the same GGUF file); memory stays flat over 20 runs;
two tabs write side by side; a corrupted or failed download is named and nothing half-loaded is used; no request
leaves the site (the `page` fixture). The page's own steps with a scripted worker are test_smollm_page.py's.
"""
import json
import os
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from conftest import SITE, new_tab

ROOT = "#aih-smollm"
RUN_TIMEOUT = 300_000  # ms: a 98 MB download, checked, and the tokens, on a shared machine
PROMPT = "The capital of France is"
STEPS = 8


def write(page, prompt=PROMPT, n=STEPS):
    page.fill("#aih-smollm-prompt", prompt)
    page.fill("input[name=n]", str(n))
    page.click("[data-slot=write]")
    expect(page.locator(ROOT)).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)
    return page.locator("mark.aih-smollm__written").all_inner_texts()


@pytest.fixture(scope="module")
def transformers_greedy():
    """The first STEPS greedy tokens' texts from transformers, loaded from the same GGUF file (float32)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch = pytest.importorskip("torch")
    from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: PLC0415

    from models.smollm.model import gguf_path  # noqa: PLC0415

    path = gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
    ids = tokenizer(PROMPT, return_tensors="pt", add_special_tokens=False).input_ids
    with torch.no_grad():
        out = model.generate(ids, max_new_tokens=STEPS, do_sample=False)
    return [tokenizer.decode([token]) for token in out[0, ids.shape[1]:]]


@pytest.mark.slow  # transformers loads the GGUF (seconds), the browser downloads 98 MB
def test_greedy_writes_transformers_tokens(page, site_url, transformers_greedy):
    page.goto(site_url + "smollm/")
    written = write(page)
    assert written == transformers_greedy, f"greedy decoding writes the reference's tokens: {written} != {transformers_greedy}"
    assert "".join(written).startswith(" Paris"), written
    sample = page.locator(".aih-smollm-print .aih-smollm__sample-written").text_content()
    assert sample.startswith("".join(transformers_greedy)), (
        f"the print edition's sample (the build's numpy reference, float32) begins with transformers' greedy tokens: {sample!r}")


@pytest.mark.slow
def test_memory_stays_flat_over_20_runs(page, site_url):
    page.goto(site_url + "smollm/")
    cdp = page.context.new_cdp_session(page)

    def heap():
        cdp.send("HeapProfiler.collectGarbage")
        return cdp.send("Runtime.getHeapUsage")["usedSize"]

    write(page, n=4)
    sizes = []
    for run in range(20):
        write(page, f"{PROMPT} {run}", n=4)
        sizes.append(heap())
    worker_heap = page.workers[0].evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0") if page.workers else 0
    growth = sizes[-1] - sizes[1]
    assert growth < 2_000_000, f"the page's JS heap grew {growth} bytes over 20 runs ({sizes}): a run keeps only its own data"
    assert worker_heap < 200_000_000, f"the worker's JS heap is {worker_heap} bytes"


@pytest.mark.slow
def test_a_second_tab_writes_the_same_and_a_link_runs_at_once(desktop, site_url):
    first = new_tab(desktop, site_url)
    second = desktop.new_page()
    first.goto(site_url + "smollm/")
    expected = write(first)
    second.goto(site_url + "smollm/")
    expect(second.locator("[data-slot=write]")).to_have_text("Write (the model is stored in your browser)")
    assert write(second) == expected, "a second tab reads the stored model and writes the same tokens"
    third = desktop.new_page()
    requests = []
    third.on("request", lambda request: requests.append(request.url))
    third.goto(site_url + f"smollm/#p={quote(PROMPT)}&t=0&k=40&seed=1&n={STEPS}")
    expect(third.locator(ROOT)).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)  # no click: a link runs
    assert third.locator("mark.aih-smollm__written").all_inner_texts() == expected, "a #p= link repeats the run"
    assert not [url for url in requests if url.endswith(".bin")], "the stored model is read, not downloaded"
    for tab in desktop.pages:
        tab.close()


def manifest():
    return json.loads(next((SITE / "models").glob("smollm.*.json")).read_text())


@pytest.mark.slow
def test_a_corrupted_shard_is_named_and_nothing_is_written(browser, site_url):
    context = browser.new_context()
    page = context.new_page()
    name = manifest()["files"]["smollm-weights-1"]
    body = bytearray((SITE / name).read_bytes())
    body[12345] ^= 0xFF
    page.route(f"**/{name}", lambda route: route.fulfill(body=bytes(body), content_type="application/octet-stream"))
    page.goto(site_url + "smollm/")
    page.click("[data-slot=write]")
    expect(page.locator(ROOT)).to_have_attribute("data-state", "failed", timeout=RUN_TIMEOUT)
    status = page.locator("[data-slot=status]")
    expect(status).to_contain_text("The model could not be loaded (")
    expect(status).to_contain_text(name.split("/")[-1])
    expect(page.locator("[data-slot=results]")).to_be_hidden()
    context.close()


def test_a_failed_download_is_named(browser, site_url):
    context = browser.new_context()
    page = context.new_page()
    name = manifest()["files"]["smollm-tokenizer"]
    page.route(f"**/{name}", lambda route: route.fulfill(status=503, body="busy"))
    page.goto(site_url + "smollm/")
    page.click("[data-slot=write]")
    expect(page.locator(ROOT)).to_have_attribute("data-state", "failed", timeout=RUN_TIMEOUT)
    expect(page.locator("[data-slot=status]")).to_contain_text(name.split("/")[-1])
    expect(page.locator("[data-slot=progress]")).to_be_hidden()
    context.close()


HOSTILE = {"whitespace": "   \t\n ", "zero-width": "\u200b\u200c\u200d\ufeff", "long": "All work and no play. " * 230,
           "emoji": "🙂👍🏽👨‍👩‍👧 and", "rtl": "مرحبا بالعالم \u202eRTL", "control": "\x00\x01\x07\x1b[31m\x7f end",
           "surrogate": "\ud800 half a character"}


@pytest.mark.slow
def test_hostile_prompts_write_and_a_long_one_is_cut(page, site_url):
    """Each prompt runs through the real tokenizer and model, one after another in one tab: the page stays whole,
    writes its tokens, and says when the prompt was cut (the long one is 5,060 characters, far over 128 tokens)."""
    page.goto(site_url + "smollm/")
    for name, prompt in HOSTILE.items():
        page.evaluate("(p) => { document.querySelector('#aih-smollm-prompt').value = p; }", prompt)
        page.fill("input[name=n]", "2")
        page.click("[data-slot=write]")
        expect(page.locator(ROOT)).to_have_attribute("data-state", "done", timeout=RUN_TIMEOUT)
        expect(page.locator("[data-slot=status]")).to_contain_text("Done: the model wrote")
        cut = page.locator("[data-slot=cut]")
        expect(cut).to_be_visible() if name == "long" else expect(cut).to_be_hidden()
        assert page.locator("[data-slot=text]").inner_text(), f"{name}: the prompt and what it wrote are shown"
    page.problems.assert_clean()
