"""Every page carries a strict Content-Security-Policy and runs clean under it; injected code does not run."""
import re
from pathlib import Path

import pytest
from playwright.sync_api import Error, expect
from conftest import reveal_heatmaps

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


def test_our_javascript_writes_no_markup_and_evaluates_no_strings():
    forbidden = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setTimeout\(\s*[\"'`]")
    files = sorted((ROOT / "docs").rglob("*.js"))
    assert files
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            assert not forbidden.search(line), f"{f.relative_to(ROOT)}:{n}: {line.strip()}"


@pytest.mark.parametrize("path", [p.removesuffix("index.html") for p in site_pages() if p.endswith("index.html")])
def test_page_runs_clean_under_the_policy(page, site_url, path):
    """The `page` fixture fails on any console error, and a CSP violation is one; the heatmaps still work."""
    violations = []
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    page.goto(site_url + path, wait_until="networkidle")
    reveal_heatmaps(page)
    expect(page.locator("figure.aih-heatmap[data-example]:not(.aih-on):not(.aih-merged)")).to_have_count(0)
    if not path.startswith("embed/"):  # an embed page is the heatmap alone, without the theme (engine/embed.py)
        assert page.evaluate("typeof document$") == "object", "Material's own scripts ran"
    assert not violations


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
