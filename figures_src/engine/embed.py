"""A worked example's embed page, embed/<id>/index.html: its interactive heatmap alone, for an <iframe> on
another site.

No theme chrome: the page is the heatmap (docs/javascripts/heatmap.js, started by docs/javascripts/embed.js),
the example's title, a link back to its permalink and the licence. It has the site's Content-Security-Policy
(overrides/main.html's, with no inline script to hash) and requests nothing from another host; embed.js takes
the heatmap's words from the site's own <template id="aih-heatmap"> (in every page Material renders: it reads
404.html), so the words are never copied. Without JavaScript the page says where the numbers are.

Everything the page paints before the heatmap is drawn (the title, the credit line, the caption) comes before the
heatmap's place, and nothing follows it: the panel, inserted once the example has loaded, grows the page
downwards and moves nothing already on screen (no layout shift). It also keeps the credit and the licence
inside a short <iframe>.
"""
from html import escape

import numpy as np

# overrides/main.html's policy; an embed page has no inline script, so nothing to hash (tests/test_downloads.py
# checks the two stay the same).
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
          "font-src 'self'; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'self'; "
          "form-action 'self'")
MAX_TOKENS = 64  # docs/javascripts/example-check.js's MAX_TOKENS
LICENCE = "Text and figures CC BY 4.0 · code MIT"  # mkdocs.yml's copyright


def embeddable(example):
    """Whether the interactive heatmap can draw `example` (a computed example): self-attention with the steps it
    reads, at most MAX_TOKENS tokens; heads, a batch or checkpoints on a leading axis."""
    steps = example.get("steps", {})
    if not all(name in steps for name in ("Q", "K", "V", "weights", "entropy")) or "key_tokens" in example:
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


def embed_page(example, permalink):
    """The HTML of embed/<id>/index.html for a computed example."""
    example_id, title = escape(example["id"]), escape(example["title"])
    head = ' data-head="0"' if "n_heads" in example else ""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{POLICY}">
<meta name="description" content="The interactive attention heatmap of worked example {example_id}, {title}, from Attention Is a Heatmap.">
<meta name="robots" content="noindex">
<title>{title} ({example_id}) · Attention Is a Heatmap</title>
<link rel="canonical" href="{escape(permalink)}">
<link rel="icon" href="../../assets/images/favicon.png">
<link rel="stylesheet" href="../../stylesheets/embed.css">
<link rel="stylesheet" href="../../stylesheets/heatmap.css">
<script type="module" src="../../javascripts/embed.js"></script>
</head>
<body>
<main class="md-typeset">
<h1 class="aih-embed-title">{title}</h1>
<p class="aih-embed-credit"><a href="{escape(permalink)}" target="_blank" rel="noopener">Worked example <code>{example_id}</code> of <em>Attention Is a Heatmap</em></a> · {LICENCE}</p>
<figure class="aih-figure aih-heatmap" id="fig-embed-{example_id}" data-example="{example_id}" data-quantity="weights"{head}>
<figcaption>The attention weights of worked example <code>{example_id}</code>.</figcaption>
<div class="aih-figure__graphic"><p class="aih-embed-static">The interactive heatmap needs JavaScript. The numbers are in <a href="../../examples/{example_id}.json"><code>{example_id}.json</code></a>.</p></div>
</figure>
</main>
</body>
</html>
"""
