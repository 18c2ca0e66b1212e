"""The cache follows what each item read while it built (figures_src/engine/inputs.py), not a list written by hand.

On a copy of the repository, two pages are built (qkv and real-heads: about 6 s on the 2-core machine), then one
file at a time is changed: exactly the items whose recorded inputs name it are rebuilt, and nothing else. The
in-browser model's page (your-sentence, 17 s a build) is not built in the copy: that it reads the same files is
read from the manifest of the session's own build, and the rule that rebuilds a reader is the one shown here.
"""
import json
import re

import pytest

from repo_copy import ROOT, copy_repository, run_build

pytestmark = pytest.mark.slow  # two pages built in a copy: make test's tier, not make check's

PAGES = ["--only", "qkv", "--only", "real-heads"]


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    copy = copy_repository(tmp_path_factory.mktemp("repository"))
    assert run_build(copy, *PAGES), "the first build built nothing"
    assert run_build(copy, *PAGES) == [], "a second build with nothing changed rebuilt something"
    return copy


def users(copy, path):
    """The items whose recorded inputs name `path`, from the manifest the build wrote."""
    manifest = json.loads((copy / "generated" / ".manifest.json").read_text())
    return {name for name, entry in manifest["items"].items() if path in entry["inputs"]}


def touch(copy, path, text):
    with open(copy / path, "a", encoding="utf-8") as file:
        file.write(text)


def test_a_new_extraction_in_data_rebuilds_exactly_the_items_that_read_it(copy):
    readers = users(copy, "data/real_heads.json")
    assert "real-heads-viewer" in readers and "ex-qkv" not in readers
    touch(copy, "data/real_heads.json", "\n")
    assert set(run_build(copy, *PAGES)) == readers
    assert run_build(copy, *PAGES) == []


def test_an_edit_in_models_rebuilds_exactly_the_items_that_imported_it(copy):
    """models/minilm/shipped.py was never listed anywhere by hand: real-heads imports it (its rollout figure reads the
    float32 weights with read_safetensors); qkv does not."""
    readers = users(copy, "models/minilm/shipped.py")
    assert "real-heads-rollout-coreference" in readers, readers
    assert not any(name.startswith("ex-qkv") or name.startswith("qkv") for name in readers), readers
    touch(copy, "models/minilm/shipped.py", "# an edit\n")
    assert set(run_build(copy, *PAGES)) == readers
    assert run_build(copy, *PAGES) == []


def test_an_edit_to_one_page_module_rebuilds_only_that_page(copy):
    touch(copy, "figures_src/pages/qkv.py", "# an edit\n")  # its example and its notebook (which shows its code)
    assert run_build(copy, *PAGES) == ["ex-qkv", "notebook-qkv"]
    assert users(copy, "figures_src/pages/qkv.py") == {"ex-qkv", "notebook-qkv"}


def test_the_in_browser_models_page_reads_the_extraction_and_the_shipped_weights(generated):
    """In the session's build (all pages): your-sentence recorded both files above, so an edit to either rebuilds
    it by the rule the copy shows; the made-up example of qkv/ recorded neither."""
    manifest = json.loads((generated / ".manifest.json").read_text())
    inputs = {name: entry["inputs"] for name, entry in manifest["items"].items()}
    for path in ("data/real_heads.json", "data/real_heads.npz", "models/minilm/shipped.py"):
        assert path in inputs["your-sentence"], path
        assert path not in inputs["ex-qkv"], path


def test_every_installed_package_an_item_records_was_at_its_pinned_version(generated):
    """An item records each installed package it used ("package:numpy": its version), so a package that floats
    rebuilds everything when it moves. Each must be pinned (constraints.txt, or the Makefile for the model's
    package) and built at its pin. setuptools, which every item records (its .pth imports _distutils_hack into
    every interpreter), was unpinned: `make site` built with the .venv's own 65.5.0, the test packages (torch needs
    it) then brought 84.2.1, and the first `make test` rebuilt every item. `make site` now installs it at its pin."""
    def key(name):
        return re.sub(r"[-_.]+", "-", name).lower()

    pins = dict(line.split("==", 1) for line in (ROOT / "constraints.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    models = re.search(r"^MODEL_PACKAGE := (.+)$", (ROOT / "Makefile").read_text(), re.M)[1].split()
    pins = {key(name): version for name, version in pins.items()} | {
        key(name): version for name, version in (package.split("==", 1) for package in models)}
    manifest = json.loads((generated / ".manifest.json").read_text())
    recorded = {(name.removeprefix("package:"), version) for entry in manifest["items"].values()
                for name, version in entry["inputs"].items() if name.startswith("package:")}
    assert {"numpy", "matplotlib", "setuptools"} <= {name for name, _ in recorded}
    unpinned = sorted((name, version) for name, version in recorded if pins.get(key(name)) != version)
    assert not unpinned, f"recorded at a version other than its pin (or not pinned): {unpinned}; run make constraints"
