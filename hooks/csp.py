"""Fill in the Content-Security-Policy of overrides/main.html: the sha256 of each inline script on the page.

The page template writes a few small inline scripts (the theme's storage helpers; overrides/'s light/dark
toggle and its early change of <html>'s classes); one of them holds the page's relative base URL, so the
hashes differ from page to page and are computed here, from the final HTML. Only the template's scripts are
hashed: an inline script in a page's content is an error, and so is a page without the policy's placeholder.
"""
import base64
import hashlib
import re

from mkdocs.exceptions import PluginError

PLACEHOLDER = "'aih-inline-script-hashes'"
# <script> elements without src; data blocks (type="application/json") are never executed, so need no hash.
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)([^>]*)>(.*?)</script>", re.S)
DATA_BLOCK = re.compile(r"""\btype=["']?application/(?:ld\+)?json""")


def script_hashes(html):
    """The CSP source expressions ('sha256-…') of every inline script in `html`, sorted and unique."""
    hashes = set()
    for attributes, body in INLINE_SCRIPT.findall(html):
        if DATA_BLOCK.search(attributes):
            continue
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii")
        hashes.add(f"'sha256-{digest}'")
    return sorted(hashes)


def fill_policy(html, name):
    if html.count(PLACEHOLDER) != 1:
        raise PluginError(f"csp hook: {name} does not carry the Content-Security-Policy of overrides/main.html")
    article = re.search(r"<article\b.*?</article>", html, re.S)
    if article and script_hashes(article.group(0)):
        raise PluginError(f"csp hook: {name} has an inline <script> in its content; put it in docs/javascripts/")
    return html.replace(PLACEHOLDER, " ".join(script_hashes(html)))


def on_post_page(output, page, config):
    return fill_policy(output, page.file.src_uri)


def on_post_template(output_content, template_name, config):
    if template_name.endswith(".html"):  # 404.html; sitemap.xml has no scripts
        return fill_policy(output_content, template_name)
    return output_content
