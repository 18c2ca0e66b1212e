"""Ship the site's stylesheets as one file.

docs/stylesheets/ keeps a readable file per part of the site, listed in mkdocs.yml's extra_css in cascade
order. Linked one by one they are eight render-blocking requests, and on a phone's connection the round trips
delay the first paint more than the bytes do. This hook links one file instead: the same files, in the same
order, each minified by rcssmin (comments and white space only) and joined into stylesheets/site.bundle.css.
The separate files are still published (the embed pages link two of them). A tool that runs no hooks links
the eight files, which looks the same.
"""
from pathlib import Path

import rcssmin
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

BUNDLE = "stylesheets/site.bundle.css"
_parts = []  # extra_css as mkdocs.yml lists it


def on_config(config):
    _parts[:] = [str(path) for path in config.extra_css]
    config.extra_css = [BUNDLE]
    return config


def bundle(docs_dir, parts):
    sources = []
    for part in parts:
        path = Path(docs_dir) / part
        if not path.is_file():
            raise PluginError(f"one_stylesheet: mkdocs.yml extra_css lists {part}, which is not in {docs_dir}")
        sources.append(rcssmin.cssmin(path.read_text(encoding="utf-8")))
    return "\n".join(sources) + "\n"


def on_files(files, config):
    files.append(File.generated(config, BUNDLE, content=bundle(config.docs_dir, _parts)))
    return files
