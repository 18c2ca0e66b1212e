"""`make pdf`: site/attention-is-a-heatmap.pdf from the print edition (site/print/), printed by the headless
Chromium the browser tests use, through the site's print stylesheet (docs/stylesheets/print.css).

The site is served on 127.0.0.1 for the print (a page loaded from file:// may not load its module scripts);
nothing is requested from another host. Needs the built site (make site) and playwright (the test set-up).
Usage: python scripts/make_pdf.py [SITE_DIR] [OUTPUT]
"""
import functools
import http.server
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PDF_NAME = "attention-is-a-heatmap.pdf"
FOOTER = ('<div style="width:100%;font-size:8px;color:#555;text-align:center;font-family:sans-serif">'
          'Attention Is a Heatmap · <span class="pageNumber"></span> / <span class="totalPages"></span></div>')


# docs/cite.md's link to the PDF, hidden and without its address until the PDF exists: a site built without
# `make pdf` (a local build, another host) would link to a file that is not there. show_pdf_link shows it once the
# PDF is written, with its address from the page's folder (both engines agree on that; Zensical rewrites an
# address written in the Markdown's HTML as if it were relative to the Markdown file).
HIDDEN_LINK = '<span class="aih-pdf-link" hidden>'
SHOWN_LINK = '<span class="aih-pdf-link">'
UNSET_ADDRESS = "<a data-pdf>"


def show_pdf_link(site):
    """The PDF is in the site now: show the link to it on every page that carries it hidden (cite/, and its
    copy in print/). Returns those pages."""
    if not (site / PDF_NAME).is_file():
        raise FileNotFoundError(f"{site / PDF_NAME} does not exist: no link to show")
    shown = []
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        if HIDDEN_LINK in text:
            up = "../" * (len(page.relative_to(site).parts) - 1)
            text = text.replace(UNSET_ADDRESS, f'<a href="{up}{PDF_NAME}">')
            page.write_text(text.replace(HIDDEN_LINK, SHOWN_LINK), encoding="utf-8")
            shown.append(page)
    if not shown:
        raise ValueError(f"no page in {site} carries the hidden link to {PDF_NAME} ({HIDDEN_LINK})")
    return shown


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _pages(pdf):
    """The number of sheets in a PDF Chromium wrote (its page objects; no PDF library needed)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf.read_bytes()))


def chromium():
    """The Chromium to print with: $CHROMIUM, else `chromium` on the PATH, else None (Playwright's own). A $CHROMIUM
    that is not an executable file stops here, in one line naming it."""
    chosen = os.environ.get("CHROMIUM")
    if chosen and not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
        sys.exit(f"CHROMIUM={chosen} is not an executable file: set CHROMIUM to Chromium's path (Debian: /usr/bin/chromium)")
    return chosen or shutil.which("chromium") or None


def make_pdf(site, output):
    from playwright.sync_api import Error as PlaywrightError  # noqa: PLC0415
    from playwright.sync_api import sync_playwright  # noqa: PLC0415

    if not (site / "print" / "index.html").is_file():
        sys.exit(f"{site}/print/index.html does not exist: build the site first (make site)")
    executable = chromium()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"http://127.0.0.1:{server.server_address[1]}/"
    foreign = []
    tmp = output.with_name(f".{output.name}.tmp")
    try:
        with sync_playwright() as p:
            try:
                browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
            except PlaywrightError as exc:
                sys.exit(f"Chromium ({executable or 'Playwright’s own'}) did not start: {str(exc).splitlines()[0]}; "
                         "set CHROMIUM to Chromium's path")
            page = browser.new_page()
            page.on("request", lambda r: r.url.startswith(("http:", "https:")) and not r.url.startswith(address)
                    and foreign.append(r.url))
            page.goto(address + "print/", wait_until="networkidle")
            page.emulate_media(media="print")
            # every image decoded and every font loaded before printing (a 2.7 MB page takes a while to settle)
            page.wait_for_function("document.fonts.status === 'loaded' && [...document.images].every(i => i.complete)")
            sections = page.locator("section.aih-print-page").count()
            output.parent.mkdir(parents=True, exist_ok=True)
            for attempt in range(3):  # on a loaded machine Chromium once printed only the first sheets: check, retry
                page.pdf(path=str(tmp), format="A4", print_background=True, display_header_footer=True,
                         header_template="<div></div>", footer_template=FOOTER,
                         margin={"top": "14mm", "bottom": "16mm", "left": "14mm", "right": "14mm"})
                if _pages(tmp) >= 3 * sections:  # every page of the site fills several sheets
                    break
                print(f"the PDF has {_pages(tmp)} sheets for {sections} pages: printing again", file=sys.stderr)
            else:
                sys.exit(f"Chromium printed only {_pages(tmp)} sheets for {sections} pages")
            browser.close()
        if foreign:
            sys.exit(f"the print edition requested other hosts: {foreign[:5]}")
        tmp.replace(output)
    finally:  # whatever stopped the print, no partial PDF stays beside the site
        tmp.unlink(missing_ok=True)
        server.shutdown()


def main(argv):
    site = Path(argv[0]) if argv else ROOT / "site"
    output = Path(argv[1]) if len(argv) > 1 else site / PDF_NAME
    start = time.perf_counter()
    make_pdf(site, output)
    print(f"wrote {output} ({output.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - start:.1f} s")
    if output.resolve() == (site / PDF_NAME).resolve():  # the one the pages link to
        pages = show_pdf_link(site)
        print(f"showed the link to it on {', '.join(str(page.relative_to(site)) for page in pages)}")


if __name__ == "__main__":
    main(sys.argv[1:])
