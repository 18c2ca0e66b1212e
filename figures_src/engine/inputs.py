"""What a page's items depend on, and one hash of it all: the build skips a page whose hash is unchanged.

A page module depends on itself, on the figures_src modules it imports (relatively or by their full name,
transitively; importing figures_src.registry means depending on every page it lists), on the data files
it lists in a literal `INPUTS = ["data/real_heads.npz", ...]` (paths from the repository root), and on what
every page shares: the engine, the attention/ library, the versions of numpy, matplotlib, Pillow and
Python, and SITE_URL. Sources are read with `ast`, never imported: hashing runs on every build, even one
with nothing to do.
"""
import ast
import hashlib
import importlib.metadata
import importlib.util
import sys
from pathlib import Path

from .errors import BuildError
from .site import site_url

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "figures_src"
REGISTRY = PACKAGE / "registry.py"
VERSIONED = ("matplotlib", "numpy", "pillow")


def shared_files():
    """What every page's outputs depend on: the engine and the attention library."""
    return set((PACKAGE / "engine").glob("*.py")) | set((ROOT / "attention").glob("*.py"))


def module_path(dotted):
    """figures_src.pages.scores -> figures_src/pages/scores.py (or .../scores/__init__.py); None if there is none.
    Only the packages above it are imported to find it, never the module itself."""
    try:
        spec = importlib.util.find_spec(dotted)
    except ModuleNotFoundError:
        return None
    return Path(spec.origin) if spec and spec.origin else None


def _label(path):
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def registered_pages(registry=REGISTRY):
    """The page modules registry.py lists in PAGES, as dotted names, read without importing it."""
    for node in ast.parse(registry.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PAGES" for t in node.targets):
            try:
                names = ast.literal_eval(node.value)
            except ValueError:
                raise BuildError(f"{_label(registry)}: PAGES must be a literal list of module names") from None
            return [f"figures_src.pages.{name}" for name in names]
    raise BuildError(f"{_label(registry)} defines no PAGES")


def _imported_files(path, tree):
    """The figures_src modules (files) a module imports, each import resolved against the module's package."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = path.parent
                for _ in range(node.level - 1):
                    base = base.parent
                target = base.joinpath(*(node.module or "").split(".")) if node.module else base
            elif node.module and node.module.split(".")[0] == "figures_src":
                target = ROOT.joinpath(*node.module.split("."))
            else:
                continue
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "figures_src":
                    found |= {p for p in [module_path(alias.name)] if p}
            continue
        else:
            continue
        for candidate in (target.with_suffix(".py"), target / "__init__.py"):
            if candidate.is_file():
                found.add(candidate)
        for name in names:  # `from . import x`: x may be a module of the package
            sub = target / name
            for candidate in (sub.with_suffix(".py"), sub / "__init__.py"):
                if candidate.is_file():
                    found.add(candidate)
    return found


def _data_inputs(path, tree):
    """The files a module lists in `INPUTS = [...]`."""
    found = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "INPUTS" for t in node.targets):
            try:
                listed = ast.literal_eval(node.value)
            except ValueError:
                raise BuildError(f"{_label(path)}: INPUTS must be a literal list of paths") from None
            for name in listed:
                if not (ROOT / name).is_file():
                    raise BuildError(f"{_label(path)}: INPUTS names {name}, which does not exist")
                found.add(ROOT / name)
    return found


class InputHasher:
    """Hashes of pages' inputs; each file is read (and parsed for imports) once per build."""

    def __init__(self):
        versions = " ".join(f"{p} {importlib.metadata.version(p)}" for p in VERSIONED)
        python = ".".join(map(str, sys.version_info[:2]))  # a page may measure the interpreter (cost's peaks)
        self.preamble = f"{versions}\npython {python}\nsite_url {site_url()}\n".encode()
        self.shared = shared_files()
        self._dependencies = {}
        self._digests = {}

    def dependencies(self, path):
        if path not in self._dependencies:
            if path.suffix != ".py":
                found = set()
            elif path == REGISTRY:
                found = {module_path(page) for page in registered_pages()} - {None}
            else:
                try:
                    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
                except SyntaxError as exc:
                    raise BuildError(f"{_label(path)}: {exc}") from None
                found = _imported_files(path, tree) | _data_inputs(path, tree)
            self._dependencies[path] = found
        return self._dependencies[path]

    def input_files(self, dotted):
        """The page module, everything it depends on (transitively), and the shared files."""
        start = module_path(dotted)
        if start is None:
            raise BuildError(f"page {dotted}: no such module (is it spelled right in figures_src/registry.py?)")
        seen, todo = set(), [start]
        while todo:
            path = todo.pop()
            if path not in seen:
                seen.add(path)
                todo.extend(self.dependencies(path) - seen)
        return sorted(seen | self.shared)

    def __call__(self, dotted):
        digest = hashlib.sha256(self.preamble)
        for path in self.input_files(dotted):
            if path not in self._digests:
                self._digests[path] = hashlib.sha256(_label(path).encode() + b"\0" + path.read_bytes()).digest()
            digest.update(self._digests[path])
        return digest.hexdigest()
