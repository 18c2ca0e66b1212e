"""Our JavaScript minified (docs/ keeps the readable source), and the theme's compiled while it downloads.

Our scripts are the shared modules of docs/javascripts/ and each widget's of docs/widgets/<name>/ (SCRIPT_FOLDERS).
Readers download what this writes in their place under site/: each file through terser (pinned in package.json,
installed by `npm ci`, which `make site` runs), as an ES module: no comments or white space, local names
shortened, exported names kept. No bundling: a page still fetches only the modules it shows. One exception, so
that it costs the page nothing: the rules the scripts share with the build, which the figure build publishes
as javascripts/contract*.js (figures_src/engine/contract.py), are written into each script that imports them,
in place of its `import { … } from "./contract.js"` (from a widget's folder, "../../javascripts/contract.js";
terser then keeps only what the script reads). The Node unit tests import the source; the browser tests run the
shipped copy, so both are tested.

The magic comment `//# allFunctionsCalledOnLoad` as a script's first line (V8's explicit compile hints, Chrome
136) makes V8 compile every function of the file eagerly, on the thread that streams the script in, rather than on
the main thread when first called; other browsers read a comment. Why, measured: DECISIONS.md.

This job also adds that line to the bundle the theme copies into site/, and moves the bundle's source map down
one line to match (an empty first line in its mappings), so the browser's tools still show the theme's
sources.
"""
import json
import posixpath
import re
import shutil
import subprocess
from pathlib import Path

from .site import FinishError

MINIFIER = Path(__file__).with_name("minify.mjs")  # node resolves its `terser` from the repository's node_modules
SCRIPT_FOLDERS = ("javascripts", "widgets")  # under docs/: the shared modules, and a folder per widget
GENERATED = re.compile(r"(^|/)contract(-[a-z]+)?\.js$")  # figures_src/engine/contract.py's MODULES, in javascripts/
IMPORT = re.compile(r'^import \{[\w\s,]*\} from "(\.\.?/[\w./-]+\.js)";$', re.M)


def our_scripts(docs):
    """{path under docs/ ("widgets/heatmap/heatmap.js"): its text}, for every script of SCRIPT_FOLDERS."""
    return {path.relative_to(docs).as_posix(): path.read_text(encoding="utf-8")
            for folder in SCRIPT_FOLDERS for path in sorted((docs / folder).rglob("*.js"))}


def inline_generated(name, source, generated):
    """`source`, the script at path `name`, with each import of a generated module (`generated`: {its path:
    its text, one `export const`}; paths as `name`'s, from the same root) replaced by that module's declarations."""
    def declarations(match):
        module = posixpath.normpath(posixpath.join(posixpath.dirname(name), match.group(1)))
        if not GENERATED.search(module):
            return match.group(0)
        if re.search(r"\bas\b", match.group(0)):
            raise FinishError(f"finish/scripts.py: {name} renames an import of {match.group(1)} (`as`): the shipped "
                              "copy inlines the module's own names, so import them as they are")
        text = generated.get(module, "")
        if not text.startswith("export const "):
            raise FinishError(f"finish/scripts.py: {name} imports {match.group(1)} (docs/{module}), which the "
                              "figure build has not published (run `make figures`)")
        return text.strip().removeprefix("export ")

    return IMPORT.sub(declarations, source)


def minify_all(sources, generated=None):
    """{path: source} -> {path: minified}, in one Node process; `generated`: the build's contract*.js
    ({path: text}), written into the scripts that import them. A clear error, naming the file, when Node or
    terser is missing or a file does not parse."""
    sources = {name: inline_generated(name, source, generated or {}) for name, source in sources.items()}
    node = shutil.which("node")
    if node is None:
        raise FinishError("finish/scripts.py: Node.js is needed to minify our scripts (install Node 20, then `make site`)")
    result = subprocess.run([node, str(MINIFIER)], input=json.dumps(sources), capture_output=True, text=True,
                            encoding="utf-8", check=False)
    if result.returncode != 0:
        why = result.stderr.strip().splitlines()
        missing = any("ERR_MODULE_NOT_FOUND" in line or "Cannot find package 'terser'" in line for line in why)
        raise FinishError("finish/scripts.py: " + ("terser is not installed: run `npm ci` (or `make site`)" if missing
                          else "terser could not minify " + (why[0] if why else "our scripts")))
    return json.loads(result.stdout)


HINT = "//# allFunctionsCalledOnLoad\n"


def add_hint(bundle):
    """Put the hint above `bundle` (a file) and move its source map, if it has one, down one line to match.
    A bundle that has the hint already is left as it is."""
    script = bundle.read_text(encoding="utf-8")
    if script.startswith(HINT):
        return
    bundle.write_text(HINT + script, encoding="utf-8", newline="")
    map_file = bundle.with_name(bundle.name + ".map")
    if map_file.exists():
        source_map = json.loads(map_file.read_text(encoding="utf-8"))
        source_map["mappings"] = ";" + source_map["mappings"]
        map_file.write_text(json.dumps(source_map, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def run(site):
    public = site.generated / "public"  # the figure build's javascripts/contract*.js, whoever published them
    generated = {path.relative_to(public).as_posix(): path.read_text(encoding="utf-8")
                 for path in (public / "javascripts").glob("*.js") if GENERATED.search(path.name)}
    for name, code in minify_all(our_scripts(site.docs), generated).items():
        site.path(name).write_text(code, encoding="utf-8", newline="\n")
    folder = site.path("assets/javascripts")
    bundles = sorted(folder.glob("bundle.*.min.js"))
    if len(bundles) != 1:
        raise FinishError(f"finish/scripts.py: expected the theme's one bundle.*.min.js in {folder}, "
                          f"found {len(bundles)}: has the theme changed where it puts its script?")
    add_hint(bundles[0])
