"""The HTTP API of ``hollywood play`` (experiments/play): whole matches played through it with
no hidden card in any response, bad requests refused without a change, persistence across a
server restart, the knock button, daily / replay / numbered matches, hints and stats.

Hidden cards are computed here independently of the server: a core State of our own replays the
actions of the match's log file (what the server wrote to disk) and says, after every response,
which cards the person may not see (docs/rules.md section 2).
"""

from __future__ import annotations

import datetime as dt
import json
import re

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the play extra is not installed (pip install -e '.[play]')")
pytest.importorskip("httpx", reason="starlette's TestClient needs httpx (pip install -e '.[play-test]')")

import warnings  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from experiments.play.server import PlayService, create_app  # noqa: E402
from hollywood_env import core  # noqa: E402
from hollywood_env.actions import DRAW_STOCK, KNOCK  # noqa: E402
from hollywood_env.cards import format_card, mask_to_cards, parse_card  # noqa: E402
from hollywood_env.reference import min_deadwood  # noqa: E402  (brute force: independent of the fast path)
from hollywood_env.rules import Rules  # noqa: E402
from hollywood_env.scoresheet import Scoresheet  # noqa: E402

CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][cdhs])(?![A-Za-z0-9])")
FIXED_DAY = dt.date(2026, 3, 14)


def make_client(tmp_path, rules="hollywood", opponent="hollywood", seed=0):
    service = PlayService(tmp_path, opponent=opponent, rules=rules, seed=seed, today=FIXED_DAY)
    return TestClient(create_app(service)), service


class Referee:
    """Our own replay of a match's log file: which cards are hidden from the person now."""

    def __init__(self, log_path):
        self.path = log_path
        self.log = json.loads(log_path.read_text())
        self.state = core.init(1, Rules.from_dict(self.log["rules"]), seed=self.log["seed"])
        self.applied = 0
        self.hands_ended = 0
        self.end_hidden: set[int] | None = None

    def sync(self) -> dict:
        self.log = json.loads(self.path.read_text())
        st = self.state
        for seat, a in self.log["actions"][self.applied:]:
            assert int(st.current_player[0]) == seat
            stock = set(st.deck[0, st.stock_pos[0]:].astype(int).tolist())
            core.step(st, np.array([a]))
            self.end_hidden = None
            if st.hand_ended[0]:
                self.hands_ended += 1
                self.end_hidden = set(stock)
                if st.hand_kind[0] == 5:  # wall: nobody lays down
                    self.end_hidden |= set(mask_to_cards(int(st.ended_hands[0, 1])))
                elif seat == 1 and a < DRAW_STOCK:
                    self.end_hidden.add(a % KNOCK)  # the agent's knock discard, face down
        self.applied = len(self.log["actions"])
        return self.log

    def hidden(self) -> set[int]:
        st = self.state
        showing_end = self.end_hidden is not None and (self.hands_ended > self.log["hands_acknowledged"] or st.done[0])
        if showing_end:
            return self.end_hidden
        stock = set(st.deck[0, st.stock_pos[0]:].astype(int).tolist())
        return stock | (set(mask_to_cards(int(st.hands[0, 1]))) - set(mask_to_cards(int(st.known[0, 1]))))


def check_view(view: dict, ref: Referee) -> None:
    """No hidden card anywhere in ``view``; what the view shows agrees with our replay."""
    ref.sync()
    text = json.dumps(view)
    shown = {parse_card(t) for t in CARD_TOKEN.findall(text)}
    leaked = shown & ref.hidden()
    assert not leaked, f"hidden cards in a response: {[format_card(c) for c in leaked]} ({view['status']})"
    st = ref.state
    assert view["version"] == len(ref.log["actions"]) + ref.log["hands_acknowledged"]
    if view["status"] == "playing":
        t = view["table"]
        mine = sorted(parse_card(c["card"]) for c in t["hand"])
        assert mine == mask_to_cards(int(st.hands[0, 0]))  # the person's own hand is there
        assert t["opponent"]["cards"] == len(mask_to_cards(int(st.hands[0, 1])))
        assert sorted(parse_card(c) for c in t["opponent"]["known"]) == mask_to_cards(int(st.known[0, 1]))
        assert t["stock"]["cards"] == int(st.stock_size[0])
        mask = st.legal_action_mask[0]
        knocks = [c for c in range(52) if mask[KNOCK + c]]
        # the Knock button shows exactly when a knock is legal; it reads Gin exactly when a
        # discard leaves no deadwood
        assert (t["knock_button"] is not None) == bool(knocks)
        if knocks:
            hand = mask_to_cards(int(st.hands[0, 0]))
            gin = any(min_deadwood([x for x in hand if x != c]) == 0 for c in knocks)
            assert t["knock_button"] == ("Gin" if gin else "Knock")
        assert sorted(parse_card(c) for c in t["legal"]["knock"]) == knocks
        assert t["legal"]["draw_stock"] == bool(mask[DRAW_STOCK])
        deadwood = min_deadwood(mask_to_cards(int(st.hands[0, 0])))
        assert t["deadwood"] == deadwood


