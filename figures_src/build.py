"""Render every figure and worked example in the registry into generated/.

    python -m figures_src.build [--force] [--only NAME ...] [--out DIR]

A registry entry `scores_heatmap` is the module figures_src/scores_heatmap.py and the item name
`scores-heatmap` (underscores become hyphens; --only takes either spelling). What a module defines
decides what it produces (see CONTRIBUTING.md, "Adding a figure"):

- `render(data, ax)` or `render(data, fig)`: a figure -> generated/figures/<name>.svg and <name>.html;
- `example()`: a worked example -> generated/public/examples/<name>.json and generated/snippets/<name>-cite.md;
- `snippets(data)`: generated Markdown -> generated/snippets/<name>[-<part>].md;
- `public(data)`: downloads -> generated/public/<path> for each {path: text} it returns.

An item is skipped when the hash of its inputs (its module and the figures_src modules it imports, the
attention/ sources, the shared helpers, the matplotlib version, SITE_URL) matches the manifest and its
outputs exist. Every file is written to a temporary name and renamed, so a failure leaves no half-written
file; the first failure stops the build with an error naming the item.
"""
import argparse
import ast
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "figures_src"
GENERATED = ROOT / "generated"
MANIFEST = ".manifest.json"
SHARED = [ROOT / "figures_src" / f for f in ("build.py", "_render.py", "heatmap.py", "_svg.py", "_style.py")]
DEFAULT_SITE_URL = "http://127.0.0.1:8000/attention-heatmap/"  # the same default as mkdocs.yml


class BuildError(RuntimeError):
    """A figure, example or snippet could not be built; the message names it."""


def item_name(module_name):
    return module_name.rsplit(".", 1)[-1].replace("_", "-")


def site_url():
    url = os.environ.get("SITE_URL") or DEFAULT_SITE_URL
    return url if url.endswith("/") else url + "/"


# ---------------------------------------------------------------- what changed


def module_file(dotted):
    spec = importlib.util.find_spec(dotted)
    if spec is None or spec.origin is None:
        raise BuildError(f"{item_name(dotted)}: no module {dotted} (is it spelled right in figures_src/registry.py?)")
    return Path(spec.origin)


_RELATIVE_IMPORT = re.compile(r"^from\s+\.(\w*)\s+import\s+(\([^)]*\)|[^\n#]+)", re.M)
_DATA_INPUTS = re.compile(r"^INPUTS\s*=\s*(\[[^\]]*\])", re.M)


def local_inputs(path):
    """Files `path` depends on besides attention/: the sibling modules it imports relatively
    (`from . import x`, `from .x import y`) and the data files its `INPUTS = ["data/...", ...]` lists
    (paths from the repository root).

    Regular expressions over the source, not an import: hashing runs on every build, even with nothing to do.
    """
    source = path.read_text(encoding="utf-8")
    found = set()
    for module, names in _RELATIVE_IMPORT.findall(source):
        candidates = [module] if module else [n.split(" as ")[0].strip(" ()\n\t") for n in names.split(",")]
        for name in candidates:
            candidate = path.parent / f"{name}.py"
            if name and candidate.exists():
                found.add(candidate)
    for listing in _DATA_INPUTS.findall(source):
        try:
            data_files = ast.literal_eval(listing)
        except (ValueError, SyntaxError):
            raise BuildError(f"{path.name}: INPUTS must be a literal list of paths, got {listing}") from None
        for data_file in data_files:
            if not (ROOT / data_file).is_file():
                raise BuildError(f"{path.name}: INPUTS names {data_file}, which does not exist")
            found.add(ROOT / data_file)
    return found


class InputHasher:
    """Hashes of items' inputs; each file is read (and scanned for imports) once per build."""

    def __init__(self):
        versions = " ".join(f"{p} {importlib.metadata.version(p)}" for p in ("matplotlib", "numpy", "pillow"))
        self.preamble = f"{versions}\nsite_url {site_url()}\n".encode()
        self.shared = {p for p in SHARED if p.exists()} | set((ROOT / "attention").rglob("*.py"))
        self._imports = {}
        self._digests = {}

    def input_files(self, dotted):
        """The module, the sibling modules it imports (transitively), attention/ and the shared helpers."""
        seen, todo = set(), [module_file(dotted)]
        while todo:
            path = todo.pop()
            if path not in seen:
                seen.add(path)
                if path not in self._imports:
                    self._imports[path] = local_inputs(path) if path.suffix == ".py" else set()
                todo.extend(self._imports[path] - seen)
        return sorted(seen | self.shared)

    def __call__(self, dotted):
        digest = hashlib.sha256(self.preamble)
        for path in self.input_files(dotted):
            if path not in self._digests:
                label = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
                self._digests[path] = hashlib.sha256(label.encode() + b"\0" + path.read_bytes()).digest()
            digest.update(self._digests[path])
        return digest.hexdigest()


# ---------------------------------------------------------------- writing


