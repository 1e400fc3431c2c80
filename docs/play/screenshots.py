"""Regenerate the screenshots of ``hollywood play`` in docs/playing.md (needs the play extras
and chromium).

    .venv/bin/python docs/play/screenshots.py

Plays match #2718 against the hollywood bot through the API with a person who knocks as soon
as they can, opens the page in Chromium mid-match and saves ``table.png`` (the table, with the
scoresheet beside it), ``result.png`` (a hand's end) and ``scoresheet.png``, quantised to keep
them small.
"""

import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from PIL import Image
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from browser_check import find_chromium  # noqa: E402

from experiments.play.server import PlayService, create_app  # noqa: E402

OUT = Path(__file__).parent


def person(view):
    t = view["table"]
    legal = t["legal"]
    if legal["knock"]:
        return {"type": "knock", "card": min(legal["knock"], key=lambda c: next(
            x["deadwood_after_discard"] for x in t["hand"] if x["card"] == c))}
    if legal["discard"]:
        ok = [c for c in t["hand"] if c["card"] in legal["discard"]]
        return {"type": "discard", "card": min(ok, key=lambda c: (c["deadwood_after_discard"], c["card"]))["card"]}
    return {"type": "draw_stock" if legal["draw_stock"] else "pass"}


def main():
    service = PlayService(tempfile.mkdtemp(), opponent="hollywood", rules="hollywood", seed=0)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(create_app(service), log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    api = httpx.Client(base_url=url)
    v = api.post("/api/matches", json={"seed": 2718}).json()
    while len(v["history"]) < 4 or v["status"] != "playing" or v["table"]["phase"] != "discard":
        mid = v["match_id"]
        if v["status"] == "hand_over":
            v = api.post(f"/api/matches/{mid}/next", json={"version": v["version"]}).json()
        else:
            v = api.post(f"/api/matches/{mid}/move", json={"version": v["version"], "move": person(v)}).json()
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox"])
        page = b.new_page(viewport={"width": 1240, "height": 820})
        page.add_init_script("localStorage.setItem('hg.speed', '0')")
        page.goto(url + "/")
        page.wait_for_selector("#player-hand .card")
        page.screenshot(path=str(OUT / "table.png"))
        page.locator("#side").screenshot(path=str(OUT / "scoresheet.png"))
        while True:
            v = api.get("/api/matches/current").json()
            if v["status"] != "playing":
                break
            m = person(v)
            if m["type"] == "knock":
                page.click("#btn-knock")
            sel = {"draw_stock": "#stock", "pass": "#btn-pass"}.get(m["type"], f"#player-hand .card[data-card='{m.get('card')}']")
            page.click(sel)
            page.wait_for_function(f"document.body.dataset.version !== '{v['version']}'")
        page.locator("#result-dialog").screenshot(path=str(OUT / "result.png"))
        b.close()
    server.should_exit = True
    for name in ("table.png", "result.png", "scoresheet.png"):
        img = Image.open(OUT / name).convert("RGB").quantize(colors=96, method=Image.Quantize.MEDIANCUT)
        img.save(OUT / name, optimize=True)
        print(OUT / name, (OUT / name).stat().st_size // 1024, "KB")


if __name__ == "__main__":
    main()
