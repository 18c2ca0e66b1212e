"""The project's modules import each other one way: no cycle anywhere in figures_src/, attention/, models/, hooks/, finish/.

The import graph is read statically with `ast` (imports inside functions count too: a cycle that only bites when
a function runs is still a cycle). `from package import name` depends on the submodule `name` when there is
one, else on the package's __init__, which must then have run.
"""
import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("figures_src", "attention", "models", "hooks", "finish")


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def known_modules():
    return {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def imports(path, modules):
    """The project modules `path` imports."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
    return {m for m in found if m in modules and m != name}


def graph():
    modules = known_modules()
    return {name: imports(path, modules) for name, path in modules.items()}


def find_cycle(edges):
    """One cycle as a list of module names, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_import_graph_is_read():
    edges = graph()
    assert "figures_src.engine.items" in edges["figures_src.engine"]
    assert "figures_src.registry" in edges["figures_src.pages.cite"]
    assert "attention" in edges["models.minilm.encoder"]
    assert len(edges) > 40


def test_no_module_imports_itself_back():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_engine_never_imports_a_page_or_the_entry_point():
    for name, targets in graph().items():
        if name.startswith("figures_src.engine"):
            outside = ("figures_src.build", "figures_src.registry")
            bad = {t for t in targets if t.startswith("figures_src.pages") or t in outside}
            assert not bad, f"{name} imports {bad}: the engine must not depend on what it builds"


@pytest.mark.parametrize("edges, cycle", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
    ({"a": {"b"}, "b": set()}, None),
])
def test_the_cycle_finder_finds_cycles(edges, cycle):
    assert find_cycle(edges) == cycle


def test_a_build_free_test_that_reads_generated_fails_naming_itself():
    """tests/conftest.py's audit hook: this test asked for no build, so opening a file under generated/ raises."""
    with pytest.raises(RuntimeError, match=r"test_a_build_free_test_that_reads_generated_fails_naming_itself\S* reads "
                                           r".*generated.*without asking for the build: take the `generated`"):
        (ROOT / "generated" / ".manifest.json").read_text(encoding="utf-8")


def test_every_package_the_project_installs_is_read_here_watched_by_serve_and_hashed_for_the_shared_build():
    """A package folder moved or added (models/ took over realheads/) must be followed by every list of folders:
    the import graph read here, `make serve`'s watch (hooks/finish_site.py), and the tests' check that the shared
    build is fresh (tests/conftest.py); otherwise an edit there goes unnoticed."""
    from hooks.finish_site import WATCHED  # noqa: PLC0415

    # tests/conftest.py's list, read from its source: `import conftest` may find tests/browser/conftest.py first
    assignment = next(node for node in ast.parse((ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")).body
                      if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "SITE_INPUTS")
    SITE_INPUTS = ast.literal_eval(assignment.value)  # noqa: N806

    found = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]["find"]
    installed = {name.split(".")[0] for name in found["include"]}
    assert all((ROOT / name / "__init__.py").is_file() for name in installed), f"pyproject names a missing package: {installed}"
    assert installed <= set(PACKAGES), f"tests/test_imports.py's PACKAGES misses {installed - set(PACKAGES)}"
    assert installed <= set(SITE_INPUTS), f"tests/conftest.py's SITE_INPUTS misses {installed - set(SITE_INPUTS)}"
    watched = {path.relative_to(ROOT).as_posix() for path in WATCHED}
    built_from = installed - {"finish"}  # the pass: a serve process keeps its modules (hooks/finish_site.py)
    assert built_from <= watched, f"hooks/finish_site.py's WATCHED misses {built_from - watched}"
