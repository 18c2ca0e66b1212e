"""Ship our JavaScript minified; docs/javascripts/ keeps the readable source.

Readers download what this writes into site/javascripts/: each file through terser (pinned in package.json,
installed by `npm ci`, which `make site` runs), as an ES module: no comments or white space, local names
shortened, exported names kept. No bundling: a page still fetches only the modules it shows. One exception, so
that it costs the page nothing: the rules the scripts share with the build, which the figure build publishes
as javascripts/contract*.js (figures_src/engine/contract.py), are written into each script that imports them,
in place of its `import { … } from "./contract.js"` (terser then keeps only what the script reads). The Node
unit tests import the source; the browser tests run the shipped copy, so both are tested. A tool that runs no
hooks ships the source unchanged, which works the same beside the published contract*.js.
"""
import json
import re
import shutil
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError

MINIFIER = Path(__file__).with_suffix(".mjs")  # node resolves its `terser` from the repository's node_modules
GENERATED = re.compile(r"^contract(-[a-z]+)?\.js$")  # figures_src/engine/contract.py's MODULES
IMPORT = re.compile(r'^import \{[\w\s,]*\} from "\./([\w-]+\.js)";$', re.M)


def inline_generated(name, source, generated):
    """`source` with each import of a generated module (`generated`: {file name: its text, one `export const`})
    replaced by that module's declarations."""
    def declarations(match):
        module = match.group(1)
        if not GENERATED.match(module):
            return match.group(0)
        text = generated.get(module, "")
        if not text.startswith("export const "):
            raise PluginError(f"hooks/minify_js.py: {name} imports ./{module}, which the figure build has not "
                              "published (run `make figures`)")
        return text.strip().removeprefix("export ")

    return IMPORT.sub(declarations, source)


def minify_all(sources, generated=None):
    """{file name: source} -> {file name: minified}, in one Node process; `generated`: the build's contract*.js
    ({file name: text}), written into the scripts that import them. A clear error, naming the file, when Node or
    terser is missing or a file does not parse."""
    sources = {name: inline_generated(name, source, generated or {}) for name, source in sources.items()}
    node = shutil.which("node")
    if node is None:
        raise PluginError("hooks/minify_js.py: Node.js is needed to minify docs/javascripts/ (install Node 20, then `make site`)")
    result = subprocess.run([node, str(MINIFIER)], input=json.dumps(sources), capture_output=True, text=True,
                            encoding="utf-8", check=False)
    if result.returncode != 0:
        why = result.stderr.strip().splitlines()
        missing = any("ERR_MODULE_NOT_FOUND" in line or "Cannot find package 'terser'" in line for line in why)
        raise PluginError("hooks/minify_js.py: " + ("terser is not installed: run `npm ci` (or `make site`)" if missing
                          else "terser could not minify " + (why[0] if why else "docs/javascripts/")))
    return json.loads(result.stdout)


def on_post_build(config):
    sources = {path.name: path.read_text(encoding="utf-8") for path in sorted((Path(config["docs_dir"]) / "javascripts").glob("*.js"))}
    shipped = Path(config["site_dir"]) / "javascripts"
    generated = {path.name: path.read_text(encoding="utf-8") for path in shipped.glob("*.js") if GENERATED.match(path.name)}
    for name, code in minify_all(sources, generated).items():
        (shipped / name).write_text(code, encoding="utf-8", newline="\n")
