"""Build every page's worked examples, figures and generated text into generated/.

    python -m figures_src.build [--force] [--only NAME ...] [--out DIR] [--jobs N]

figures_src/registry.py lists the pages; each page module declares its items in ITEMS
(figures_src/engine/items.py says what each kind writes):

- an Example: generated/public/examples/<id>.json (published at examples/<id>.json) and snippets/<id>-cite.md;
- a Figure: generated/figures/<name>.html, the <figure> fragment a page includes;
- snippets(data): generated/snippets/<name>[-<part>].md; public(data): generated/public/<path>.

A page whose inputs hash to what the manifest holds, and whose items' files all hold the bytes the build wrote
(the manifest keeps each file's SHA-256), is skipped without being imported (figures_src/engine/inputs.py).
Otherwise its stale items are rendered, up to --jobs at once, and written in registry order: a file edited,
truncated or corrupted since the build wrote it makes its item stale, so it is written again. Every file is
written to a temporary name and renamed, so a failure leaves no half-written file; the first failure stops the
build with an error naming the item and its page. `check_generated()` is the same check at publish time:
the site build (hooks/generated_files.py) publishes nothing that differs from what the build wrote.
"""
import argparse
import hashlib
import importlib
import json
import os
import signal
import sys
import traceback
from pathlib import Path

from .engine.errors import BuildError
from .engine.inputs import InputHasher, registered_pages
from .engine.site import DEFAULT_SITE_URL

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
MANIFEST = ".manifest.json"


def encoded(text):
    """The bytes a file of `text` holds: UTF-8 for text, as it is for bytes (a binary download)."""
    return text if isinstance(text, bytes) else text.encode("utf-8")


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def write_atomic(path, text):
    """Write via a temporary file and a rename; leave the file alone when its bytes are already right.
    `text` may be bytes (a binary download)."""
    data = encoded(text)
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


# ---------------------------------------------------------------- what was built, from what


