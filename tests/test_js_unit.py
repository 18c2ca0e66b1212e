"""The site's own JavaScript: its Node unit tests pass, and what it ships stays within its budgets.

Two budgets, in gzipped bytes of the shipped copy (finish/scripts.py: terser; gzip level 9, as a server
would send it):
- on page view, 10 KB: mkdocs.yml's extra_javascript (site.js) with every module it imports, plus the widget
  modules site.js loads on a page that shows their widget (its WIDGETS), each with its imports. Checked here for
  every widget, and in the browser for every real page (tests/browser/test_every_page.py);
- on demand, 12 KB per request: any other of our scripts (docs/javascripts/ and docs/widgets/, as
  finish/scripts.py ships them), loaded by a dynamic import() (or a Worker) when a reader asks, behind a progress bar; what one such request brings in, with everything it loads
  in turn, fits in 12 KB. The your-sentence page's model (your-sentence-app.js, its worker, encoder.js,
  wordpiece.js, the rollout's two modules: 10.4 KB) is one request, its weights (29.3 MB) are data, counted by
  tests/test_your_sentence.py; the watch-it-write page's Generate (watch-it-write-app.js, decoder.js) is
  another. (Page view's 10 KB is the site's standard; this one is ours, so that code that loads only on a
  reader's request still cannot grow unseen.)
"""
import functools
import gzip
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from figures_src.engine import contract
from finish import FinishError
from finish.scripts import minify_all, our_scripts

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SCRIPTS = DOCS / "javascripts"  # the shared modules; each widget's are in docs/widgets/<name>/
# Published beside the scripts by the figure build, not kept in docs/ (figures_src/engine/contract.py), and
# written into the shipped scripts that import them (finish/scripts.py): no page fetches them. The Node tests
# generate them on the fly (tests/js/contract-loader.mjs).
CONTRACT = {SCRIPTS / name: name for name in contract.MODULES}
NODE_TEST = ["--import", "./tests/js/contract-loader.mjs", "--test", "tests/js/"]
PAGE_VIEW_BUDGET_BYTES = 10 * 1024
ON_DEMAND_BUDGET_BYTES = 12 * 1024

# import … from "./x.js", export … from "./x.js", import "./x.js"; not import("./x.js"), which loads on demand
STATIC_IMPORT = re.compile(r"""^\s*(?:(?:import|export)\s[^;]*?\bfrom|import)\s*["']([^"']+)["']""", re.M)


