"""What training produces, trained once by `make train` and committed as data, with where it was trained.

A BLAS kernel rounds matrix products its own way, and training amplifies that: the same seed on another CPU ends
elsewhere (one unscaled d_k = 128 run gets there at step 279 on one kernel and never on another). So whatever a
page shows of a training run is trained once, here, and shipped to every machine that builds:

    data/trained/<run>.json      the run's settings ("spec") and its arrays (nested lists, full float64 precision)
    data/trained/provenance.json the command, the versions, the CPU and BLAS kernel, the date, and each file's SHA-256

A page module declares its runs as `TRAINED = [Trained(name, spec, train), ...]`, and reads one with `run.load()`:
the committed arrays, checked against the file's SHA-256 and the spec the page declares now. The figure build only
loads; it never trains. It still computes every claim from the loaded numbers, so a claim that the committed data
stops showing fails the build. `tests/test_trained.py` retrains on the machine at hand (`retrain`) and builds the
pages' items from that result (`substituted`): it reports how far the retrained numbers land and fails if a claim
would be false of them.

    python -m figures_src.trained            (make train: trains every run, writes data/trained/; commit the result)
    python -m figures_src.trained --compare  (trains every run, writes nothing, prints the distance to the committed data)
"""
import argparse
import importlib
import contextlib
import hashlib
import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

import attention

from .engine import BuildError

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "data" / "trained"
PROVENANCE = "provenance.json"
FORMAT_VERSION = 1
COMMAND = "make train"
_substitutes = {}  # name -> arrays: what `load` returns instead of the committed file, inside `substituted`


@dataclass(frozen=True)
class Trained:
    """One training a page shows. spec: the settings it is trained with (JSON-able), recorded in its file, so a
    page whose settings changed refuses data trained with the old ones. train() -> {key: array or nested dict
    of arrays}, deterministic for a given BLAS kernel; it runs with one BLAS thread (see `retrain`)."""

    name: str
    spec: dict
    train: Callable[[], dict]

    @property
    def path(self):
        return FOLDER / f"{self.name}.json"

    def load(self):
        """The committed arrays (float64 numpy arrays wherever the file holds a list), checked."""
        if self.name in _substitutes:
            return _substitutes[self.name]
        where = self.path.relative_to(ROOT)
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raise BuildError(f"{where}: missing. It is trained once by `{COMMAND}` and committed; run it, "
                             "or restore the file with `git checkout`") from None
        recorded = provenance()["files"].get(self.path.name)
        if recorded != hashlib.sha256(raw).hexdigest():
            raise BuildError(f"{where}: its SHA-256 is not the one data/trained/{PROVENANCE} records, so it changed after "
                             f"`{COMMAND}` wrote it. Restore it with `git checkout`, or run `{COMMAND}` again")
        stored = json.loads(raw)
        spec = jsonable(self.spec)
        if stored.get("spec") != spec:
            raise BuildError(f"{where} was trained with {json.dumps(stored.get('spec'))}, and the page now declares "
                             f"{json.dumps(spec)}: run `{COMMAND}` and commit data/trained/")
        return arrays(stored["arrays"])


def provenance():
    """data/trained/provenance.json, read and checked: a clear message, naming the file, when it is not usable."""
    path = FOLDER / PROVENANCE
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BuildError(f"{path.relative_to(ROOT)}: missing; run `{COMMAND}`, or restore it with `git checkout`") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BuildError(f"{path.relative_to(ROOT)}: not valid JSON ({error}); restore it with `git checkout`") from None
    if meta.get("format_version") != FORMAT_VERSION or not isinstance(meta.get("files"), dict):
        raise BuildError(f"{path.relative_to(ROOT)}: not format {FORMAT_VERSION} of this module's provenance; "
                         f"run `{COMMAND}`")
    return meta


def jsonable(value):
    """Tuples as lists, numpy scalars and arrays as Python's, dict keys as strings: what JSON gives back."""
    return json.loads(json.dumps(value, default=lambda v: v.tolist() if hasattr(v, "tolist") else str(v)))


def arrays(tree):
    """A stored tree back in numpy: every list becomes a float64 array; dicts keep their (string) keys."""
    if isinstance(tree, dict):
        return {key: arrays(value) for key, value in tree.items()}
    if isinstance(tree, list):
        return np.asarray(tree, dtype=float)
    return tree


