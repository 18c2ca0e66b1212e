"""Every page carries a strict Content-Security-Policy, and injected code does not run (that every page runs clean
under its policy is checked in test_every_page.py)."""
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from playwright.sync_api import Error

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">')


def site_pages():
    pages = sorted(p for p in SITE.rglob("*.html") if "assets" not in p.relative_to(SITE).parts)
    return [p.relative_to(SITE).as_posix() for p in pages]


def policy_of(html):
    found = META.findall(html)
    assert len(found) == 1, "exactly one CSP <meta> tag"
    return dict((d.split()[0], d.split()[1:]) for d in found[0].split("; "))


def test_every_page_has_a_strict_policy_before_any_script():
    pages = site_pages()
    assert "404.html" in pages and "demo/index.html" in pages
    for name in pages:
        html = (SITE / name).read_text(encoding="utf-8")
        policy = policy_of(html)
        script_src = policy["script-src"]
        assert script_src[0] == "'self'" and all(s.startswith("'sha256-") for s in script_src[1:]), (name, script_src)
        assert policy["default-src"] == ["'self'"] and policy["object-src"] == ["'none'"], name
        assert policy["base-uri"] == ["'self'"] and policy["connect-src"] == ["'self'"], name
        assert "'unsafe-eval'" not in str(policy) and "*" not in str(policy), name
        assert html.index("Content-Security-Policy") < html.index("<script"), f"{name}: a script comes before the policy"
        inline = [b for a, b in re.findall(r"<script(?![^>]*\bsrc=)([^>]*)>(.*?)</script>", html, re.S) if "json" not in a]
        assert len(script_src) - 1 == len(set(inline)), f"{name}: one hash per distinct inline script"


class Resources(HTMLParser):
    """The page's stylesheet <link>s, script files and preload hints, in order, each with whether it comes
    after the policy <meta>."""

    def __init__(self):
        super().__init__()
        self.after_policy = False
        self.found = []  # (after_policy, kind, url)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.after_policy = True
        elif tag == "link" and a.get("rel") in ("stylesheet", "preload", "modulepreload"):
            kind = {"stylesheet": "style", "modulepreload": "module"}.get(a["rel"], a.get("as"))
            self.found.append((self.after_policy, ("hint " if "preload" in a["rel"] else "") + kind, a["href"]))
        elif tag == "script" and a.get("src"):
            self.found.append((self.after_policy, "module" if a.get("type") == "module" else "script", a["src"]))


def test_every_file_after_the_policy_is_asked_for_before_it():
    """Chromium's preload scanner stops at a policy <meta> (finish/policy.py): each stylesheet and script after it
    has a hint of the right kind before it, and nothing else is hinted. Not the embed pages: their two
    stylesheets and one script come right after the policy, in a short <head>, so nothing waits."""
    for name in (name for name in site_pages() if not re.match(r"(zh/)?embed/", name)):  # either language's
        parser = Resources()
        parser.feed((SITE / name).read_text(encoding="utf-8"))
        hinted = [(after, kind.removeprefix("hint "), url) for after, kind, url in parser.found
                  if kind.startswith("hint ")]
        assert not any(after for after, _, _ in hinted), f"{name}: a hint after the policy"
        hints = [(kind, url) for _, kind, url in hinted]
        files = [(kind, url) for after, kind, url in parser.found if after and not kind.startswith("hint ")]
        assert hints == files, f"{name}: hints {hints} for the files {files}"
        if name == "index.html":  # the theme's bundle and our one module are among them
            assert any(kind == "script" and url.startswith("assets/javascripts/bundle.") for kind, url in files), files
            assert ("module", "javascripts/site.js") in files, files


def test_the_browser_takes_each_file_from_its_hint(page, site_url):
    """Each stylesheet and script of the page is requested once, the stylesheets and the theme's bundle as
    preloads: a hint of the wrong kind would not be used, and its file would be requested a second time."""
    requests = []
    cdp = page.context.new_cdp_session(page)
    cdp.on("Network.requestWillBeSent", lambda e: requests.append((e["request"]["url"].rsplit("/", 1)[-1],
                                                                    e["request"].get("isLinkPreload", False))))
    cdp.send("Network.enable")
    page.goto(site_url + "softmax/", wait_until="load")
    parser = Resources()
    parser.feed((SITE / "softmax" / "index.html").read_text(encoding="utf-8"))
    in_page = {url.rsplit("/", 1)[-1] for after, kind, url in parser.found if after}
    ours = [(name, preload) for name, preload in requests if name in in_page]
    assert sorted(name for name, _ in ours) == sorted(in_page), f"not each file requested once: {ours}"
    # A module's hint (modulepreload) is not a preload to the network log: a wrong one shows as a second request.
    assert [name for name, preload in ours if not preload] == ["site.js"], ours


def test_our_javascript_writes_no_markup_and_evaluates_no_strings():
    forbidden = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setTimeout\(\s*[\"'`]")
    files = sorted((ROOT / "docs").rglob("*.js"))
    assert files
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            assert not forbidden.search(line), f"{f.relative_to(ROOT)}:{n}: {line.strip()}"


def test_injected_inline_script_and_eval_are_blocked(browser, site_url):
    context = browser.new_context()
    page = context.new_page()
    messages = []
    page.on("console", lambda m: messages.append(m.text))
    page.goto(site_url + "demo/", wait_until="networkidle")
    result = page.evaluate(
        """() => {
            const events = [];
            document.addEventListener("securitypolicyviolation", (e) => events.push(e.violatedDirective));
            const s = document.createElement("script");
            s.textContent = "window.__injected = true";
            document.body.append(s);
            const img = document.createElement("img");
            img.setAttribute("onerror", "window.__handler = true");
            img.src = "data:,";
            document.body.append(img);
            return new Promise((done) => setTimeout(() => done({
                injected: window.__injected === true, handler: window.__handler === true, events,
            }), 200));
        }"""
    )
    # Playwright evaluates a string predicate with eval() inside the page: the policy refuses it
    with pytest.raises(Error, match="unsafe-eval"):
        page.wait_for_function("window.__never === true", timeout=2000)
    context.close()
    assert result["injected"] is False and result["handler"] is False
    assert "script-src-elem" in result["events"] or "script-src" in result["events"]
    assert any("Content Security Policy" in m for m in messages)
