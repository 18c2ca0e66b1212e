"""Write the Content-Security-Policy into every page overrides/main.html renders: the site's one policy
(mkdocs.yml's extra.content_security_policy, which the embed pages carry as it is) with the sha256 of each
inline script on the page added to its script-src.

The page template writes a few small inline scripts (the theme's storage helpers; overrides/'s light/dark
toggle and its early change of <html>'s classes); one of them holds the page's relative base URL, so the
hashes differ from page to page and are computed here, from the final HTML. Only the template's scripts are
hashed: a page's content (its Markdown, rendered, with every snippet it includes) holding `<script` in any form
(`<SCRIPT>`, `<script >`) is an error, and so is a page without the policy's placeholder.

Chromium's preload scanner, which finds a page's stylesheets and scripts while the HTML is still arriving,
stops at a policy <meta>: everything after it is requested only when the parser reaches it, the theme's
bundle and our site.js at the very end of the page (at 4x CPU, 0.5-1.4 s after the HTML arrived; 0.1-0.25 s
with the hints). So the job also writes, just before the policy, a preload hint for each stylesheet and
script that comes after it: the same files, requested at once.
"""
import base64
import hashlib
import re

from .site import PLACEHOLDER, FinishError, article

SCRIPT_SRC = "script-src 'self'"
# <script> elements without src; data blocks (type="application/json") are never executed, so need no hash.
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)([^>]*)>(.*?)</script>", re.S)
DATA_BLOCK = re.compile(r"""\btype=["']?application/(?:ld\+)?json""")
POLICY = re.compile(r'<meta http-equiv="Content-Security-Policy"')
# Any script element in a page's content, however it is written: the HTML parser reads tag names case-blind and
# ends them at white space or "/" (`<script/src=…>` is a script too).
CONTENT_SCRIPT = re.compile(r"<script[\s/>]", re.I)
STYLESHEET = re.compile(r'<link rel="stylesheet" href="([^"]+)">')
SCRIPT_FILE = re.compile(r'<script\b([^>]*)\bsrc="([^"]+)"([^>]*)>')


def script_hashes(html):
    """The CSP source expressions ('sha256-…') of every inline script in `html`, sorted and unique."""
    hashes = set()
    for attributes, body in INLINE_SCRIPT.findall(html):
        if DATA_BLOCK.search(attributes):
            continue
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii")
        hashes.add(f"'sha256-{digest}'")
    return sorted(hashes)


def preload_hints(after_policy):
    """The <link>s that ask for every stylesheet and script file loaded in `after_policy` (a page's markup
    after its policy <meta>), in their order: rel=preload (as style or script), or rel=modulepreload for a
    module script."""
    hints = []
    for match in re.finditer(f"{STYLESHEET.pattern}|{SCRIPT_FILE.pattern}", after_policy):
        stylesheet, before_src, src, after_src = match.groups()
        if stylesheet:
            hints.append(f'<link rel="preload" href="{stylesheet}" as="style">')
        elif 'type="module"' in before_src + after_src:
            hints.append(f'<link rel="modulepreload" href="{src}">')
        else:
            hints.append(f'<link rel="preload" href="{src}" as="script">')
    return "".join(hints)


def refuse_scripts(content, name):
    """`content`, a page's own HTML (its Markdown rendered, snippets included), unless it holds a script element:
    the policy hashes the template's inline scripts, so one in the content would run."""
    found = CONTENT_SCRIPT.search(content)
    if found:
        line = content.count("\n", 0, found.start()) + 1
        raise FinishError(f"{name} has a <script> in its content ({found.group(0)!r} on line {line} of its "
                          "rendered HTML); put scripts in docs/javascripts/")
    return content


def fill_policy(html, name, site_policy):
    if html.count(PLACEHOLDER) != 1:
        raise FinishError(f"{name} does not carry the Content-Security-Policy of overrides/main.html")
    policy = site_policy.replace(SCRIPT_SRC, " ".join([SCRIPT_SRC, *script_hashes(html)]))
    html = html.replace(PLACEHOLDER, policy)
    policy = POLICY.search(html)
    return html[:policy.start()] + preload_hints(html[policy.end():]) + html[policy.start():]


def check_content(site):
    """Before the print edition copies every page's content into print/: a script is named on its own page."""
    for page in site.pages:
        refuse_scripts(article(page.html, page.name), page.name)


def run(site):
    for page in site.pages:
        page.update(fill_policy(page.html, page.name, site.policy))
