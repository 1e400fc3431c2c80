"""Stateful (Hypothesis ``RuleBasedStateMachine``) tests of the HTTP API of ``hollywood play``
(the Starlette app of experiments/play/server.py through its test client): random sequences of
legal moves, illegal and malformed requests, stale versions, unknown and odd match ids, hints,
replays, new matches that abandon the unfinished one, and server restarts, checked against the
module docstrings of experiments/play/server.py and game.py:

* no request is answered 5xx: every refusal is a 4xx JSON ``{"error": message}`` (400 malformed,
  404 unknown, 405 wrong method, 409 stale, 422 illegal), and a refused request changes nothing
  (every match's view and every log file byte for byte);
* a move is accepted exactly when the view's ``table.legal`` lists it; the table agrees with the
  game (the cards, counts and legal moves of an independent replay of the log), 52 cards are
  accounted for;
* no response shows a hidden card: our replay of the match's log says which cards the person
  may not see (the stock, the agent's unrevealed cards, after a wall the agent's hand, its knock
  discard) and which it may (what it saw this hand, what the hand's end revealed);
* statuses and versions follow the model (playing / hand_over / match_over / abandoned), the
  stats count the matches, and a restarted server serves the same views.

Fast settings (a low target, a high knock limit or an early wall; ``derandomize=True``, no
example database): deterministic, a few seconds. ``-m slow`` runs a heavier profile.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the play extra is not installed (pip install -e '.[play]')")
pytest.importorskip("httpx", reason="starlette's TestClient needs httpx (pip install -e '.[play-test]')")

import warnings  # noqa: E402

from helpers import stateful_settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.stateful import (  # noqa: E402
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

# the play app, imported as tests/cli/test_play_api.py does (the one place to change if it moves)
from experiments.play.server import PlayService, create_app  # noqa: E402
from hollywood_env import core  # noqa: E402
from hollywood_env.actions import DRAW_STOCK, KIND_WALL, KNOCK  # noqa: E402
from hollywood_env.cards import format_card, mask_to_cards, parse_card  # noqa: E402
from hollywood_env.reference import min_deadwood  # noqa: E402  (brute force: independent of the fast path)
from hollywood_env.rules import Rules  # noqa: E402

#: the logs go to a RAM folder where there is one: the server fsyncs every write (8 ms on a disk here)
RAM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][cdhs])(?![A-Za-z0-9])")
FIXED_DAY = dt.date(2026, 3, 14)
MAX_SEED = 2**31 - 1
CARDS = [format_card(c) for c in range(52)]
MOVE_TYPES = ("draw_stock", "take_discard", "pass", "big_gin", "discard", "knock")

#: matches of a few short hands (high knock limits, early walls, low targets); one and three
#: columns, Oklahoma, big gin, straight gin, the taken-card rule off
FAST_RULES = (
    Rules.preset("gin-rummy-simple").replace(target=40, knock_limit=40, wall_stock_size=20),
    Rules.preset("hollywood").replace(target=25, knock_limit=30, wall_stock_size=14),
    Rules.preset("oklahoma").replace(target=30, wall_stock_size=22),
    Rules.preset("gin-rummy").replace(target=30, knock_limit=25, big_gin=True, forbid_discard_of_taken_card=False),
    Rules.preset("straight-gin").replace(target=10, columns=1, wall_stock_size=24),
)
RULES_IDS = ("gin-rummy-simple", "hollywood", "oklahoma", "gin-rummy+big_gin", "straight-gin")

#: match ids that name no match (a long one, dotted ones, characters a file name may not hold)
ODD_IDS = ("nope", "a" * 300, ".hidden", "..", "a%00b", "a%5Cb", "%C3%A9", "current")

#: request bodies that are not the JSON object the API reads
BAD_BODIES = {"not JSON": b"{not json", "an array": b"[1, 2]", "a string": b'"text"', "null": b"null",
              "not UTF-8": b"\xff\xfe", "nested too deep": b"[" * 50_000,
              "an integer of 5000 digits": b'{"version": 1' + b"0" * 5000 + b"}"}


#: new-match bodies the API refuses (400)
BAD_NEW_MATCH = ({"seed": -1}, {"seed": MAX_SEED + 1}, {"seed": "5"}, {"seed": 1.5}, {"seed": True}, {"seed": [1]},
                 {"seed": 2**70}, {"daily": "yes"}, {"daily": 1}, {"daily": None})

#: routes that are not there, or not for that method
ODD_ROUTES = ("/api/matches", "/api/matches/{mid}/move", "/api/matches/{mid}/next", "/api/matches/{mid}/hint",
              "/api/matches/{mid}/replay", "/api/nothing", "/api/matches/{mid}/nothing")


def card_set(codes) -> set[int]:
    return {parse_card(c) for c in codes}


class Referee:
    """Our own replay of a match's log file (what the server wrote, and a restart reads): which
    cards the person may see now, and which never."""

    def __init__(self, path: Path):
        self.path = path
        self.log = json.loads(path.read_text())
        self.state = core.init(1, Rules.from_dict(self.log["rules"]), seed=self.log["seed"])
        self.applied = 0
        self.hands_ended = 0
        self.end: tuple[set, set] | None = None  # (hidden, may see) while the last ended hand is shown
        self.seen = self._table_cards()        # what the person saw of the hand being played

    def _table_cards(self) -> set[int]:
        st_ = self.state
        return (set(mask_to_cards(int(st_.hands[0, 0]))) | {int(c) for c in st_.pile[0, :int(st_.pile_size[0])]}
                | set(mask_to_cards(int(st_.known[0, 1]))))

    def sync(self) -> dict:
        self.log = json.loads(self.path.read_text())
        st_ = self.state
        for seat, a in self.log["actions"][self.applied:]:
            assert not st_.done[0] and int(st_.current_player[0]) == seat and st_.legal_action_mask[0, a], \
                f"the log holds an action the game did not allow: {[seat, a]}"
            stock = {int(c) for c in st_.deck[0, int(st_.stock_pos[0]):]}
            agent_known = set(mask_to_cards(int(st_.known[0, 1])))
            core.step(st_, np.array([a]))
            if st_.hand_ended[0]:
                self.hands_ended += 1
                hidden = set(stock)
                revealed = set(mask_to_cards(int(st_.ended_hands[0, 0])))
                agent_hand = set(mask_to_cards(int(st_.ended_hands[0, 1])))
                if int(st_.hand_kind[0]) == KIND_WALL:
                    hidden |= agent_hand - agent_known  # nobody lays down
                else:
                    revealed |= agent_hand
                if seat == 1 and KNOCK <= a < DRAW_STOCK:
                    hidden.add(a - KNOCK)  # the agent's knock discard stays face down
                elif a < KNOCK:
                    revealed.add(a)  # the discard that met the wall, face up
                self.end = (hidden, (self.seen | revealed) - hidden)
                self.seen = self._table_cards()  # the next deal (if the match goes on)
            else:
                self.end = None
                self.seen |= self._table_cards()
        self.applied = len(self.log["actions"])
        return self.log

    def showing_end(self) -> bool:
        return self.end is not None and (self.hands_ended > self.log["hands_acknowledged"] or bool(self.state.done[0]))

    def hidden(self) -> set[int]:
        if self.showing_end():
            return self.end[0]
        st_ = self.state
        stock = {int(c) for c in st_.deck[0, int(st_.stock_pos[0]):]}
        return stock | (set(mask_to_cards(int(st_.hands[0, 1]))) - set(mask_to_cards(int(st_.known[0, 1]))))

    def may_see(self) -> set[int]:
        return self.end[1] if self.showing_end() else self.seen


def check_no_hidden_card(payload, ref: Referee, what: str) -> None:
    text = json.dumps(payload)
    shown = {parse_card(t) for t in CARD_TOKEN.findall(text)}
    leaked = shown & ref.hidden()
    assert not leaked, f"hidden cards in {what}: {sorted(format_card(c) for c in leaked)}"
    extra = shown - ref.may_see()
    assert not extra, f"cards the person never saw in {what}: {sorted(format_card(c) for c in extra)}"


def legal_moves(table: dict) -> list[dict]:
    legal = table["legal"]
    moves = [{"type": t} for t in ("draw_stock", "take_discard", "pass", "big_gin") if legal[t]]
    moves += [{"type": "discard", "card": c} for c in legal["discard"]]
    moves += [{"type": "knock", "card": c} for c in legal["knock"]]
    return moves


def greedy_move(table: dict, pick: int) -> dict:
    """Big gin, else the knock leaving least deadwood, else the lowest discard; draws by ``pick``."""
    legal = table["legal"]
    if legal["big_gin"]:
        return {"type": "big_gin"}
    after = {c["card"]: c["deadwood_after_discard"] for c in table["hand"]}
    if legal["knock"]:
        return {"type": "knock", "card": min(legal["knock"], key=lambda c: (after[c], c))}
    if legal["discard"]:
        return {"type": "discard", "card": min(legal["discard"], key=lambda c: (after[c], c))}
    moves = legal_moves(table)
    return moves[pick % len(moves)]


class PlayAPIMachine(RuleBasedStateMachine):
    """A play server and its client, driven by random requests; the model knows each match's
    expected status and version."""

    def __init__(self):
        super().__init__()
        self.stack = contextlib.ExitStack()
        self.folder: Path | None = None

    RULES = FAST_RULES[0]  # each test runs a subclass per rules set (machine_for)

    @initialize(opponent=st.sampled_from(["simple", "hollywood", "random"]),
                service_seed=st.integers(0, 2**16), first_seed=st.none() | st.integers(0, MAX_SEED))
    def build(self, opponent, service_seed, first_seed):
        self.folder = Path(tempfile.mkdtemp(prefix="play-stateful-", dir=RAM_DIR))
        self.stack.callback(shutil.rmtree, self.folder, ignore_errors=True)
        self.make = dict(opponent=opponent, rules=self.RULES, seed=service_seed, today=FIXED_DAY)
        self._start_server()
        self.matches: list[str] = []           # match ids, oldest first
        self.refs: dict[str, Referee] = {}
        self.abandoned: set[str] = set()
        self.acknowledged: dict[str, int] = {}
        self.views: dict[str, dict] = {}       # the last view each match was answered with
        if first_seed is not None:  # most examples start with a match (else: requests with none yet)
            self.new_match("seed", first_seed)

    def _start_server(self):
        self.service = PlayService(self.folder, **self.make)
        self.client = self.stack.enter_context(TestClient(create_app(self.service), raise_server_exceptions=False))

    def teardown(self):
        self.stack.close()

    # --- the model --------------------------------------------------------------------------------
    @property
    def latest(self) -> str | None:
        return self.matches[-1] if self.matches else None

    def expected_status(self, mid: str) -> str:
        ref = self.refs[mid]
        if mid in self.abandoned:
            return "abandoned"
        if ref.state.done[0]:
            return "match_over"
        return "hand_over" if ref.hands_ended > self.acknowledged[mid] else "playing"

    def in_progress(self, mid: str) -> bool:
        return self.expected_status(mid) in ("playing", "hand_over")

    def target_id(self, which: str, odd: str) -> str:
        if which == "latest" and self.matches:
            return self.latest
        if which == "older" and self.matches:
            return self.matches[max(0, len(self.matches) - 2)]
        return odd

    def version(self, mid: str) -> int:
        log = self.refs[mid].sync()
        return len(log["actions"]) + log["hands_acknowledged"]

    def snapshot(self) -> dict:
        """Everything a refused request must leave alone: each log file and each match's view."""
        files = {p.name: p.read_bytes() for p in sorted(self.service.store.logs_dir.iterdir())}
        views = {mid: self.service.get(mid).view() for mid in self.matches}
        return {"files": files, "views": views}

    # --- requests ---------------------------------------------------------------------------------
    def request(self, method: str, path: str, **kw):
        r = self.client.request(method, path, **kw)
        assert r.status_code < 500, f"{method} {path} {kw}: {r.status_code} {r.text[:300]}"
        assert r.headers["content-type"].startswith("application/json"), r.headers
        body = r.json()
        if r.status_code >= 400:
            assert set(body) == {"error"} and isinstance(body["error"], str) and body["error"].strip(), body
        return r.status_code, body

    def refused(self, method: str, path: str, statuses: set[int], **kw):
        """The request is answered with one of ``statuses`` and changes nothing."""
        before = self.snapshot()
        status, body = self.request(method, path, **kw)
        assert status in statuses, f"{method} {path} {kw}: expected one of {sorted(statuses)}, got {status} {body}"
        assert self.snapshot() == before, f"a refused request changed something: {method} {path} {kw} -> {body}"
        return body

    def accepted_view(self, mid: str, view: dict, version_before: int | None = None):
        """A 200 view: the model's status and version, the table agrees with the game, no hidden card."""
        ref = self.refs[mid]
        log = ref.sync()
        assert view["match_id"] == mid and view["status"] == self.expected_status(mid), (view["status"], mid)
        assert log["hands_acknowledged"] == self.acknowledged[mid]
        assert view["version"] == len(log["actions"]) + log["hands_acknowledged"]
        if version_before is not None:
            assert view["version"] > version_before
        self._check_table(view, ref)
        check_no_hidden_card(view, ref, f"the view of {mid} ({view['status']})")
        # our replay of the log is the server's game
        game = self.service.get(mid).state
        for name in ("hands", "deck", "stock_pos", "pile", "pile_size", "current_player"):
            assert np.array_equal(getattr(game, name), getattr(ref.state, name)), name
        self.views[mid] = view

    def _check_table(self, view: dict, ref: Referee):
        st_ = ref.state
        assert ("table" in view) == (view["status"] == "playing")
        assert ("result" in view) == (view["status"] in ("hand_over", "match_over") or
                                      (view["status"] == "abandoned" and ref.showing_end()))
        if view["status"] != "playing":
            return
        t = view["table"]
        hand, pile, known = card_set(c["card"] for c in t["hand"]), t["pile"]["cards"], card_set(t["opponent"]["known"])
        assert t["to_move"] == "you" and int(st_.current_player[0]) == 0
        assert hand == set(mask_to_cards(int(st_.hands[0, 0]))) and len(hand) == len(t["hand"])
        assert [parse_card(c) for c in pile] == [int(c) for c in st_.pile[0, :int(st_.pile_size[0])]]
        assert t["pile"]["top"] == (pile[-1] if pile else None)
        assert known == set(mask_to_cards(int(st_.known[0, 1])))
        assert t["opponent"]["cards"] == len(mask_to_cards(int(st_.hands[0, 1])))
        assert t["stock"]["cards"] == int(st_.stock_size[0])
        # the 52 cards: the person's, the agent's, the pile and the stock; no card twice
        assert len(hand) + t["opponent"]["cards"] + t["stock"]["cards"] + len(pile) == 52
        assert len(set(pile)) == len(pile) and not hand & card_set(pile) and not known & (hand | card_set(pile))
        # the legal moves are the game's, and agree with a brute-force deadwood count
        mask = st_.legal_action_mask[0]
        assert t["legal"]["draw_stock"] == bool(mask[DRAW_STOCK])
        assert card_set(t["legal"]["discard"]) == {c for c in range(52) if mask[c]}
        knocks = {c for c in range(52) if mask[KNOCK + c]}
        assert card_set(t["legal"]["knock"]) == knocks
        for c in hand:
            if t["phase"] == "discard" and c in card_set(t["legal"]["discard"]):
                assert (c in knocks) == (min_deadwood(sorted(hand - {c})) <= int(st_.knock_limit[0]))
        assert (t["knock_button"] is not None) == bool(knocks)
        assert t["deadwood"] == min_deadwood(sorted(hand))
        assert legal_moves(t), "the person is to move and has no legal move"

    def _new_match_accepted(self, view: dict, seed_expected=None, kind="new"):
        mid = view["match_id"]
        assert mid not in self.refs
        for old in self.matches:
            if self.in_progress(old):
                self.abandoned.add(old)
        self.matches.append(mid)
        self.refs[mid] = Referee(self.service.store.path(mid))
        self.acknowledged[mid] = 0
        assert view["kind"] == kind and 0 <= view["seed"] <= MAX_SEED
        if seed_expected is not None:
            assert view["seed"] == seed_expected
        self.accepted_view(mid, view)

    # --- rules: new matches -----------------------------------------------------------------------
    @rule(how=st.sampled_from(["seed", "seed", "service", "daily", "seed+daily=false"]), seed=st.integers(0, MAX_SEED))
    def new_match(self, how, seed):
        body = {"seed": {"seed": seed}, "service": {}, "daily": {"daily": True},
                "seed+daily=false": {"seed": seed, "daily": False}}[how]
        status, view = self.request("POST", "/api/matches", json=body)
        assert status == 200, view
        expected = {"seed": seed, "seed+daily=false": seed, "daily": 20260314}.get(how)
        self._new_match_accepted(view, expected, kind="daily" if how == "daily" else "new")
        assert self.request("GET", "/api/matches/current") == (200, self.views[view["match_id"]]) or \
            self.expected_status(view["match_id"]) == "match_over"

    @rule(which=st.sampled_from(["latest", "older", "odd"]), odd=st.sampled_from(ODD_IDS))
    def replay(self, which, odd):
        mid = self.target_id(which, odd)
        if mid not in self.refs:
            self.refused("POST", f"/api/matches/{mid}/replay", {404, 405} if mid == "current" else {404})
            return
        status, view = self.request("POST", f"/api/matches/{mid}/replay")
        assert status == 200, view
        self._new_match_accepted(view, self.refs[mid].log["seed"], kind="replay")

    # --- rules: playing ---------------------------------------------------------------------------
    @precondition(lambda self: self.matches and self.in_progress(self.latest))
    @rule(n=st.integers(1, 15), pick_seed=st.integers(0, 2**16))
    def play_greedy(self, n, pick_seed):
        """Up to ``n`` legal requests on the latest match, playing to end hands (knock, gin)."""
        self.play("greedy", n, pick_seed)

    @precondition(lambda self: self.matches and self.in_progress(self.latest))
    @rule(n=st.integers(1, 10), pick_seed=st.integers(0, 2**16))
    def play_random(self, n, pick_seed):
        """Up to ``n`` random legal requests on the latest match."""
        self.play("random", n, pick_seed)

    def play(self, policy, n, pick_seed):
        """Up to ``n`` legal requests on the latest match: a move listed in ``table.legal``, or
        leaving an ended hand's result."""
        picks = np.random.default_rng(pick_seed)
        mid = self.latest
        for _ in range(n):
            status = self.expected_status(mid)
            view = self.views[mid]
            v = self.version(mid)
            if status == "hand_over":
                code, new = self.request("POST", f"/api/matches/{mid}/next", json={"version": v})
                assert code == 200, new
                self.acknowledged[mid] = self.refs[mid].hands_ended
            elif status == "playing":
                moves = legal_moves(view["table"])
                pick = int(picks.integers(10**6))
                move = greedy_move(view["table"], pick) if policy == "greedy" else moves[pick % len(moves)]
                code, new = self.request("POST", f"/api/matches/{mid}/move", json={"version": v, "move": move})
                assert code == 200, (move, new)
            else:
                return
            self.accepted_view(mid, new, version_before=v)

    @rule(which=st.sampled_from(["latest", "latest", "latest", "older", "odd"]), odd=st.sampled_from(ODD_IDS),
          kind=st.sampled_from(MOVE_TYPES), card=st.sampled_from(CARDS),
          version=st.sampled_from(["current", "current", "current", "older", "newer", "text", None, True, 1.5]))
    def move(self, which, odd, kind, card, version):
        """Any well-formed move: accepted exactly when it is current, on a match being played,
        and a move the view lists as legal; otherwise the documented 4xx, and nothing changes."""
        move = {"type": kind, "card": card} if kind in ("discard", "knock") else {"type": kind}
        self.move_request(self.target_id(which, odd), {"move": move}, version)

    @rule(which=st.sampled_from(["latest", "latest", "older", "odd"]), odd=st.sampled_from(ODD_IDS),
          move=st.sampled_from([
              "missing", ["discard", "7h"], "draw_stock", None, {}, {"type": "fly"}, {"type": None}, {"type": 3},
              {"type": ["discard"]}, {"type": {"t": 1}}, {"type": "discard"}, {"type": "knock", "card": None},
              {"type": "discard", "card": 5}, {"type": "discard", "card": ["7h"]}, {"type": "discard", "card": "Zz"},
              {"type": "knock", "card": ""}, {"type": "discard", "card": "7h7h"}, {"type": "discard", "card": "10h"},
              {"type": "discard", "card": " 7H "}, {"type": "draw_stock", "card": "7h"}]),
          version=st.sampled_from(["current", "current", "older", "text"]))
    def move_malformed(self, which, odd, move, version):
        """Moves the API cannot read (400), and odd but readable ones ("10h", a card with a
        draw): the same prediction as for any move."""
        self.move_request(self.target_id(which, odd), {} if move == "missing" else {"move": move}, version)

    def move_request(self, mid: str, body: dict, version):
        known = mid in self.refs
        current = self.version(mid) if known else 0
        v = {"current": current, "older": current - 1, "newer": current + 1, "text": "1", None: None, True: True,
             1.5: 1.5}[version]
        if version is not None:
            body["version"] = v
        if not known:
            self.refused("POST", f"/api/matches/{mid}/move", {404, 405} if mid == "current" else {404}, json=body)
            return
        errors = set()
        if "move" not in body or not isinstance(v, int) or isinstance(v, bool):
            errors.add(400)
        elif v != current:
            errors.add(409)
        status = self.expected_status(mid)
        if status == "abandoned":
            errors.add(400)
        elif status != "playing":
            errors.add(422)
        m = body.get("move")
        if not isinstance(m, dict) or not isinstance(m.get("type"), str) or m["type"] not in MOVE_TYPES:
            errors.add(400)
        elif m["type"] in ("discard", "knock"):
            try:
                code = format_card(parse_card(m.get("card")))
            except (TypeError, ValueError):
                errors.add(400)
            else:
                if status == "playing" and code not in self.views[mid]["table"]["legal"][m["type"]]:
                    errors.add(422)
        elif status == "playing" and not self.views[mid]["table"]["legal"][m["type"]]:
            errors.add(422)
        if errors:
            self.refused("POST", f"/api/matches/{mid}/move", errors, json=body)
            return
        code, view = self.request("POST", f"/api/matches/{mid}/move", json=body)
        assert code == 200, (body, view)
        self.accepted_view(mid, view, version_before=current)

    @precondition(lambda self: self.matches and self.expected_status(self.latest) == "hand_over")
    @rule(how=st.sampled_from(["seed", "daily"]), seed=st.integers(0, MAX_SEED), then=st.sampled_from(["next", "move"]))
    def abandon_at_a_hands_end(self, how, seed, then):
        """A new match while a hand's result is shown abandons the match there: it goes no further."""
        old = self.latest
        self.new_match(how, seed)
        assert self.expected_status(old) == "abandoned"
        if then == "next":
            self.next_hand("older" if self.latest != old else "latest", "nope", "current")
        else:
            self.move_request(old, {"move": {"type": "draw_stock"}}, "current")

    @rule(which=st.sampled_from(["latest", "latest", "older", "odd"]), odd=st.sampled_from(ODD_IDS),
          version=st.sampled_from(["current", "current", "older", "text", None]))
    def next_hand(self, which, odd, version):
        mid = self.target_id(which, odd)
        known = mid in self.refs
        current = self.version(mid) if known else 0
        v = {"current": current, "older": current - 1, "text": "1", None: None}[version]
        body = {} if version is None else {"version": v}
        if not known:
            self.refused("POST", f"/api/matches/{mid}/next", {404, 405} if mid == "current" else {404}, json=body)
            return
        errors = set()
        if not isinstance(v, int):
            errors.add(400)
        elif v != current:
            errors.add(409)
        status = self.expected_status(mid)
        if status == "abandoned":
            errors |= {400, 422}  # an abandoned match goes no further
        elif status != "hand_over":
            errors.add(422)
        if errors:
            self.refused("POST", f"/api/matches/{mid}/next", errors, json=body)
            return
        code, view = self.request("POST", f"/api/matches/{mid}/next", json=body)
        assert code == 200, view
        self.acknowledged[mid] = self.refs[mid].hands_ended
        self.accepted_view(mid, view, version_before=current)

    @rule(which=st.sampled_from(["latest", "latest", "older", "odd"]), odd=st.sampled_from(ODD_IDS),
          agent=st.sampled_from(["simple", "hollywood", "neller", "random", None, "", "nope", "ppo:/etc/passwd", ["x"]]))
    def hint(self, which, odd, agent):
        """A hint changes nothing; it names a legal move of the person's, and no hidden card."""
        mid = self.target_id(which, odd)
        body = {} if agent is None else {"agent": agent}
        if mid not in self.refs:
            self.refused("POST", f"/api/matches/{mid}/hint", {404, 405} if mid == "current" else {404}, json=body)
            return
        errors = set()
        if agent not in (None, "") and agent not in self.service.hint_agents:
            errors.add(400)
        if self.expected_status(mid) != "playing":
            errors.add(422)
        if errors:
            self.refused("POST", f"/api/matches/{mid}/hint", errors, json=body)
            return
        before = self.snapshot()
        code, hint = self.request("POST", f"/api/matches/{mid}/hint", json=body)
        assert code == 200, hint
        assert self.snapshot() == before, "a hint changed the match"
        table = self.views[mid]["table"]
        assert hint["move"] in legal_moves(table), (hint, table["legal"])
        assert hint["agent"] == (agent or self.service.hint_agents[0])
        assert hint["can_knock"] == bool(table["legal"]["knock"])
        check_no_hidden_card(hint, self.refs[mid], "a hint")

    # --- rules: reading, odd requests, restarts ----------------------------------------------------
    @rule(which=st.sampled_from(["latest", "older", "odd", "current"]), odd=st.sampled_from(ODD_IDS))
    def get_match(self, which, odd):
        if which == "current":
            live = [m for m in self.matches if self.in_progress(m)]
            if not live:
                self.refused("GET", "/api/matches/current", {404})
                return
            status, view = self.request("GET", "/api/matches/current")
            assert status == 200 and view["match_id"] == live[-1], view
            self.accepted_view(live[-1], view)
            return
        mid = self.target_id(which, odd)
        if mid not in self.refs and mid != "current":
            self.refused("GET", f"/api/matches/{mid}", {404})
            return
        if mid in self.refs:
            status, view = self.request("GET", f"/api/matches/{mid}")
            assert status == 200, view
            self.accepted_view(mid, view)

    @rule()
    def config_and_stats(self):
        before = self.snapshot()
        status, config = self.request("GET", "/api/config")
        assert status == 200 and config["daily_seed"] == 20260314 and config["max_seed"] == MAX_SEED
        assert config["opponent"] == self.make["opponent"]
        status, stats = self.request("GET", "/api/stats")
        assert status == 200
        counts = {"finished": 0, "abandoned": 0, "in_progress": 0}
        for g in stats["by_opponent"]:
            for k in counts:
                counts[k] += g[k]
        expected = {"finished": 0, "abandoned": 0, "in_progress": 0}
        for mid in self.matches:
            s = self.expected_status(mid)
            expected["finished" if s == "match_over" else "abandoned" if s == "abandoned" else "in_progress"] += 1
        assert counts == expected, (counts, expected)
        assert self.snapshot() == before

    @rule(request=st.one_of(
        st.tuples(st.just("new match"), st.sampled_from(BAD_NEW_MATCH)),
        st.tuples(st.just("body"), st.sampled_from(sorted(BAD_BODIES)), st.sampled_from(["new", "move", "next", "hint"])),
        st.tuples(st.just("method"), st.sampled_from(["GET", "PUT", "DELETE", "PATCH"]), st.sampled_from(ODD_ROUTES))))
    def bad_request(self, request):
        """A new match with a bad seed or daily flag, a body that is no JSON object, a wrong
        method or path: 400 / 404 / 405, and nothing changes."""
        mid = self.latest or "nope"
        if request[0] == "new match":
            self.refused("POST", "/api/matches", {400}, json=request[1])
        elif request[0] == "body":
            _, name, where = request
            body = BAD_BODIES[name]
            path = {"new": "/api/matches", "move": f"/api/matches/{mid}/move", "next": f"/api/matches/{mid}/next",
                    "hint": f"/api/matches/{mid}/hint"}[where]
            self.refused("POST", path, {400} if mid in self.refs or where == "new" else {400, 404}, content=body)
        else:
            _, method, route = request
            self.refused(method, route.format(mid=mid), {404, 405})

    @precondition(lambda self: self.matches)
    @rule()
    def restart(self):
        """A new server on the same folder serves every match as it was (events aside) and plays on."""
        before = {mid: self.service.get(mid).view() for mid in self.matches}
        self._start_server()
        for mid in self.matches:
            status, view = self.request("GET", f"/api/matches/{mid}")
            assert status == 200 and view == {**before[mid], "events": []}, mid
            self.accepted_view(mid, view)

    @invariant()
    def latest_view_is_consistent(self):
        # what GET /api/matches/{id} answers (the get_match rule asks it over HTTP)
        if self.folder is not None and self.matches:
            self.accepted_view(self.latest, json.loads(json.dumps(self.service.get(self.latest).view())))


