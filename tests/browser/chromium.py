"""Which Chromium the browser tests (and the bench scripts) start, and with which flags. Its own module, read by
tests/browser/conftest.py: a build-free test checks chromium_executable without importing the conftest, which lists
the built site's pages as it is imported.
"""
import os
import shutil

import pytest

# The features Playwright (1.65) turns off when it starts Chromium. Chromium keeps only the last --disable-features
# it is given, so the one below carries these as well as its own (test_chromium.py checks that none is lost).
PLAYWRIGHT_DISABLES = [
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying",
    "AimEnabled", "PreconnectToSearch", "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
]
# In the new headless mode each browser context is a window of its own, and each window loaded the address bar's
# popup, a page of Chromium's own UI (chrome://omnibox-popup.top-chrome/): about 0.9 CPU s in the second after a
# context opened, nearly twice what the test's own page cost. The suite opens a few hundred contexts.
NO_BROWSER_UI = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLES + NO_BROWSER_UI),
]


def chromium_executable():
    """$CHROMIUM, else `chromium` on the PATH, else None (Playwright's own). A $CHROMIUM that is not an executable
    file ends the session with one line naming it, not a Playwright traceback per test."""
    chosen = os.environ.get("CHROMIUM")
    if chosen and not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
        pytest.exit(f"CHROMIUM={chosen} is not an executable file: set CHROMIUM to Chromium's path "
                    "(Debian: /usr/bin/chromium)", returncode=4)
    return chosen or shutil.which("chromium") or None
