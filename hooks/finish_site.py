"""MkDocs' side of the build: publish the figure build's files as MkDocs builds, and finish the site at the end.

The post-build pass (finish/) does the work on the built files, for either engine; MkDocs runs it here, at
on_post_build, so that `mkdocs build` and `mkdocs serve` give a finished site. Before that:
- before anything is built (and site/ cleaned), generated/ is checked against the SHA-256 the figure build
  recorded (figures_src.build.check_generated): a file changed or left by hand stops the build at once;
- generated/public/** joins MkDocs' files, so links to the downloads validate (strict) and serve serves them; in
  the Chinese build, so do generated/zh/public/**'s own files, under zh/ (finish/published.language_files);
- under `mkdocs serve`, the figure build runs before every build, and what the figures are made from is
  watched (figures_src/, attention/, models/, data/, words/). It rewrites only files whose inputs changed and
  writes nothing under docs/, so regenerating never triggers another rebuild.

mkdocs-static-i18n builds the Chinese pages by running MkDocs' build again from its own on_post_build (priority
-100), so each event here but on_startup and on_serve runs once per language. The post-build pass runs once, for
both: at priority -110, after the last language is built and the search index merged, and not from inside the
plugin's inner build (`building`). By then `config` holds the last language's settings; the pass reads none of
them (it reads mkdocs.yml itself).
"""
import os
import subprocess
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

from figures_src.build import check_generated
from figures_src.engine.errors import BuildError
from figures_src.engine.site import DEFAULT_LANGUAGE
from finish import FinishError, finish
from finish.published import language_files

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ROOT / "generated" / "public"
# Not finish/: a serve process keeps the pass's modules it imported, so an edit there needs a new `make serve`.
WATCHED = [ROOT / "figures_src", ROOT / "attention", ROOT / "models", ROOT / "data", ROOT / "words"]
_SERVING = "AIH_MKDOCS_SERVING"  # survives the config reload mkdocs serve does on every rebuild


def serving():
    return os.environ.get(_SERVING) == "1"


def on_startup(command, dirty):
    if dirty:  # the pages it keeps are finished already, and the pass refuses finished pages
        raise PluginError("--dirty keeps pages the post-build pass has finished, and it finishes a page once: build "
                          "without --dirty")
    if command == "serve":
        os.environ[_SERVING] = "1"


def on_serve(server, config, builder):
    for path in WATCHED:
        server.watch(str(path))
    return server


def language(config):
    """The language MkDocs is building now (mkdocs-static-i18n's current one), or the default without the plugin."""
    i18n = (getattr(config, "plugins", None) or {}).get("i18n")
    return getattr(i18n, "current_language", None) or DEFAULT_LANGUAGE


def on_pre_build(config):
    if serving():
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # no __pycache__ writes inside a watched folder
        result = subprocess.run([sys.executable, "-m", "figures_src.build", "--lang", language(config)], cwd=ROOT,
                                env=env, capture_output=True, text=True)
        sys.stderr.write(result.stdout)
        if result.returncode != 0:
            raise PluginError(f"the figure build failed:\n{result.stderr}")
    try:
        lang = language(config)
        folder = ROOT / "generated" / ("" if lang == DEFAULT_LANGUAGE else lang)
        check_generated(folder, site_url=None if serving() else config["site_url"])
    except BuildError as exc:
        raise PluginError(str(exc)) from None


def on_files(files, config):
    if not PUBLIC.is_dir():
        raise PluginError("generated/public/ does not exist: run `make figures` (python -m figures_src.build) first")
    lang = language(config)
    published = language_files(ROOT / "generated", DEFAULT_LANGUAGE)
    if lang != DEFAULT_LANGUAGE:
        try:
            published |= language_files(ROOT / "generated", lang)
        except FinishError as exc:
            raise PluginError(str(exc)) from None
    for src_uri, path in published.items():
        if files.get_file_from_path(src_uri) is not None:
            raise PluginError(f"{path.relative_to(ROOT)} would overwrite docs/{src_uri}")
        files.append(File.generated(config, src_uri, abs_src_path=str(path)))
    return files


def on_post_template(output_content, template_name, config):
    """The one 404.html stays the English one: the plugin's build of another language writes its own 404.html over
    it, at the site's root, where GitHub Pages serves it for every missing address (404's language menu leads to
    each language's Home: finish/alternates.py)."""
    english = Path(config["site_dir"]) / template_name
    if template_name == "404.html" and language(config) != DEFAULT_LANGUAGE and english.is_file():
        return english.read_text(encoding="utf-8")
    return output_content


@event_priority(-110)  # after mkdocs-static-i18n's (-100), which builds the other languages: the module docstring
def on_post_build(config):
    i18n = (getattr(config, "plugins", None) or {}).get("i18n")
    if i18n is not None and i18n.building:  # one language's build, inside the plugin's: the pass waits for the last
        return
    try:
        finish(config["site_dir"], config_file=config["config_file_path"], serving=serving())
    except FinishError as exc:
        raise PluginError(str(exc)) from None
