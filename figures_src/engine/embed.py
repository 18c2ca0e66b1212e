"""A worked example's embed page, embed/<id>/index.html: its interactive heatmap alone, for an <iframe> on
another site.

No theme chrome: the page is the heatmap, the example's title, a link back to its permalink and the licence.
The heatmap is first the static figure the reading pages show (its inline SVG, and its numbers as a table, open),
so a frame shows the example without JavaScript, or when its JSON cannot be read; embed.js (docs/widgets/heatmap/)
then lets heatmap.js make it interactive, and heatmap.js keeps the static figure, with a note saying the
interactive view failed, when it cannot. It has the site's Content-Security-Policy (mkdocs.yml's, with no inline
script to hash) and requests nothing from another host; embed.js takes the heatmap's words from the site's own
<template id="aih-heatmap"> (in every page Material renders, filled by finish/widgets.py: it reads 404.html), so
the words are never copied; when it cannot read them, it writes that note itself.

The title, the credit line, the JSON's link and the caption come before the heatmap's place, and nothing
follows the figure: the panel, inserted once the example has loaded, takes the place of the static figure and
its table (docs/widgets/heatmap/embed.css hides them) and moves nothing above it (no layout shift). It also keeps
the credit and the licence inside a short <iframe>. The page is docs/widgets/heatmap/embed.html, its sentences
(the caption, the description, the credit line, the <iframe>'s title) words/site.md's `embed-…` sections.
"""

import numpy as np

from .inputs import note_input
from .site import MKDOCS, language, language_folder, licence, policy
from .words import SITE_WORDS as WORDS
from .words import Filled, Template, Words

PAGE = Template("docs/widgets/heatmap/embed.html")  # the page, with a hole for each part below
# The interactive heatmap's markup, its words (words/widgets/heatmap.md) and its string table (engine/strings.py),
# filled in the language being built: the post-build pass puts it into every page the theme renders (from the
# snippet figures_src/pages/index.py writes), and an embed page carries it itself.
HEATMAP_TEMPLATE = Template("docs/widgets/heatmap/template.html", Words("words/widgets/heatmap.md"))


def heatmap_template():
    """The heatmap's template content, filled in the language being built."""
    from .strings import as_json  # noqa: PLC0415

    return HEATMAP_TEMPLATE.html(strings=as_json("heatmap"))

DRAWN_STEPS = ("Q", "K", "V", "weights", "entropy")  # the steps the interactive heatmap draws from (contract.py)
MAX_TOKENS = 64  # above this many queries or keys the interactive grid is too slow and too small to read (contract.py)


def embeddable(example):
    """Whether the interactive heatmap can draw `example` (a computed example): self-attention with the steps it
    reads, at most MAX_TOKENS tokens; heads, a batch or checkpoints on a leading axis."""
    steps = example.get("steps", {})
    if not all(name in steps for name in DRAWN_STEPS) or "key_tokens" in example:
        return False
    q, k = np.asarray(steps["Q"], dtype=float), np.asarray(steps["K"], dtype=float)
    if q.ndim not in (2, 3) or q.shape[:-1] != k.shape[:-1] or q.shape[-2] > MAX_TOKENS:
        return False
    if q.ndim == 3 and not any(key in example for key in ("n_heads", "batch_tokens", "checkpoints")):
        return False
    return bool(np.isfinite(np.asarray(steps["weights"], dtype=float)).all())


def snippet(example_id, url):
    """The <iframe> a reader copies: `url` is the embed page's address."""
    title = WORDS.line("embed-iframe-title", id=example_id)
    return (f'<iframe src="{url}" title="{title}" width="100%" '
            'height="640" style="border:0" loading="lazy"></iframe>')


def caption(example):
    """The embed page's caption: what its static figure shows (the first grid of a leading axis). A leading axis
    with captions of its own (a training run's checkpoints) gives its first, as the interactive heatmap shows it."""
    built = example.get("leading_axis", {}).get("captions", {}).get("weights")
    if built:
        return built[0]
    if "n_heads" in example:
        return WORDS.line("embed-caption/head", head=1)
    if "batch_tokens" in example:
        return WORDS.line("embed-caption/sequence")
    if "checkpoints" in example:
        return WORDS.line("embed-caption/step", step=str(example["checkpoints"][0]))
    return WORDS.line("embed-caption")


def embed_page(example, permalink, figure):
    """The HTML of embed/<id>/index.html for a computed example, its template (PAGE) filled; `figure`: its static
    <figure> fragment, caption first and table open (figures.example_weights_figure)."""
    example_id, title = example["id"], example["title"]
    note_input(MKDOCS)  # the policy and the licence
    page = PAGE.html(
        policy=Filled(policy()), description=WORDS.line("embed-description", id=example_id, title=title),
        page_title=WORDS.line("embed-page-title", title=title, id=example_id), permalink=permalink, title=title,
        credit=WORDS.html("embed-credit", one_line=True, permalink=permalink, id=example_id, licence=licence()),
        json=WORDS.html("embed-json", one_line=True, id=example_id),
        figure=Filled(figure.rstrip("\n") + f'\n<template id="aih-heatmap">\n{heatmap_template()}</template>'))
    # The template's links climb from embed/<id>/ to the site's root ("../../"); a language's embed pages sit a
    # folder deeper (zh/embed/<id>/), and its files are the root's (the scripts, the styles, the examples' JSON).
    deeper = language_folder().count("/")
    if not deeper:
        return page
    page = page.replace('<html lang="en">', f'<html lang="{language()}">', 1)  # the template's, for English
    return page.replace('="../../', '="' + "../" * (2 + deeper))