def write_atomic(path, text):
    """Write via a temporary file and a rename; leave the file alone when its text is already right."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8", newline="\n")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


# ---------------------------------------------------------------- the build


def registry_modules():
    from .registry import ITEMS  # noqa: PLC0415

    if len(set(ITEMS)) != len(ITEMS):
        raise BuildError("figures_src/registry.py lists a module twice")
    return [item if "." in item else f"{PACKAGE}.{item}" for item in ITEMS]


def render_safely(dotted):
    """(outputs, None) or (None, error message naming the item); runs in a worker process too."""
    name = item_name(dotted)
    try:
        from ._render import render_item  # noqa: PLC0415  (numpy and matplotlib only when needed)

        return render_item(dotted), None
    except BuildError as exc:
        return None, str(exc)
    except Exception as exc:
        return None, f"{name} ({dotted}) failed: {type(exc).__name__}: {exc}\n{traceback.format_exc()}"


def render_all(dotted_names, jobs):
    """Yield (dotted, outputs, error) in the given order, rendering up to `jobs` items at once."""
    if jobs <= 1 or len(dotted_names) <= 1:
        for dotted in dotted_names:
            yield (dotted, *render_safely(dotted))
        return
    import multiprocessing  # noqa: PLC0415
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

    import matplotlib.figure  # noqa: F401, PLC0415  (imported once here, inherited by the forked workers)

    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(render_safely, dotted) for dotted in dotted_names]
        try:
            for dotted, future in zip(dotted_names, futures):
                yield (dotted, *future.result())
        finally:
            for future in futures:
                future.cancel()


def forget_changed_modules(stale, input_hash):
    """Drop the stale items' own modules and the figure modules they import from sys.modules, so a build run
    twice in one process (a test, a maintainer's session) renders the code on disk, not the code imported
    first. attention/ and the shared helpers stay imported: the hash covers them, and their classes must stay one."""
    paths = {str(p) for dotted in stale for p in input_hash.input_files(dotted)} - {str(p) for p in input_hash.shared}
    for name, module in list(sys.modules.items()):
        if getattr(module, "__file__", None) in paths:
            del sys.modules[name]
            parent, _, child = name.rpartition(".")
            if getattr(sys.modules.get(parent), child, None) is module:  # `from . import child` looks here first
                delattr(sys.modules[parent], child)


def remove_unowned(out, paths, manifest):
    """Delete the files among `paths` that no item in the manifest writes any more (an item renamed,
    or a file moved from one item to another, keeps the file the new owner wrote)."""
    owned = {p for entry in manifest.values() for p in entry["outputs"]}
    for path in set(paths) - owned:
        (out / path).unlink(missing_ok=True)


def build(modules=None, *, only=None, force=False, out=GENERATED, jobs=None, log=print):
    """Build the items (dotted module names; default: the registry). Returns the names rebuilt.

    Stale items are rendered in up to `jobs` processes (default: one per core) and written in registry
    order; the first failure (in that order) stops the build before anything of it is written.
    """
    modules = registry_modules() if modules is None else list(modules)
    by_name = {item_name(m): m for m in modules}
    if only:
        wanted = [o.replace("_", "-") for o in only]
        unknown = [o for o in wanted if o not in by_name]
        if unknown:
            raise BuildError(f"--only: unknown item(s) {unknown}; known: {sorted(by_name)}")
        selected = wanted
    else:
        selected = list(by_name)

    out = Path(out)
    manifest_path = out / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    input_hash = InputHasher()
    digests = {name: input_hash(by_name[name]) for name in selected}
    stale = [
        by_name[name] for name in selected
        if force or not (entry := manifest.get(name)) or entry["hash"] != digests[name]
        or not all((out / p).exists() for p in entry["outputs"])
    ]
    forget_changed_modules(stale, input_hash)
    rebuilt = []
    for dotted, outputs, error in render_all(stale, jobs or os.cpu_count() or 1):
        if error is not None:
            raise BuildError(error)
        name = item_name(dotted)
        for path, text in outputs.items():
            write_atomic(out / path, text)
        entry = manifest.get(name)
        manifest[name] = {"hash": digests[name], "outputs": sorted(outputs)}
        remove_unowned(out, set(entry["outputs"] if entry else []) - set(outputs), manifest)
        write_atomic(manifest_path, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        rebuilt.append(name)
        log(f"built {name}: {', '.join(sorted(outputs))}")

    if not only:  # items no longer in the registry: remove what they wrote
        for name in sorted(set(manifest) - set(by_name)):
            remove_unowned(out, manifest.pop(name)["outputs"], manifest)
            log(f"removed {name} (no longer in the registry)")
        write_atomic(manifest_path, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return rebuilt


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m figures_src.build", description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if the inputs are unchanged")
    parser.add_argument("--only", action="append", metavar="NAME", help="build only this item (repeatable)")
    parser.add_argument("--out", default=str(GENERATED), help="output folder (default: generated/)")
    parser.add_argument("--jobs", type=int, default=None, help="processes rendering at once (default: one per core)")
    args = parser.parse_args(argv)
    try:
        rebuilt = build(only=args.only, force=args.force, out=args.out, jobs=args.jobs)
    except BuildError as exc:
        print(f"figures_src.build: error: {exc}", file=sys.stderr)
        return 1
    print(f"figures_src.build: {len(rebuilt)} rebuilt, the rest unchanged")
    return 0


if __name__ == "__main__":
    # Run the imported module's main, not this __main__ copy, so there is one BuildError class
    # (figures_src._render raises figures_src.build.BuildError).
    from figures_src.build import main as _main

    sys.exit(_main())
