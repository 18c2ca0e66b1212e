"""Ship our JavaScript minified; docs/javascripts/ keeps the readable source.

Readers download what this writes into site/javascripts/: each file through terser (pinned in package.json,
installed by `npm ci`, which `make site` runs), as an ES module: no comments or white space, local names
shortened, exported names kept. No bundling: a page still fetches only the modules it shows. The Node unit
tests import the source; the browser tests run the shipped copy, so both are tested. A tool that runs no hooks
ships the source unchanged, which works the same.
"""
import json
import shutil
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError

MINIFIER = Path(__file__).with_suffix(".mjs")  # node resolves its `terser` from the repository's node_modules


def minify_all(sources):
    """{file name: source} -> {file name: minified}, in one Node process. A clear error, naming the file, when
    Node or terser is missing or a file does not parse."""
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
    for name, code in minify_all(sources).items():
        (shipped / name).write_text(code, encoding="utf-8", newline="\n")
