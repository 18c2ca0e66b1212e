"""Ship the site's stylesheets as one file.

docs/stylesheets/ and each widget's folder (docs/widgets/<name>/) keep a readable file per part of the site,
listed in mkdocs.yml's extra_css in cascade order. Linked one by one they are nine render-blocking requests, and
on a phone's connection the round trips delay the first paint more than the bytes do. This job writes one file
instead, the same files in the same order, each minified by rcssmin (comments and white space only), as
stylesheets/site.bundle.css, and makes each page link it where it linked the first of them. The separate files
are still published (the embed pages link two of them).
"""
import re

import rcssmin

from .site import FinishError

BUNDLE = "stylesheets/site.bundle.css"


def bundle(docs_dir, parts):
    sources = []
    for part in parts:
        path = docs_dir / part
        if not path.is_file():
            raise FinishError(f"mkdocs.yml: extra_css lists {part}, which is not in {docs_dir.name}/")
        sources.append(rcssmin.cssmin(path.read_text(encoding="utf-8")))
    return "\n".join(sources) + "\n"


def linked_once(html, parts, name):
    """`html` with its links to `parts` (in this order, each once, with only white space between them) replaced by
    one link to the bundle."""
    links = [re.search(rf'<link rel="stylesheet" href="((?:[^"]*/)?){re.escape(part)}">', html) for part in parts]
    missing = [part for part, link in zip(parts, links) if link is None]
    if missing:
        raise FinishError(f"{name}: does not link {missing[0]}, which mkdocs.yml's extra_css lists")
    between = [html[before.end():after.start()] for before, after in zip(links, links[1:])]
    if any(gap.strip() for gap in between):
        raise FinishError(f"{name}: does not link mkdocs.yml's extra_css together, in the order it lists them")
    first, last = links[0], links[-1]
    return f'{html[:first.start()]}<link rel="stylesheet" href="{first.group(1)}{BUNDLE}">{html[last.end():]}'


def run(site):
    parts = [entry if isinstance(entry, str) else entry["path"] for entry in site.config.get("extra_css") or []]
    if not parts:
        return
    site.path(BUNDLE).write_text(bundle(site.docs, parts), encoding="utf-8")
    for page in site.pages:
        page.update(linked_once(page.html, parts, page.name))
