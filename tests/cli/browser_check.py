"""Whether the browser test of ``hollywood play`` (tests/cli/test_play_browser.py) can run here.

It needs Playwright for Python (the ``play-test`` extra) and a Chromium to drive: ``$HOLLYWOOD_CHROMIUM``,
else ``chromium`` / ``chromium-browser`` on the PATH (Debian: ``apt-get install -y chromium``;
``playwright install`` cannot download browsers on our machines). ``make test`` runs this file
first, so it says whether that test runs or is skipped, and why.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys


def find_chromium() -> str | None:
    """The Chromium executable to drive, or None."""
    env = os.environ.get("HOLLYWOOD_CHROMIUM")
    if env:
        return env if os.access(env, os.X_OK) else None
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def skip_reason() -> str | None:
    """Why the browser test cannot run here, or None when it can."""
    if importlib.util.find_spec("playwright") is None:
        return "Playwright is not installed (pip install -e '.[play,play-test]')"
    if importlib.util.find_spec("starlette") is None or importlib.util.find_spec("uvicorn") is None:
        return "the play extra is not installed (pip install -e '.[play]')"
    if find_chromium() is None:
        return "no chromium found (apt-get install -y chromium, or set HOLLYWOOD_CHROMIUM)"
    return None


if __name__ == "__main__":
    why = skip_reason()
    if why:
        print(f"note: the browser test of hollywood play (tests/cli/test_play_browser.py) will be SKIPPED: {why}")
    else:
        print(f"note: the browser test of hollywood play runs with {find_chromium()}")
    sys.exit(0)