def lists(tree):
    """Arrays as nested lists of Python floats: json writes each with repr, which reads back as the same float."""
    if isinstance(tree, dict):
        return {str(key): lists(value) for key, value in tree.items()}
    if isinstance(tree, np.ndarray):
        if not np.isfinite(tree).all():
            raise BuildError("a training run produced a NaN or an infinity; nothing was written")
        return tree.astype(float).tolist()
    return tree


def retrain(run):
    """run.train() with one BLAS thread: the matrices are tiny, so more threads only wait for each other, and one
    thread keeps each sum in one order. -> (arrays as `load` returns them, CPU seconds)."""
    start = time.process_time()
    with threadpool_limits(limits=1, user_api="blas"):
        result = run.train()
    return arrays(jsonable(lists(result))), time.process_time() - start


@contextlib.contextmanager
def substituted(results):
    """Inside: `Trained.load` returns results[name] instead of the committed file, for every name given."""
    _substitutes.update(results)
    try:
        yield
    finally:
        for name in results:
            _substitutes.pop(name, None)


def distance(committed, retrained, where=""):
    """How far a retraining lands from the committed run: (largest absolute difference, that difference relative to
    the largest magnitude of its array, the array's key path), for the array where the absolute difference is largest."""
    if isinstance(committed, dict):
        return max((distance(committed[key], retrained[key], f"{where}.{key}".lstrip(".")) for key in committed),
                   key=lambda found: found[0])
    gap = float(np.abs(committed - retrained).max()) if np.size(committed) else 0.0
    return gap, gap / max(float(np.abs(committed).max()), np.finfo(float).tiny), where


def landed(committed, retrained):
    """How far a retraining lands, in words: "identical to the committed data", or its largest difference."""
    absolute, relative, where = distance(committed, retrained)
    if absolute == 0:
        return "identical to the committed data"
    return f"largest |Δ| from the committed data {absolute:.3g}, in {where} ({relative:.3g} of that array's largest magnitude)"


def machine():
    """The CPU and the BLAS numpy uses: its library, version and the kernel it picked (OpenBLAS's "architecture")."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    blas = [{key: info.get(key) for key in ("internal_api", "version", "architecture", "threading_layer")}
            for info in threadpool_info() if info.get("user_api") == "blas"]
    return {"cpu": cpu, "machine": platform.machine(), "blas": blas,
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"), "blas_threads": 1}


def runs():
    """Every Trained run the pages declare, in the registry's page order."""
    from .registry import page_modules  # noqa: PLC0415  (the registry imports every page; loading a run needs none)

    return [run for name in page_modules() for run in getattr(importlib.import_module(name), "TRAINED", [])]


def write(results, seconds):
    """data/trained/<run>.json for every run, then provenance.json (written last, so it records what is there)."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    files = {}
    for run, result in results:
        text = json.dumps({"format_version": FORMAT_VERSION, "name": run.name, "spec": jsonable(run.spec),
                           "arrays": lists(result)}, separators=(",", ":")) + "\n"
        temporary = run.path.with_suffix(".json.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, run.path)
        files[run.path.name] = hashlib.sha256(text.encode()).hexdigest()
    import matplotlib  # noqa: PLC0415  (its version only)

    meta = {
        "format_version": FORMAT_VERSION,
        "command": COMMAND,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "python": platform.python_version(), "numpy": np.__version__, "matplotlib": matplotlib.__version__,
        "library_version": attention.__version__,
        **machine(),
        "cpu_seconds": {run.name: round(s, 1) for (run, _), s in zip(results, seconds)},
        "files": files,
    }
    (FOLDER / PROVENANCE).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m figures_src.trained", description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", action="store_true",
                        help="train, write nothing, and print how far each run lands from the committed data")
    args = parser.parse_args(argv)
    results, seconds = [], []
    for run in runs():
        result, cpu = retrain(run)
        results.append((run, result))
        seconds.append(cpu)
        line = f"{run.name}: trained in {cpu:.1f} s CPU"
        if args.compare:
            line += f"; {landed(run.load(), result)}"
        print(line, flush=True)
    if not args.compare:
        write(results, seconds)
        print(f"wrote {FOLDER.relative_to(ROOT)}/ ({len(results)} runs and {PROVENANCE}); commit it")
    blas = ", ".join(f"{b['internal_api']} {b['version']} ({b['architecture']})" for b in machine()["blas"])
    print(f"on {machine()['cpu']}, {blas}")


if __name__ == "__main__":
    sys.exit(main())
