"""Where things are published: the site's address and a page's address within it."""
import os
import re

DEFAULT_SITE_URL = "http://127.0.0.1:8000/attention-heatmap/"  # the same default as mkdocs.yml
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # item names: lower case words joined by hyphens


def site_url():
    """The site's address, SITE_URL or mkdocs.yml's default, ending in a slash."""
    url = os.environ.get("SITE_URL") or DEFAULT_SITE_URL
    return url if url.endswith("/") else url + "/"


def page_path(page):
    """"scores.md" -> "scores/", "index.md" -> "": a page's path below the site's address."""
    return "" if page == "index.md" else page.removesuffix(".md") + "/"