class Manifest:
    """generated/.manifest.json: per item, its page, the hash of the page's inputs it was built from and the
    files it wrote, each with the SHA-256 of the bytes written; per page, that hash and its items' names once
    every one of them is built from it."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.path = self.folder / MANIFEST
        stored = self._read()
        if isinstance(stored, dict) and "items" not in stored:  # an older layout: keep its files listed, so the build can remove them
            stored = {"pages": {}, "items": {name: {"page": None, **entry} if isinstance(entry, dict) else entry
                                             for name, entry in stored.items()}}
        items = stored.get("items") if isinstance(stored, dict) else None
        for entry in items.values() if isinstance(items, dict) else ():
            if isinstance(entry, dict) and _strings(entry.get("outputs")):  # an older layout: no file hashes, so stale
                entry["outputs"] = dict.fromkeys(entry["outputs"], "")
        self._check(stored)
        self.pages, self.items = stored["pages"], stored["items"]
        self._on_disk = {}  # path -> SHA-256 of the file's bytes now (None: no such file), read once per build

    def _read(self):
        if not self.path.exists():
            return {}
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise self._invalid(f"it is not JSON ({exc})") from None

    def _invalid(self, why):
        return BuildError(f"{self.path}: {why}. It lists what earlier builds wrote; delete it and run "
                          "`python -m figures_src.build --force` to rebuild everything")

    def _check(self, stored):
        """Raise BuildError unless `stored` has the manifest's shape and every output stays inside the folder."""
        if not isinstance(stored, dict) or set(stored) != {"pages", "items"}:
            raise self._invalid('expected an object with "pages" and "items"')
        pages, items = stored["pages"], stored["items"]
        if not isinstance(pages, dict) or not isinstance(items, dict):
            raise self._invalid('"pages" and "items" must be objects')
        for page, entry in pages.items():
            if not (isinstance(entry, dict) and isinstance(entry.get("hash"), str) and _strings(entry.get("items"))):
                raise self._invalid(f"page {page!r} needs a string hash and a list of item names")
        for name, entry in items.items():
            if not (isinstance(entry, dict) and isinstance(entry.get("hash"), str) and _file_hashes(entry.get("outputs"))
                    and (entry.get("page") is None or isinstance(entry["page"], str))):
                raise self._invalid(f"item {name!r} needs a page, a string hash and its outputs as {{path: SHA-256}}")
            for path in entry["outputs"]:
                if not self.inside(path):
                    raise self._invalid(f"item {name!r} lists {path!r}, which is not a file inside {self.folder}")

    def inside(self, path):
        """Whether the relative path `path` names a file strictly inside the folder (never the folder itself)."""
        if not path or Path(path).is_absolute() or "\\" in path:
            return False
        folder = self.folder.resolve()
        target = (folder / path).resolve()
        return target != folder and target.is_relative_to(folder) and ".." not in Path(path).parts

    def save(self):
        write_atomic(self.path, json.dumps({"pages": self.pages, "items": self.items}, indent=1, sort_keys=True) + "\n")

    def on_disk(self, path):
        """The SHA-256 of generated file `path` as it is now, or None when there is no such file."""
        if path not in self._on_disk:
            file = self.folder / path
            self._on_disk[path] = sha256(file.read_bytes()) if file.is_file() else None
        return self._on_disk[path]

    def changed_output(self, name):
        """(path, "missing" or "changed") for the first file of item `name` that is not what the build wrote, or None."""
        for path, written in sorted(self.items[name]["outputs"].items()):
            now = self.on_disk(path)
            if now != written:
                return path, "missing" if now is None else "changed"
        return None

    def item_is_fresh(self, name, digest):
        entry = self.items.get(name)
        return bool(entry) and entry["hash"] == digest and self.changed_output(name) is None

    def page_is_fresh(self, page, digest):
        entry = self.pages.get(page)
        return bool(entry) and entry["hash"] == digest and all(self.item_is_fresh(n, digest) for n in entry["items"])

    def record(self, name, page, digest, files):
        """Item `name` wrote `files` ({path: text or bytes}); the files it wrote before and writes no more go,
        unless another item writes them."""
        previous = self.items.get(name, {}).get("outputs", {})
        hashes = {path: sha256(encoded(text)) for path, text in sorted(files.items())}
        self.items[name] = {"page": page, "hash": digest, "outputs": hashes}
        self._on_disk.update(hashes)
        self.remove_unowned(set(previous) - set(files))

    def forget(self, name):
        self.remove_unowned(self.items.pop(name)["outputs"])

    def remove_unowned(self, paths):
        owned = {p for entry in self.items.values() for p in entry["outputs"]}
        for path in set(paths) - owned:
            if not self.inside(path):  # _check refused such a manifest; this guards the files written since
                raise BuildError(f"{self.path}: refusing to delete {path!r}, which is outside {self.folder}")
            (self.folder / path).unlink(missing_ok=True)
            self._on_disk.pop(path, None)


