"""The committed training data (data/trained/, figures_src/trained.py): read and checked, never retrained by the
build, and retrained here.

`make train` trains once and commits the result, because another BLAS kernel trains a little elsewhere. The slow
test below retrains every run on the machine at hand, reports how far each lands from the committed data (printed
at the end of the run, under "retraining"), and builds the pages' items from the retrained numbers, in memory: a
claim a page makes that the retrained numbers would not bear out fails it, so every claim is worded to hold on any
kernel.
"""
import functools
import hashlib
import importlib
import json
import shutil

import numpy as np
import pytest

from figures_src import registry, trained
from figures_src.engine import BuildError, items
from figures_src.engine.render import outputs
from models import decoder
from models import learning as training

RUNS = trained.runs()


def page_modules():
    """The page modules that declare a training run, with their Markdown page."""
    pages = registry.markdown_files()
    return [(importlib.import_module(name), pages[name]) for name in registry.page_modules()
            if getattr(importlib.import_module(name), "TRAINED", None)]


def forget_computed():
    """Clear every cached computation of the pages that train, and the examples' cache, so they load again."""
    items._computed.cache_clear()
    for module, _ in page_modules():
        for value in vars(module).values():
            if isinstance(value, functools._lru_cache_wrapper):
                value.cache_clear()


def test_the_pages_declare_the_three_trainings():
    assert [run.name for run in RUNS] == ["learning-main", "learning-scale", "write-decoder"], (
        "the learning run, the √d_k experiment and the decoder are trained by `make train` (declared in TRAINED)")


def test_the_provenance_says_how_where_and_when_the_data_was_trained():
    meta = trained.provenance()
    assert meta["command"] == "make train", "the provenance names the command that wrote the data"
    for key in ("date", "python", "numpy", "library_version", "cpu", "machine"):
        assert meta.get(key), f"the provenance records {key}"
    assert meta["blas"] and all(b["internal_api"] and b["architecture"] for b in meta["blas"]), (
        "the provenance records the BLAS library and the kernel it picked")
    assert meta["blas_threads"] == 1, "the data is trained with one BLAS thread, so each sum has one order"
    assert set(meta["files"]) == {f"{run.name}.json" for run in RUNS}, "the provenance lists every run's file"


def test_every_committed_file_matches_its_recorded_sha256_and_its_declared_spec():
    for run in RUNS:
        raw = run.path.read_bytes()
        assert hashlib.sha256(raw).hexdigest() == trained.provenance()["files"][run.path.name], (
            f"{run.path.name} is the file `make train` wrote (its SHA-256 in provenance.json)")
        assert json.loads(raw)["spec"] == trained.jsonable(run.spec), f"{run.path.name} was trained with the page's settings"


@pytest.fixture
def scratch_data(tmp_path, monkeypatch):
    """A copy of data/trained/ that the test may break, in place of the real one."""
    folder = tmp_path / "trained"
    shutil.copytree(trained.FOLDER, folder)
    monkeypatch.setattr(trained, "FOLDER", folder)
    monkeypatch.setattr(trained, "ROOT", tmp_path)
    return folder


@pytest.mark.parametrize("damage, says", [
    (lambda folder: (folder / "learning-scale.json").write_text("{}"), "learning-scale.json: its SHA-256"),
    (lambda folder: (folder / "learning-scale.json").unlink(), "learning-scale.json: missing"),
    (lambda folder: (folder / "provenance.json").write_text("{not json"), "provenance.json: not valid JSON"),
])
def test_a_damaged_or_missing_file_is_refused_naming_it(scratch_data, damage, says):
    damage(scratch_data)
    run = next(run for run in RUNS if run.name == "learning-scale")
    with pytest.raises(BuildError, match=says):
        run.load()


def test_data_trained_with_other_settings_is_refused(scratch_data):
    run = next(run for run in RUNS if run.name == "learning-main")
    changed = trained.Trained(run.name, {**run.spec, "batch": 64}, run.train)
    with pytest.raises(BuildError, match="was trained with .* and the page now declares .*make train"):
        changed.load()


def test_the_build_never_trains(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the build reads data/trained/; it never trains")

    monkeypatch.setattr(training, "train", refuse)
    monkeypatch.setattr(decoder, "train", refuse)
    forget_computed()
    try:
        for module, _ in page_modules():
            for item in module.ITEMS:
                if hasattr(item, "data"):
                    item.data()
    finally:
        forget_computed()


def leaves(tree, where=""):
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from leaves(value, f"{where}.{key}")
    else:
        yield where, tree


def test_the_loaded_arrays_are_the_numbers_written():
    for run in RUNS:
        loaded = dict(leaves(run.load()))
        for where, stored in leaves(json.loads(run.path.read_text(encoding="utf-8"))["arrays"]):
            assert loaded[where].dtype == np.float64 and loaded[where].tolist() == stored, (
                f"{run.name}{where}: load gives back every float as written (json writes repr, which reads back exactly)")


@pytest.mark.slow
def test_retraining_here_lands_near_the_committed_data_and_every_claim_still_holds(record_property):
    """Retrains each run (about 15 s of CPU), records how far it lands, then builds every item of the pages that
    train from the retrained numbers: each claim is computed in the build, so a false one raises BuildError."""
    results = {}
    for run in RUNS:
        result, seconds = trained.retrain(run)
        kernels = ", ".join(blas["architecture"] for blas in trained.machine()["blas"])
        record_property("retraining", f"{run.name} ({kernels} kernel, {seconds:.1f} s CPU): "
                                      f"{trained.landed(run.load(), result)}")
        results[run.name] = result
    forget_computed()
    try:
        with trained.substituted(results):
            for module, page in page_modules():
                for item in module.ITEMS:
                    try:
                        outputs(item, page)
                    except BuildError as error:
                        pytest.fail(f"retrained on this machine, {page} would make a false claim: {error}. Word the "
                                    "claim so that it holds on any BLAS kernel (figures_src/trained.py)")
    finally:
        forget_computed()
