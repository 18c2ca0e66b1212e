"""The site, finished: one pass over the HTML that either engine (MkDocs-Material or Zensical) built into site/.

    python -m finish site/      (after Zensical: make site ENGINE=zensical; MkDocs runs it from hooks/finish_site.py,
                                 at the end of `mkdocs build` and of each `mkdocs serve` rebuild)

The engines turn Markdown into pages; everything this project adds to a page is done here, on the files, so it
is done alike whichever engine built them. What must be in place before Markdown is rendered (a figure's
placeholder) the figure build writes into the files the pages include. MkDocs' search index alone also has a
hook of its own (hooks/search_text.py): Zensical indexes the pages as they are.

The jobs, in the order they run (JOBS), one module each:

    published   generated/public/ (the figure build's downloads), checked, copied into the site
    figures     each figure's placeholder replaced by the figure
    widgets     the interactive heatmap's template (docs/widgets/heatmap/template.html) in every page
    mathml      the math as MathML
    search      the search index's formulas as text
    tables      Markdown's tables wrapped as the theme's script would wrap them at load
    details     a collapsed block's body kept in a <noscript> until a reader opens it
    theme       what the theme's templates leave out (the search dialog's name)
    language    what the engines write in English on every page (the notation link, permalink titles, the
                theme's credit), in the page's language
    alternates  each page's other-language versions in the sitemap, with an x-default; 404's menu to each Home
    content     no page's own content holds a <script> (policy.check_content; before the edition copies it)
    stylesheet  the stylesheets as one file, linked once
    scripts     our JavaScript minified; the theme's bundle compiled while it downloads
    edition     print/: every page's article, in the nav's order
    policy      the Content-Security-Policy of every page, with its inline scripts' hashes (last: it hashes
                what the others wrote)

A job that finds something wrong raises FinishError, naming the file and what to do; `python -m finish` prints
that one line. The pages are written back once every job has run, but the files a job writes itself (the
stylesheet bundle, the scripts, the search index) are written as it runs: a failed pass leaves a site that must
not be published, so make site removes site/ (either engine), and the Pages workflow deploys only what make site
finished. The pass runs once on a built site: it refuses a site it has finished already.
"""
from . import (alternates, details, edition, figures, language, mathml, policy, published, scripts, search, stylesheet,
               tables, theme, widgets)
from .site import FinishError, Site

# Each job: (name, run) where run(site) changes the files of `site`.
JOBS = [
    ("published", published.run),
    ("figures", figures.run),
    ("widgets", widgets.run),
    ("mathml", mathml.run),
    ("search", search.run),
    ("tables", tables.run),
    ("details", details.run),
    ("theme", theme.run),
    ("language", language.run),
    ("alternates", alternates.run),
    ("content", policy.check_content),
    ("stylesheet", stylesheet.run),
    ("scripts", scripts.run),
    ("edition", edition.run),
    ("policy", policy.run),
]

__all__ = ["JOBS", "FinishError", "Site", "finish"]


def finish(site_dir, config_file=None, serving=False, generated=None, log=None):
    """Run every job, in order, over the site built into `site_dir`. config_file: mkdocs.yml's path (default: the
    repository's); serving: under `mkdocs serve`, whose site address is the preview's; generated: the figure
    build's folder (default: the repository's generated/)."""
    site = Site.open(site_dir, config_file, serving, generated)
    for name, run in JOBS:
        run(site)
        if log:
            log(f"finish: {name}")
    site.save()
    return site