def _strings(value):
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _file_hashes(value):
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def check_generated(folder=GENERATED):
    """Raise BuildError naming the first file under `folder` that the site would publish although it is not what
    the figure build wrote: missing, changed since (its SHA-256 differs from the manifest's), or written by no
    item. The site build calls this before it publishes anything (hooks/generated_files.py)."""
    manifest = Manifest(folder)
    if not manifest.path.is_file():
        raise BuildError(f"{manifest.path} does not exist: run `make figures` (python -m figures_src.build)")
    listed = set()
    for name in sorted(manifest.items):
        listed |= set(manifest.items[name]["outputs"])
        changed = manifest.changed_output(name)
        if changed is not None:
            path, how = changed
            raise BuildError(f"{manifest.folder / path}: {how} since the figure build wrote it (item {name}); "
                             "run `make figures` to write it again")
    for file in sorted(p for p in manifest.folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        path = file.relative_to(manifest.folder).as_posix()
        if path not in listed:
            raise BuildError(f"{file} was not written by the figure build (no item lists it); delete it, "
                             "then run `make figures`")


# ---------------------------------------------------------------- the pages' declarations


def declarations(page):
    """The items page module `page` declares, imported fresh; a page that fails to import is named."""
    from .engine.items import Example, Figure, Snippets  # noqa: PLC0415

    try:
        module = importlib.import_module(page)
    except BuildError as exc:
        raise BuildError(f"page {page}: {exc}") from None
    except Exception as exc:
        raise BuildError(f"page {page} failed to import: {type(exc).__name__}: {exc}\n{traceback.format_exc()}") from None
    items = getattr(module, "ITEMS", None)
    if not isinstance(items, list) or not items:
        raise BuildError(f"page {page}: declare its items in a non-empty list ITEMS")
    for item in items:
        if not isinstance(item, (Example, Figure, Snippets)):
            raise BuildError(f"page {page}: ITEMS holds {item!r}, not an Example, Figure or Snippets")
    return items


def forget_modules(pages, hasher):
    """Drop the pages' modules, and the figures_src modules they import, from sys.modules, so a second build
    in one process (a test, a maintainer's session) renders the code on disk, not the code imported first.
    The engine and attention/ stay imported: the hash covers them, and their classes must stay one."""
    paths = {str(p) for page in pages for p in hasher.input_files(page)} - {str(p) for p in hasher.shared}
    for name, module in list(sys.modules.items()):
        if getattr(module, "__file__", None) in paths:
            del sys.modules[name]
            parent, _, child = name.rpartition(".")
            if getattr(sys.modules.get(parent), child, None) is module:  # `from . import child` looks here first
                delattr(sys.modules[parent], child)


# ---------------------------------------------------------------- rendering, in parallel

_RENDERING = []  # (page, item) pairs of the current build; forked workers inherit the list


def render_one(index):
    """(outputs, None) or (None, an error message naming the item); runs in a worker process too."""
    page, item = _RENDERING[index]
    try:
        from .engine.render import outputs  # noqa: PLC0415  (matplotlib only when something is drawn)

        return outputs(item, getattr(sys.modules.get(page), "PAGE", None)), None
    except BuildError as exc:
        return None, f"{item.name} (page {page}): {exc}"
    except Exception as exc:
        return None, f"{item.name} (page {page}) failed: {type(exc).__name__}: {exc}\n{traceback.format_exc()}"


def _quiet_on_interrupt():
    """A worker stops at Ctrl-C without a traceback of its own; the main process says what happened, once.
    A worker only renders in memory: the main process writes every file."""
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))


def render_all(stale, jobs):
    """Yield ((page, item), outputs, error) in the given order, rendering up to `jobs` items at once."""
    _RENDERING[:] = stale
    if jobs <= 1 or len(stale) <= 1:
        for index, pair in enumerate(stale):
            yield (pair, *render_one(index))
        return
    import multiprocessing  # noqa: PLC0415
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

    import matplotlib.figure  # noqa: F401, PLC0415  (imported once here, inherited by the forked workers)

    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_quiet_on_interrupt) as pool:
        futures = [pool.submit(render_one, index) for index in range(len(stale))]
        try:
            for pair, future in zip(stale, futures):
                yield (pair, *future.result())
        finally:
            for future in futures:
                future.cancel()


# ---------------------------------------------------------------- the build


