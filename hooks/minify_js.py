"""Ship our JavaScript without its comments and indentation; docs/javascripts/ keeps the readable source.

Readers download what this writes into site/javascripts/ (rjsmin: comments and white space only, no
renaming, no bundling). The Node unit tests import the source; the browser tests run the shipped copy, so
both are tested. A tool that runs no hooks ships the source unchanged, which works the same.
"""
from pathlib import Path

import rjsmin


def minify(source):
    return rjsmin.jsmin(source)


def on_post_build(config):
    shipped = Path(config["site_dir"]) / "javascripts"
    for source in sorted((Path(config["docs_dir"]) / "javascripts").glob("*.js")):
        (shipped / source.name).write_text(minify(source.read_text(encoding="utf-8")), encoding="utf-8", newline="\n")