@pytest.mark.slow  # node's whole suite: about 20 s
def test_node_unit_tests_pass():
    node = shutil.which("node")
    assert node, "Node.js is needed for tests/js (make test installs the npm tooling with it)"
    result = subprocess.run([node, *NODE_TEST], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout and "# pass 0" not in result.stdout, result.stdout[-2000:]


def extra_javascript(config_file=ROOT / "mkdocs.yml"):
    """The scripts mkdocs.yml puts on every page, as paths under docs/. MkDocs' own tags (!ENV)
    are read as nothing: only extra_javascript matters here."""
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    config = yaml.load(config_file.read_text(encoding="utf-8"), Loader=Loader)
    docs = config_file.parent / config.get("docs_dir", "docs")
    return [docs / (e["path"] if isinstance(e, dict) else e) for e in config.get("extra_javascript") or []]


def static_imports(script):
    """The files that `script` imports statically, resolved from its folder; loudly, if one is not ours."""
    found = []
    for specifier in STATIC_IMPORT.findall(script.read_text(encoding="utf-8")):
        assert specifier.startswith(("./", "../")), f"{script.name} imports {specifier!r}: no bundler, so only our own files"
        target = (script.parent / specifier).resolve()
        if target in CONTRACT:
            continue  # written into the script it ships in
        assert target.is_file(), f"{script.name} imports {specifier}, which is not there"
        found.append(target)
    return found


# import("./x.js") and new Worker(new URL("./x.js", ...)): a module loaded when the reader asks for it
ON_DEMAND_LOAD = re.compile(r"""(?:\bimport\(|new Worker\(new URL\()\s*["'](\./[\w-]+\.js)["']""")


def on_demand_loads(script):
    return [(script.parent / target).resolve() for target in ON_DEMAND_LOAD.findall(script.read_text(encoding="utf-8"))]


def page_view_scripts(entry_points):
    """The entry points and every module they import, transitively."""
    seen, to_visit = set(), [p.resolve() for p in entry_points]
    while to_visit:
        script = to_visit.pop()
        if script not in seen:
            seen.add(script)
            to_visit.extend(static_imports(script))
    return seen


def all_scripts():
    """Every script finish/scripts.py ships (resolved paths), the shared modules and each widget's."""
    return [(DOCS / name).resolve() for name in our_scripts(DOCS)]


@functools.cache
def shipped_copies():
    """{path under docs/: what finish/scripts.py ships for it}, for every script it ships."""
    return minify_all(our_scripts(DOCS), {f"javascripts/{name}": contract.module(name) for name in contract.MODULES})


def gzipped_size(script):
    return len(gzip.compress(shipped_copies()[script.relative_to(DOCS).as_posix()].encode(), 9, mtime=0))


WIDGET = re.compile(r"""^\s*["'](.+)["']:\s*["']([\w-]+)["'],?\s*$""", re.M)  # "selector": "name",
WIDGET_MODULE = "../widgets/{name}/{name}.js"  # from site.js: the module of the widget `name` (its import())


def widgets(loader=SCRIPTS / "site.js"):
    """site.js's WIDGETS: {the selector of a widget: the module site.js loads on a page that shows it}."""
    text = loader.read_text(encoding="utf-8")
    entries = text[text.index("const WIDGETS = {"):text.index("};", text.index("const WIDGETS = {"))]
    assert "import(`" + WIDGET_MODULE.replace("{name}", "${name}") + "`)" in text, "site.js loads a widget's module as WIDGET_MODULE"
    found = {selector: (loader.parent / WIDGET_MODULE.format(name=name)).resolve() for selector, name in WIDGET.findall(entries)}
    assert found and all(m.is_file() for m in found.values()), f"site.js's WIDGETS: {found}"
    return found


def widget_modules(loader=SCRIPTS / "site.js"):
    """The modules site.js loads on the pages that show their widget (the values of its WIDGETS)."""
    return list(widgets(loader).values())


def page_views():
    """{widget module: the scripts a page showing that widget loads (site.js's and the widget's, with imports)}."""
    every_page = page_view_scripts(extra_javascript())
    return {widget: every_page | page_view_scripts([widget]) for widget in widget_modules()}


def sizes_by_loading():
    """{"page view": {path: bytes} of the largest page view, "on demand": {path: bytes} of everything else}."""
    views = page_views()
    largest = max(views.values(), key=lambda scripts: sum(map(gzipped_size, scripts)))
    loaded_on_some_page = set().union(*views.values())
    sizes = {"page view": {}, "on demand": {}}
    for script in sorted(all_scripts()):
        name = script.relative_to(ROOT).as_posix()
        if script.resolve() in largest:
            sizes["page view"][name] = gzipped_size(script)
        elif script.resolve() not in loaded_on_some_page:
            sizes["on demand"][name] = gzipped_size(script)
    return sizes


def over_budget_message(kind, sizes, budget):
    lines = [f"  {size:6d}  {name}" for name, size in sorted(sizes.items(), key=lambda item: -item[1])]
    total = sum(sizes.values())
    return f"JavaScript loaded {kind}: {total} bytes gzipped, over its {budget}-byte budget:\n" + "\n".join(lines)


def test_imports_are_followed_from_the_extra_javascript_entries(tmp_path):
    docs = tmp_path / "docs" / "javascripts"
    docs.mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text(
        "site_url: !ENV [SITE_URL, 'http://x/']\nextra_javascript:\n  - path: javascripts/a.js\n    type: module\n")
    (docs / "a.js").write_text('import { b } from "./b.js";\nimport {\n  c,\n} from "./c.js";\nexport const a = b + c;\n')
    (docs / "b.js").write_text('import "./d.js";\nexport const b = 1;\n')
    (docs / "c.js").write_text('export { b as c } from "./b.js";\nexport const path = "./e.js";\n'
                               'const later = () => import("./lazy.js");\n')
    (docs / "d.js").write_text("// no imports\n")
    (docs / "lazy.js").write_text('import { a } from "./a.js";\n')
    found = page_view_scripts(extra_javascript(tmp_path / "mkdocs.yml"))
    assert sorted(p.name for p in found) == ["a.js", "b.js", "c.js", "d.js"]


def test_every_page_loads_site_js_and_each_widget_only_where_it_is_shown():
    every_page = {p.name for p in page_view_scripts(extra_javascript())}
    assert every_page == {"site.js", "place.js", "dom.js"}, every_page
    modules = {p.name for p in widget_modules()}
    assert {"heatmap.js", "problems.js", "real-heads.js", "your-sentence.js"} <= modules, modules
    views = {widget.name: {p.name for p in scripts} for widget, scripts in page_views().items()}
    assert {"heatmap.js", "attention-math.js", "dom.js"} <= views["real-heads.js"]
    assert "heatmap.js" not in views["problems.js"], "the Problems page would load the heatmap widget"


def test_the_in_browser_model_loads_only_on_demand():
    on_demand = sizes_by_loading()["on demand"]
    model = ["your-sentence-app.js", "your-sentence-worker.js", "encoder.js", "wordpiece.js"]
    assert {f"docs/widgets/your-sentence/{name}" for name in model} <= on_demand.keys(), on_demand
    smollm = ["smollm-app.js", "smollm-worker.js", "llama.js", "sample.js", "bpe.js"]  # the real model's page
    assert {f"docs/widgets/smollm/{name}" for name in smollm} <= on_demand.keys(), (
        f"smollm's app and its worker chain load only on demand, within that budget: {sorted(on_demand)}")


def test_the_budgets_see_every_script_shipped():
    """Each script under docs/ is one the pass ships, and the budgets walk it: loaded on some page view (site.js,
    a widget's module, their imports) or on demand. A script the walk missed would pass its budget unseen."""
    everywhere = sorted(path.resolve() for path in DOCS.rglob("*.js"))
    assert sorted(all_scripts()) == everywhere, "every script under docs/ is in a folder finish/scripts.py ships"
    on_page_views = set().union(*page_views().values())
    on_demand = {(ROOT / name).resolve() for name in sizes_by_loading()["on demand"]}
    walked = on_page_views | on_demand
    assert sorted(walked) == everywhere, f"scripts the budgets never walk: {sorted(set(everywhere) - walked)}"
    assert len(walked) >= 18 and {path.parent.name for path in walked} >= {
        "javascripts", "heatmap", "your-sentence", "watch-it-write", "problems", "real-heads"}, sorted(walked)


def test_javascript_loaded_on_page_view_fits_in_10_kb_gzipped():
    for widget, scripts in page_views().items():
        sizes = {p.relative_to(ROOT).as_posix(): gzipped_size(p) for p in scripts}
        assert sum(sizes.values()) <= PAGE_VIEW_BUDGET_BYTES, over_budget_message(
            f"on a page view with {widget.name}", sizes, PAGE_VIEW_BUDGET_BYTES)


def on_demand_requests():
    """{entry: {path: bytes}}: each on-demand module a page loads when the reader asks (its dynamic import() or
    Worker), or that nothing loads (embed.js, the embed pages' own script), with every on-demand module it brings
    in, statically or on demand, transitively. Page-view modules it imports are there already and not counted."""
    on_demand = {(ROOT / name).resolve(): size for name, size in sizes_by_loading()["on demand"].items()}
    scripts = all_scripts()
    referenced = {target for script in scripts for target in static_imports(script) + on_demand_loads(script)}
    asked_for = {target for script in scripts if script not in on_demand for target in on_demand_loads(script)}
    entries = sorted(script for script in on_demand if script in asked_for or script not in referenced)
    requests = {}
    for entry in entries:
        seen, to_visit = set(), [entry]
        while to_visit:
            script = to_visit.pop()
            if script not in seen:
                seen.add(script)
                to_visit.extend(static_imports(script) + on_demand_loads(script))
        requests[entry] = {p.relative_to(ROOT).as_posix(): on_demand[p] for p in seen if p in on_demand}
    return requests


def test_javascript_loaded_on_demand_fits_its_own_budget():
    requests = on_demand_requests()
    assert set().union(*requests.values()) == set(sizes_by_loading()["on demand"]), "an on-demand module no request loads"
    assert {entry.name for entry in requests} >= {"your-sentence-app.js", "watch-it-write-app.js"}, requests
    for entry, sizes in requests.items():
        assert sum(sizes.values()) <= ON_DEMAND_BUDGET_BYTES, over_budget_message(
            f"on demand by {entry.name}", sizes, ON_DEMAND_BUDGET_BYTES)


def test_the_over_budget_message_lists_each_file():
    message = over_budget_message("on page view", {"docs/javascripts/a.js": 9000, "docs/javascripts/b.js": 2000}, 10240)
    assert "11000 bytes gzipped, over its 10240-byte budget" in message
    assert "9000  docs/javascripts/a.js" in message and "2000  docs/javascripts/b.js" in message


def test_the_site_ships_exactly_the_minified_source(built_site):
    for name, code in shipped_copies().items():
        assert (built_site / name).read_text(encoding="utf-8") == code, name
    source = "// a comment\nexport function area(width, height) {\n  const product = width * height;\n  return product;\n}\n"
    assert minify_all({"area.js": source}) == {"area.js": "export function area(r,e){return r*e}"}  # comments and white space out, locals renamed, the export kept


def test_a_script_that_does_not_parse_stops_the_build_naming_it():
    with pytest.raises(FinishError, match=r"broken\.js, line 2"):
        minify_all({"fine.js": "export const a = 1;\n", "broken.js": "const b = 1;\nconst = ;\n"})
