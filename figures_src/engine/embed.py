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
the credit and the licence inside a short <iframe>.
"""
from html import escape

import numpy as np

from .inputs import note_input
from .site import MKDOCS, licence, policy

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
    return (f'<iframe src="{url}" title="Attention Is a Heatmap: worked example {example_id}" width="100%" '
            'height="640" style="border:0" loading="lazy"></iframe>')


def caption(example):
    """The embed page's caption: what its static figure shows (the first grid of a leading axis). A leading axis
    with captions of its own (a training run's checkpoints) gives its first, as the interactive heatmap shows it."""
    built = example.get("leading_axis", {}).get("captions", {}).get("weights")
    if built:
        return built[0]
    first = (" of head 1" if "n_heads" in example else " of the first sequence" if "batch_tokens" in example
             else f" at step {example['checkpoints'][0]}" if "checkpoints" in example else "")
    return f"The attention weights{first} of this worked example: one row per query, one column per key."


def embed_page(example, permalink, figure):
    """The HTML of embed/<id>/index.html for a computed example; `figure`: its static <figure> fragment, caption
    first and table open (figures.example_weights_figure)."""
    example_id, title = escape(example["id"]), escape(example["title"])
    figure = figure.rstrip("\n")
    note_input(MKDOCS)  # the policy and the licence
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{policy()}">
<meta name="description" content="The interactive attention heatmap of worked example {example_id}, {title}, from Attention Is a Heatmap.">
<meta name="robots" content="noindex">
<title>{title} ({example_id}) · Attention Is a Heatmap</title>
<link rel="canonical" href="{escape(permalink)}">
<link rel="icon" href="../../assets/images/favicon.png">
<link rel="stylesheet" href="../../widgets/heatmap/embed.css">
<link rel="stylesheet" href="../../widgets/heatmap/heatmap.css">
<script type="module" src="../../widgets/heatmap/embed.js"></script>
</head>
<body>
<main class="md-typeset">
<h1 class="aih-embed-title">{title}</h1>
<p class="aih-embed-credit"><a href="{escape(permalink)}" target="_blank" rel="noopener">Worked example <code>{example_id}</code> of <em>Attention Is a Heatmap</em></a> · {licence()}</p>
<p class="aih-embed-json">Every number, with far more digits: <a href="../../examples/{example_id}.json"><code>{example_id}.json</code></a></p>
{figure}
</main>
</body>
</html>
"""