def build(pages=None, *, only=None, force=False, out=GENERATED, jobs=None, log=print):
    """Build the items of `pages` (dotted module names; default: the registry). Returns the names rebuilt.

    only: item names (or page names: all of that page's items) to build instead of everything.
    """
    pages = registered_pages() if pages is None else list(pages)
    if len(set(pages)) != len(pages):
        raise BuildError("figures_src/registry.py lists a page twice")
    manifest = Manifest(out)
    hasher = InputHasher()
    digests = {page: hasher(page) for page in pages}
    to_import = pages if only else [p for p in pages if force or not manifest.page_is_fresh(p, digests[p])]
    forget_modules(to_import, hasher)
    declared = {page: declarations(page) for page in to_import}

    names = {}  # item name -> its page, for every page (a skipped page's names come from the manifest)
    for page in pages:
        for name in [item.name for item in declared[page]] if page in declared else manifest.pages[page]["items"]:
            if name in names:
                raise BuildError(f"item {name} is declared twice: by {names[name]} and by {page}")
            names[name] = page

    candidates = [(page, item) for page, items in declared.items() for item in items]
    if only:
        wanted = _resolve_only(only, names, pages)
        candidates = [(page, item) for page, item in candidates if item.name in wanted]
    stale = [(page, item) for page, item in candidates if force or not manifest.item_is_fresh(item.name, digests[page])]
    for page, item in stale:
        entry = manifest.items.get(item.name)
        if not force and entry and entry["hash"] == digests[page] and (changed := manifest.changed_output(item.name)):
            path, how = changed
            if entry["outputs"][path]:  # a manifest of an older layout recorded no hash: nothing changed that we know of
                log(f"{Path(out) / path}: {how} since the build wrote it; rebuilding {item.name}")

    rebuilt = []
    for (page, item), files, error in render_all(stale, jobs or os.cpu_count() or 1):
        if error is not None:
            raise BuildError(error)
        for path, text in files.items():
            write_atomic(Path(out) / path, text)
        manifest.record(item.name, page, digests[page], files)
        manifest.save()
        rebuilt.append(item.name)
        log(f"built {item.name}: {', '.join(sorted(files))}")

    for page, items in declared.items():
        if all(manifest.item_is_fresh(item.name, digests[page]) for item in items):
            manifest.pages[page] = {"hash": digests[page], "items": [item.name for item in items]}
    if not only:  # what no page declares any more: its files go
        for name in sorted(set(manifest.items) - set(names)):
            manifest.forget(name)
            log(f"removed {name} (no page declares it any more)")
        manifest.pages = {page: entry for page, entry in manifest.pages.items() if page in digests}
    manifest.save()
    return rebuilt


def _resolve_only(only, names, pages):
    """--only NAME: an item (either spelling, scores-heatmap or scores_heatmap), or a page (all its items)."""
    short = {page.rsplit(".", 1)[-1].replace("_", "-"): page for page in pages}
    wanted = set()
    for name in (o.replace("_", "-") for o in only):
        if name in short:
            wanted |= {item for item, page in names.items() if page == short[name]}
        elif name in names:
            wanted.add(name)
        else:
            raise BuildError(f"--only: unknown item or page {name!r}; pages: {sorted(short)}; items: {sorted(names)}")
    return wanted


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m figures_src.build", description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if the inputs are unchanged")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="build only this item, or every item of this page (repeatable)")
    parser.add_argument("--out", default=str(GENERATED), help="output folder (default: generated/)")
    parser.add_argument("--jobs", type=int, default=None, help="processes rendering at once (default: one per core)")
    args = parser.parse_args(argv)
    if not os.environ.get("SITE_URL"):
        print(f"figures_src.build: warning: SITE_URL is not set, so every permalink, <iframe> snippet and BibTeX "
              f"entry points at {DEFAULT_SITE_URL} (right for a preview on this machine; to publish elsewhere, "
              "see README.md, Deploying)", file=sys.stderr)
    try:
        rebuilt = build(only=args.only, force=args.force, out=args.out, jobs=args.jobs)
    except BuildError as exc:
        print(f"figures_src.build: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # every file is written whole or not at all (write_atomic); the next build goes on
        print("figures_src.build: interrupted; no file was left half-written, run it again to finish", file=sys.stderr)
        return 130
    print(f"figures_src.build: {len(rebuilt)} rebuilt, the rest unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
