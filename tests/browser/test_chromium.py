"""The Chromium the browser tests drive: started with the flags conftest.py gives it, and nothing lost on the way."""
import os
from pathlib import Path

from chromium import NO_BROWSER_UI


def chromium_command_lines():
    """The argv of each Chromium browser process this test process started (through Playwright's driver): the one
    that talks to Playwright over --remote-debugging-pipe."""
    parents, found = {}, []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[entry.name] = (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
            except OSError:
                continue
    me = str(os.getpid())
    for pid in parents:
        above = parents.get(pid)
        while above and above not in ("0", "1", me):
            above = parents.get(above)
        if above != me:
            continue
        try:
            argv = (Path("/proc") / pid / "cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if "--remote-debugging-pipe" in argv:
            found.append(argv)
    return found


def test_our_disable_features_keeps_every_feature_playwright_turns_off(browser):
    """Chromium keeps the last --disable-features of its command line: ours comes last, so it must name every
    feature Playwright's own (earlier) one does, or those would silently come back on."""
    found = chromium_command_lines()
    assert len(found) == 1, f"expected this worker's one Chromium: {found}"
    argv = found[0]
    lists = [arg.split("=", 1)[1].split(",") for arg in argv if arg.startswith("--disable-features=")]
    assert len(lists) >= 2, f"expected Playwright's --disable-features and ours: {lists}"
    *earlier, last = lists
    lost = sorted({name for names in earlier for name in names} - set(last))
    assert not lost, f"features Playwright turns off that ours would turn back on: {lost} (add them to PLAYWRIGHT_DISABLES)"
    assert set(NO_BROWSER_UI) <= set(last)


def test_a_new_context_opens_no_page_of_chromiums_own_ui(browser):
    """Each context is a window; with the address bar's popup turned off, a window loads no chrome:// page in the
    second after it opened (without the flags, chrome://omnibox-popup.top-chrome/ is there before the page's own
    about:blank has loaded)."""
    cdp = browser.new_browser_cdp_session()
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto("about:blank")
        ui = []
        for wait in (200, 200, 200, 200, 200, 0):
            ui = [t["url"] for t in cdp.send("Target.getTargets")["targetInfos"] if t["url"].startswith("chrome://")]
            if ui or not wait:
                break
            page.wait_for_timeout(wait)
    finally:
        context.close()
        cdp.detach()
    assert ui == []
