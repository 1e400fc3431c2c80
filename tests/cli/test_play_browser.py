"""A real browser plays a hand of ``hollywood play`` by clicking (Playwright driving Chromium).

The server runs in a thread on 127.0.0.1 (a free port, a temporary data folder); the test
clicks the page like a person and reads the server's view through the API to check the page:

* the first draw takes the discard; clicking the card just taken is refused with the rule's
  reason, and nothing changes (the hand still holds 11 cards, the match's version is the same);
* at every one of the person's turns the Knock button is shown exactly when a knock is legal,
  and reads Gin exactly when the server says gin is possible; when it shows, the test presses it
  and clicks the card, which ends the hand; otherwise it discards (once with the keyboard);
* the hand's end shows the result dialog with the explanation and both hands (after a knock),
  and after Next hand the scoresheet shows the points;
* screenshots of the table, the result and the scoresheet are saved (``$HOLLYWOOD_SCREENSHOTS``,
  else the test's temporary folder) and are non-empty PNGs;
* on a phone (390 x 844 CSS px, touch) the page never scrolls sideways, every card of both hands
  lies within the screen, and taps draw and discard (``HOLLYWOOD_UPDATE_DOCS_SCREENSHOTS=1`` also
  refreshes ``docs/play/phone.png``).

Skipped, with the reason, where Playwright, the play extra or a Chromium is missing
(``tests/cli/browser_check.py``; ``make test`` prints which). Bounded: every wait times out after
15 s and the hand after 80 of the person's moves.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from browser_check import find_chromium, skip_reason  # noqa: E402

_why = skip_reason()
pytestmark = pytest.mark.skipif(_why is not None, reason=f"browser test skipped: {_why}")

WAIT_MS = 15_000


@pytest.fixture
def live_server(tmp_path):
    import httpx
    import uvicorn

    from experiments.play.server import PlayService, create_app

    service = PlayService(tmp_path / "data", opponent="hollywood", rules="hollywood", seed=5)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(service), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    with httpx.Client(base_url=url, timeout=10) as api:
        yield url, api, service
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


def _shots_dir(tmp_path) -> Path:
    d = Path(os.environ.get("HOLLYWOOD_SCREENSHOTS") or tmp_path / "shots")
    d.mkdir(parents=True, exist_ok=True)
    return d


def _open_page(page, url: str) -> list[str]:
    """Load the play page in ``page`` with animations off; returns the list its page errors go to."""
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script("localStorage.setItem('hg.speed', '0')")  # no animation delays
    page.goto(url + "/")
    page.wait_for_selector("body[data-version]")
    return errors


def _current_view(api) -> dict:
    r = api.get("/api/matches/current")
    assert r.status_code == 200, r.text
    return r.json()


def _wait_version_after(page, old) -> None:
    page.wait_for_function(f"document.body.dataset.version !== '{old}'", timeout=WAIT_MS)


def test_a_hand_played_by_clicking(live_server, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    url, api, service = live_server
    shots = _shots_dir(tmp_path)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            errors = _open_page(page, url)

            def view():
                return _current_view(api)

            def wait_version_after(old):
                _wait_version_after(page, old)

            v = view()
            assert v["status"] == "playing" and v["table"]["to_move"] == "you"
            page.screenshot(path=str(shots / "table_start.png"))

            took_from_pile = keyboard_used = knocked = False
            table_shot = False
            discard_turns = 0
            for _ in range(80):
                v = view()
                assert page.evaluate("document.body.dataset.version") == str(v["version"])
                if v["status"] != "playing":
                    break
                t = v["table"]
                knock_button = page.locator("#btn-knock")
                if t["phase"] != "discard":
                    expect(knock_button).to_be_hidden()
                if t["phase"] in ("first_upcard", "draw") and not took_from_pile:
                    page.click("#pile")                        # take the upcard / the discard
                    wait_version_after(v["version"])
                    v2 = view()
                    taken = next(c["card"] for c in v2["table"]["hand"] if c["just_drawn"])
                    assert v2["table"]["hand"][0] and any(c["locked"] for c in v2["table"]["hand"])
                    page.click(f"#player-hand .card[data-card='{taken}']")   # not allowed back
                    expect(page.locator("#message")).to_contain_text("forbid discarding it")
                    expect(page.locator("#message")).to_have_class("error")
                    assert page.locator("#player-hand .card").count() == 11
                    assert view()["version"] == v2["version"]
                    took_from_pile = True
                    continue
                if t["phase"] == "first_upcard":
                    page.click("#btn-pass")
                elif t["phase"] == "draw":
                    if not keyboard_used:
                        page.keyboard.press("s")                # draw from the stock by keyboard
                        keyboard_used = True
                    else:
                        page.click("#stock")
                else:
                    discard_turns += 1
                    # the Knock button: shown exactly when a knock is legal, reading Gin for gin
                    if t["legal"]["knock"]:
                        expect(knock_button).to_be_visible()
                        expect(knock_button).to_have_text("Gin" if t["legal"]["gin"] else "Knock")
                        if not table_shot:
                            page.screenshot(path=str(shots / "table.png"))
                            table_shot = True
                        knock_button.click()
                        best = min(t["legal"]["knock"], key=lambda c: next(
                            x["deadwood_after_discard"] for x in t["hand"] if x["card"] == c))
                        page.click(f"#player-hand .card[data-card='{best}']")
                        knocked = True
                    else:
                        expect(knock_button).to_be_hidden()
                        discards = [c for c in t["hand"] if c["card"] in t["legal"]["discard"]]
                        best = min(discards, key=lambda c: (c["deadwood_after_discard"], c["card"]))
                        if not table_shot and discard_turns >= 3:
                            page.screenshot(path=str(shots / "table.png"))
                            table_shot = True
                        page.click(f"#player-hand .card[data-card='{best['card']}']")
                wait_version_after(v["version"])
            else:
                pytest.fail("the hand did not end within 80 moves")

            # the hand's end: the result dialog explains it
            v = view()
            assert v["status"] in ("hand_over", "match_over")
            dialog = page.locator("#result-dialog")
            expect(dialog).to_be_visible()
            expect(page.locator("#result-title")).to_contain_text("Hand 1")
            text = page.locator("#result-text").inner_text()
            assert str(v["result"]["points"]) in text and len(text) > 30
            if v["result"]["kind"] != "wall":
                assert page.locator("#result-hands .result-side").count() == 2
                assert page.locator("#result-hands .group.meld .card").count() >= 3
            dialog.screenshot(path=str(shots / "result.png"))
            if knocked:
                assert v["result"]["knocker"] == "you"
            if v["status"] == "hand_over":
                page.keyboard.press("Enter")                    # next hand by keyboard
                wait_version_after(v["version"])
                expect(dialog).to_be_hidden()
            sheet = page.locator("#scoresheet")
            if v["result"]["kind"] != "wall":
                winner_row = 1 if v["result"]["winner"] == "you" else 2
                cell = sheet.locator("table.sheet tr").nth(winner_row).locator("td").nth(1)
                expect(cell).to_contain_text(str(v["result"]["points"]))
            page.locator("#side").screenshot(path=str(shots / "scoresheet.png"))
            assert not errors, errors
        finally:
            browser.close()
    for name in ("table_start.png", "table.png", "result.png", "scoresheet.png"):
        data = (shots / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name


PHONE_W, PHONE_H = 390, 844
DOCS_PHONE_SHOT = Path(__file__).resolve().parents[2] / "docs" / "play" / "phone.png"


def test_a_hand_played_by_tapping_on_a_phone(live_server, tmp_path):
    """At 390 x 844 CSS px with touch, the page never scrolls sideways and the whole hand is on
    screen (at the start, after drawing, at 11 cards in the discard phase, at the hand's end),
    and taps play the hand. Saves ``phone.png`` (11 cards, discard phase) to the screenshots
    folder, and to docs/play/ with ``HOLLYWOOD_UPDATE_DOCS_SCREENSHOTS=1``."""
    from playwright.sync_api import expect, sync_playwright

    url, api, service = live_server
    shots = _shots_dir(tmp_path)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox"])
        try:
            context = browser.new_context(viewport={"width": PHONE_W, "height": PHONE_H},
                                          has_touch=True, is_mobile=True, device_scale_factor=2)
            page = context.new_page()
            errors = _open_page(page, url)

            def view():
                return _current_view(api)

            def wait_version_after(old):
                _wait_version_after(page, old)

            def assert_fits(when):
                # a mobile browser widens its layout viewport to fit wider content, so the
                # width is checked against the phone's 390 px as well as against innerWidth
                m = page.evaluate("""() => ({
                    scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
                    cards: [...document.querySelectorAll('#player-hand .card, #opponent-hand .card')]
                        .map(e => { const r = e.getBoundingClientRect();
                                    return [e.dataset.card || 'back', r.left, r.right]; })})""")
                assert m["inner"] == PHONE_W, (when, m["inner"])
                assert m["scroll"] <= m["inner"], (when, "scrolls sideways", m["scroll"])
                off = [c for c in m["cards"] if c[1] < 0 or c[2] > PHONE_W]
                assert not off, (when, "cards off screen", off)

            v = view()
            assert v["status"] == "playing" and v["table"]["to_move"] == "you"
            assert_fits("start")
            tapped_draw = tapped_discard = phone_shot = False
            for _ in range(80):
                v = view()
                assert page.evaluate("document.body.dataset.version") == str(v["version"])
                if v["status"] != "playing":
                    break
                t = v["table"]
                if t["phase"] == "first_upcard":
                    page.locator("#pile").tap()                 # take the upcard by a tap
                    tapped_draw = True
                elif t["phase"] == "draw":
                    page.locator("#stock").tap()
                    tapped_draw = True
                else:
                    assert page.locator("#player-hand .card").count() == 11
                    assert_fits("discard phase, 11 cards")
                    if not phone_shot:
                        page.screenshot(path=str(shots / "phone.png"))
                        phone_shot = True
                    if t["legal"]["knock"]:
                        page.locator("#btn-knock").tap()
                        card = min(t["legal"]["knock"], key=lambda c: next(
                            x["deadwood_after_discard"] for x in t["hand"] if x["card"] == c))
                    else:
                        ok = [c for c in t["hand"] if c["card"] in t["legal"]["discard"]]
                        card = min(ok, key=lambda c: (c["deadwood_after_discard"], c["card"]))["card"]
                    page.locator(f"#player-hand .card[data-card='{card}']").tap()
                    tapped_discard = True
                wait_version_after(v["version"])
                v2 = view()
                assert v2["version"] != v["version"]               # the tap moved the game on
                if v2["status"] == "playing" and v2["table"]["to_move"] == "you":
                    assert_fits(f"after a tap in phase {t['phase']}")
            else:
                pytest.fail("the hand did not end within 80 moves")
            assert tapped_draw and tapped_discard and phone_shot

            v = view()
            assert v["status"] in ("hand_over", "match_over")
            dialog = page.locator("#result-dialog")
            expect(dialog).to_be_visible()
            box = dialog.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE_W, box
            assert_fits("hand over")
            assert not errors, errors
        finally:
            browser.close()
    data = (shots / "phone.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    if os.environ.get("HOLLYWOOD_UPDATE_DOCS_SCREENSHOTS") == "1":  # the docs copy, only when asked
        from PIL import Image

        img = Image.open(shots / "phone.png").convert("RGB")
        img.quantize(colors=96, method=Image.Quantize.MEDIANCUT).save(DOCS_PHONE_SHOT, optimize=True)