def human_move(view: dict, rng: np.random.Generator) -> dict:
    """A person who knocks as soon as they can (gin first) and otherwise plays at random."""
    t = view["table"]
    legal = t["legal"]
    if legal["big_gin"]:
        return {"type": "big_gin"}
    if legal["knock"]:
        best = min(t["hand"], key=lambda c: (c["deadwood_after_discard"] if c["card"] in legal["knock"] else 999))
        return {"type": "knock", "card": best["card"]}
    if legal["discard"]:
        return {"type": "discard", "card": str(rng.choice(legal["discard"]))}
    options = [k for k in ("draw_stock", "take_discard", "pass") if legal[k]]
    return {"type": str(rng.choice(options))}


def play_match(client, view, rng, ref, max_requests=3000):
    kinds = set()
    for _ in range(max_requests):
        check_view(view, ref)
        mid = view["match_id"]
        if view["status"] == "match_over":
            kinds.add(view["result"]["kind"])
            return view, kinds
        if view["status"] == "hand_over":
            kinds.add(view["result"]["kind"])
            r = client.post(f"/api/matches/{mid}/next", json={"version": view["version"]})
        else:
            r = client.post(f"/api/matches/{mid}/move", json={"version": view["version"], "move": human_move(view, rng)})
        assert r.status_code == 200, r.text
        view = r.json()
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("preset,seed", [("hollywood", 11), ("gin-rummy", 5), ("oklahoma", 3), ("hollywood-nordic", 8)])
def test_whole_matches_leak_no_hidden_card(tmp_path, preset, seed):
    client, service = make_client(tmp_path, rules=preset)
    view = client.post("/api/matches", json={"seed": seed}).json()
    ref = Referee(service.store.path(view["match_id"]))
    rng = np.random.default_rng(seed)
    view, kinds = play_match(client, view, rng, ref)
    assert view["status"] == "match_over"
    assert view["scoresheet"]["match_over"] and view["scoresheet"]["match_winner"] in ("you", "opponent", "draw")
    log = ref.sync()
    assert log["status"] == "finished" and log["result"] is not None
    # the scoresheet agrees with the reference scoresheet fed the logged hand results
    sheet = Scoresheet(Rules.from_dict(log["rules"]))
    for h in log["hands"]:
        if h["kind"] != "wall":
            sheet.record(h["winner"], h["points"])
    assert view["scoresheet"]["totals"] == [sheet.total(0), sheet.total(1)]
    assert log["result"]["margin"] == sheet.total(0) - sheet.total(1)
    assert len(log["hands"]) == ref.hands_ended and kinds
    for h in log["hands"]:
        assert h["explanation"] and h["kind"] in ("knock", "gin", "undercut", "big_gin", "wall")


@pytest.mark.parametrize("changes,seed,must_see", [
    (dict(big_gin=True, target=60), 4, None),
    (dict(straight_gin=True, target=60), 1, "wall"),  # only gin ends a hand: walls, where nothing is laid down
])
def test_custom_rules_play_through_without_leaks(tmp_path, changes, seed, must_see):
    rules = Rules.preset("gin-rummy-simple").replace(**changes)
    client, service = make_client(tmp_path, rules=rules)
    view = client.post("/api/matches", json={"seed": seed}).json()
    ref = Referee(service.store.path(view["match_id"]))
    view, kinds = play_match(client, view, np.random.default_rng(0), ref)
    assert view["status"] == "match_over"
    assert len(view["scoresheet"]["games"]) == 1
    if must_see:
        assert must_see in kinds


def _snapshot(client, service, mid):
    return client.get(f"/api/matches/{mid}").json(), service.store.path(mid).read_bytes()


def _advance_to(client, view, rng, want):
    """Play on until ``want(view)``."""
    for _ in range(500):
        if want(view):
            return view
        mid = view["match_id"]
        if view["status"] == "hand_over":
            view = client.post(f"/api/matches/{mid}/next", json={"version": view["version"]}).json()
        else:
            view = client.post(f"/api/matches/{mid}/move", json={"version": view["version"],
                                                                  "move": human_move(view, rng)}).json()
    raise AssertionError("position not reached")