FAST = stateful_settings(4, 25)
HEAVY = stateful_settings(40, 80)


def machine_for(rules: Rules) -> type:
    return type(f"PlayAPIMachine_{FAST_RULES.index(rules)}", (PlayAPIMachine,), {"RULES": rules})


@pytest.mark.parametrize("rules", FAST_RULES, ids=RULES_IDS)
def test_play_api_random_request_sequences(rules):
    run_state_machine_as_test(machine_for(rules), settings=FAST)


@pytest.mark.slow
@pytest.mark.parametrize("rules", FAST_RULES, ids=RULES_IDS)
def test_play_api_random_request_sequences_heavy(rules):
    run_state_machine_as_test(machine_for(rules), settings=HEAVY)


# --- bugs the machine found (fixed in experiments/play/): plain regression tests -------------------


def make_client(folder, rules=FAST_RULES[0]):
    service = PlayService(folder, opponent="simple", rules=rules, seed=0, today=FIXED_DAY)
    return TestClient(create_app(service), raise_server_exceptions=False), service


def log_files(service) -> dict:
    return {p.name: p.read_bytes() for p in sorted(service.store.logs_dir.iterdir())}


@pytest.mark.parametrize("case", [
    "long match id",        # OSError (file name too long) from Path.is_file in MatchStore.get
    "long match id, move",
    "move type a list",     # TypeError (unhashable) in parse_move
    "move type an object",
    "JSON nested too deep",  # RecursionError from json.loads
    "JSON integer of 5000 digits",  # ValueError (int max str digits) from json.loads
])
def test_requests_once_answered_500_are_4xx_and_change_nothing(tmp_path, case):
    client, service = make_client(tmp_path)
    view = client.post("/api/matches", json={"seed": 3}).json()
    mid, v = view["match_id"], view["version"]
    before = (log_files(service), client.get(f"/api/matches/{mid}").json())
    r = {
        "long match id": lambda: client.get("/api/matches/" + "a" * 300),
        "long match id, move": lambda: client.post("/api/matches/" + "a" * 300 + "/move",
                                                   json={"version": 0, "move": {"type": "pass"}}),
        "move type a list": lambda: client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": ["pass"]}}),
        "move type an object": lambda: client.post(f"/api/matches/{mid}/move", json={"version": v, "move": {"type": {}}}),
        "JSON nested too deep": lambda: client.post(f"/api/matches/{mid}/move", content=b"[" * 50_000),
        "JSON integer of 5000 digits": lambda: client.post("/api/matches", content=b'{"seed": 1' + b"0" * 5000 + b"}"),
    }[case]()
    assert r.status_code == (404 if "match id" in case else 400), (r.status_code, r.text[:200])
    assert r.json()["error"]
    assert (log_files(service), client.get(f"/api/matches/{mid}").json()) == before


def test_an_abandoned_match_left_at_a_hands_result_goes_no_further(tmp_path):
    """POST next on a match abandoned while a hand's result was shown used to deal on (200, the
    agent playing in the abandoned match, its log growing) where a move is refused."""
    client, service = make_client(tmp_path)
    view = client.post("/api/matches", json={"seed": 3}).json()
    mid = view["match_id"]
    while view["status"] == "playing":
        view = client.post(f"/api/matches/{mid}/move",
                           json={"version": view["version"], "move": greedy_move(view["table"], 0)}).json()
    assert view["status"] == "hand_over"
    client.post("/api/matches", json={"seed": 4})
    view = client.get(f"/api/matches/{mid}").json()
    assert view["status"] == "abandoned"
    before = (log_files(service), view)
    for path, body in ((f"/api/matches/{mid}/next", {"version": view["version"]}),
                       (f"/api/matches/{mid}/move", {"version": view["version"], "move": {"type": "draw_stock"}})):
        r = client.post(path, json=body)
        assert r.status_code == 400 and "abandoned" in r.json()["error"], (path, r.status_code, r.text)
        assert (log_files(service), client.get(f"/api/matches/{mid}").json()) == before
