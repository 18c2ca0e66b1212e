"""Publish generated/public/** at the site root, and keep the figures fresh under `mkdocs serve`.

Before anything is built (and site/ cleaned), every file under generated/ is checked against the SHA-256 the
figure build recorded when it wrote it (figures_src.build.check_generated, so any site generator can call it):
a file changed, truncated or left by hand stops the build with an error naming it, never reaches site/; so
does generated/ built for another SITE_URL than the site's (it would cite two addresses).

`python -m figures_src.build` (make figures) writes generated/; this hook only reads it, except under
`mkdocs serve`, where it reruns that entry point before every build and watches what the figures are
made from (figures_src/, attention/, realheads/, data/). The entry point rewrites only files whose inputs
changed and writes nothing under docs/, so regenerating never triggers another rebuild.
"""
import os
import subprocess
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from figures_src.build import check_generated
from figures_src.engine.errors import BuildError

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ROOT / "generated" / "public"
WATCHED = [ROOT / "figures_src", ROOT / "attention", ROOT / "realheads", ROOT / "data"]
_SERVING = "AIH_MKDOCS_SERVING"  # survives the config reload mkdocs serve does on every rebuild


def on_startup(command, dirty):
    if command == "serve":
        os.environ[_SERVING] = "1"


def on_serve(server, config, builder):
    for path in WATCHED:
        server.watch(str(path))
    return server


def on_pre_build(config):
    if os.environ.get(_SERVING) == "1":
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # no __pycache__ writes inside a watched folder
        result = subprocess.run([sys.executable, "-m", "figures_src.build"], cwd=ROOT, env=env,
                                capture_output=True, text=True)
        sys.stderr.write(result.stdout)
        if result.returncode != 0:
            raise PluginError(f"the figure build failed:\n{result.stderr}")
    try:
        # mkdocs serve puts its own address in site_url; what is served there is a preview, cited as published
        serving = os.environ.get(_SERVING) == "1"
        check_generated(ROOT / "generated", site_url=None if serving else config["site_url"])
    except BuildError as exc:
        raise PluginError(str(exc)) from None


def on_files(files, config):
    if not PUBLIC.is_dir():
        raise PluginError("generated/public/ does not exist: run `make figures` (python -m figures_src.build) first")
    for path in sorted(p for p in PUBLIC.rglob("*") if p.is_file() and not p.name.startswith(".")):
        src_uri = path.relative_to(PUBLIC).as_posix()
        if files.get_file_from_path(src_uri) is not None:
            raise PluginError(f"generated/public/{src_uri} would overwrite docs/{src_uri}")
        files.append(File.generated(config, src_uri, abs_src_path=str(path)))
    return files
