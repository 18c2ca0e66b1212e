"""Where things are published: the site's address and a page's address within it."""
import os
import re

# Without SITE_URL and REPO_URL, a build cites the published site: the GitHub Pages address of the default
# REPO_URL (both defaults are also mkdocs.yml's). `make serve` still serves on 127.0.0.1; only the address the
# pages cite is this one.
DEFAULT_REPO_URL = "https://github.com/attention-heatmap/attention-heatmap"
DEFAULT_SITE_URL = "https://attention-heatmap.github.io/attention-heatmap/"
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # item names: lower case words joined by hyphens


def site_url():
    """The site's address, SITE_URL or mkdocs.yml's default, ending in a slash."""
    url = os.environ.get("SITE_URL") or DEFAULT_SITE_URL
    return url if url.endswith("/") else url + "/"


def page_path(page):
    """"scores.md" -> "scores/", "index.md" -> "": a page's path below the site's address."""
    return "" if page == "index.md" else page.removesuffix(".md") + "/"