def test_bad_requests_are_4xx_with_a_message_and_change_nothing(tmp_path):
    client, service = make_client(tmp_path)
    view = client.post("/api/matches", json={"seed": 21}).json()
    mid, v = view["match_id"], view["version"]
    rng = np.random.default_rng(1)
    view = _advance_to(client, view, rng, lambda x: x["status"] == "playing" and x["table"]["phase"] == "draw")
    mid, v = view["match_id"], view["version"]
    held = [c["card"] for c in view["table"]["hand"]]
    not_held = next(format_card(c) for c in range(52) if format_card(c) not in held)
    bad = [
        (client.post(f"/api/matches/{mid}/move", content=b"{not json"), 400, "malformed JSON"),
        (client.post(f"/api/matches/{mid}/move", json=[1, 2]), 400, "must be an object"),
        (client.post(f"/api/matches/{mid}/move", json={"version": v}), 400, "needs \"move\""),
        (client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": "fly"}}), 400, "unknown move type"),
        (client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": "discard", "card": "Zz"}}), 400,
         "bad card"),
        (client.post(f"/api/matches/{mid}/move", json={"version": "x", "move": {"type": "draw_stock"}}), 400, "version"),
        (client.post(f"/api/matches/{mid}/move", json={"version": v - 1, "move": {"type": "draw_stock"}}), 409, "stale"),
        (client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": "discard", "card": held[0]}}), 422,
         "draw first"),
        (client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": "pass"}}), 422, "passing is only"),
        (client.post(f"/api/matches/{mid}/next", json={"version": v}), 422, "still being played"),
        (client.post("/api/matches/nope/move", json={"version": v, "move": {"type": "draw_stock"}}), 404,
         "unknown match id"),
        (client.get("/api/matches/.hidden"), 404, "unknown match id"),
        (client.post("/api/matches", json={"seed": -3}), 400, "seed"),
        (client.post("/api/matches", json={"daily": "yes"}), 400, "daily"),
        (client.post(f"/api/matches/{mid}/hint", json={"agent": "ppo:/etc/passwd"}), 400, "unknown hint agent"),
    ]
    before = _snapshot(client, service, mid)
    for r, status, words in bad:
        assert r.status_code == status, (r.status_code, r.text)
        assert words.lower() in r.json()["error"].lower(), r.json()
        assert _snapshot(client, service, mid) == before
    # after a draw: the card just taken from the pile cannot go back; a card not held cannot go;
    # a knock above the limit is refused with the deadwood it would leave
    view = client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": "take_discard"}}).json()
    taken = next(c for c in view["table"]["hand"] if c["just_drawn"])
    assert taken["locked"] and "forbid" in view["table"]["locked_reason"]
    v = view["version"]
    before = _snapshot(client, service, mid)
    r = client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": "discard", "card": taken["card"]}})
    assert r.status_code == 422 and "forbid discarding it" in r.json()["error"]
    r = client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": "discard", "card": not_held}})
    assert r.status_code == 422 and "not in your hand" in r.json()["error"]
    r = client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": "draw_stock"}})
    assert r.status_code == 422 and "drawn already" in r.json()["error"]
    too_high = [c for c in view["table"]["hand"] if c["deadwood_after_discard"] is not None
                and c["deadwood_after_discard"] > view["table"]["knock_limit"] and not c["locked"]]
    if too_high:
        r = client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": "knock", "card": too_high[0]["card"]}})
        assert r.status_code == 422 and "above the knock limit" in r.json()["error"]
    assert _snapshot(client, service, mid) == before
    # the taken card can go once the turn comes round again; another card can go now
    other = next(c["card"] for c in view["table"]["hand"] if not c["locked"])
    r = client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": "discard", "card": other}})
    assert r.status_code == 200 and r.json()["version"] > v


def test_match_survives_a_server_restart_and_plays_on_identically(tmp_path):
    """A restarted server (a new service on the same folder) serves the same match, and the
    rest of the match is what it would have been without the restart."""
    script_rng_seed = 3

    def play(restart_after):
        folder = tmp_path / f"restart{restart_after}"
        client, service = make_client(folder)
        view = client.post("/api/matches", json={"seed": 77}).json()
        rng = np.random.default_rng(script_rng_seed)
        for i in range(400):
            if view["status"] == "match_over":
                break
            if i == restart_after:
                before = view
                client, service = make_client(folder)  # the server restarts
                view = client.get("/api/matches/current").json()
                assert view == {**before, "events": []}
            mid = view["match_id"]
            if view["status"] == "hand_over":
                view = client.post(f"/api/matches/{mid}/next", json={"version": view["version"]}).json()
            else:
                view = client.post(f"/api/matches/{mid}/move", json={"version": view["version"],
                                                                      "move": human_move(view, rng)}).json()
        return json.loads(service.store.path(view["match_id"]).read_text())

    plain, restarted = play(-1), play(25)
    assert restarted["actions"] == plain["actions"]
    assert restarted["hands"] == plain["hands"]
    assert restarted["result"] == plain["result"]


def test_new_match_abandons_the_unfinished_one_and_stats_count_it(tmp_path):
    client, service = make_client(tmp_path)
    first = client.post("/api/matches", json={"seed": 1}).json()
    assert client.get("/api/matches/current").json()["match_id"] == first["match_id"]
    second = client.post("/api/matches", json={"seed": 2}).json()
    assert second["match_id"] != first["match_id"]
    assert client.get(f"/api/matches/{first['match_id']}").json()["status"] == "abandoned"
    log = json.loads(service.store.path(first["match_id"]).read_text())
    assert log["status"] == "abandoned"
    r = client.post(f"/api/matches/{first['match_id']}/move", json={"version": first["version"],
                                                                   "move": {"type": "pass"}})
    assert r.status_code == 400 and "abandoned" in r.json()["error"]
    stats = client.get("/api/stats").json()["by_opponent"]
    assert stats[0]["abandoned"] == 1 and stats[0]["finished"] == 0 and stats[0]["in_progress"] == 1


def test_numbered_daily_and_replayed_matches_deal_the_same_cards(tmp_path):
    client, service = make_client(tmp_path)
    a = client.post("/api/matches", json={"seed": 4242}).json()
    b = client.post(f"/api/matches/{a['match_id']}/replay").json()
    assert b["seed"] == 4242 and b["kind"] == "replay" and b["match_id"] != a["match_id"]
    assert a["table"]["hand"] == b["table"]["hand"] and a["table"]["pile"] == b["table"]["pile"]
    daily = client.post("/api/matches", json={"daily": True}).json()
    assert daily["seed"] == 20260314 and daily["kind"] == "daily"
    assert client.get("/api/config").json()["daily_seed"] == 20260314
    # another server (another person) gets the same daily deal
    other, _ = make_client(tmp_path / "other")
    assert other.post("/api/matches", json={"daily": True}).json()["table"]["hand"] == daily["table"]["hand"]
    # a new match without a number gets one from the service's seeded generator
    c1 = make_client(tmp_path / "c1", seed=9)[0].post("/api/matches", json={}).json()
    c2 = make_client(tmp_path / "c2", seed=9)[0].post("/api/matches", json={}).json()
    assert c1["seed"] == c2["seed"]


def test_hint_names_a_legal_move_of_the_chosen_agent(tmp_path):
    client, service = make_client(tmp_path)
    view = client.post("/api/matches", json={"seed": 31}).json()
    rng = np.random.default_rng(2)
    seen = set()
    for _ in range(80):
        if view["status"] == "match_over":
            break
        if view["status"] == "hand_over":
            view = client.post(f"/api/matches/{view['match_id']}/next", json={"version": view["version"]}).json()
            continue
        for agent in service.hint_agents:
            h = client.post(f"/api/matches/{view['match_id']}/hint", json={"agent": agent}).json()
            t = view["table"]
            m = h["move"]
            seen.add(h["target"])
            if m["type"] in ("discard", "knock"):
                assert m["card"] in t["legal"][m["type"]] and h["card"] == m["card"]
            else:
                assert t["legal"][m["type"]]
            assert h["can_knock"] == bool(t["legal"]["knock"])
            if h["can_knock"] and not h["knock"]:
                assert "You can knock" in h["message"]
        view = client.post(f"/api/matches/{view['match_id']}/move",
                           json={"version": view["version"], "move": human_move(view, rng)}).json()
    assert {"stock", "card"} <= seen or {"pile", "card"} <= seen


def test_page_and_assets_are_served_locally(tmp_path):
    client, _ = make_client(tmp_path)
    page = client.get("/")
    assert page.status_code == 200 and "<script src=\"/static/app.js\">" in page.text
    for asset in ("/static/app.js", "/static/style.css"):
        r = client.get(asset)
        assert r.status_code == 200 and len(r.text) > 1000
    # nothing is fetched from elsewhere: no absolute URL in the page or its assets
    for path in ("/", "/static/app.js", "/static/style.css"):
        assert not re.search(r"https?://", client.get(path).text), path
    assert client.get("/static/missing.js").status_code == 404
