"""One match of a person against an agent, held by the server: the game, its log, and the
person's view of it.

The game is the batched core (:mod:`hollywood_env.core`) at batch size one, seeded like every
other match of the project (``core.init(1, rules, seed)``: the same seed deals the same cards as
``hollywood evaluate`` game 0 or ``record_match``). The person sits in seat :data:`HUMAN` (0),
the agent in seat :data:`AGENT` (1).

Everything that happens is a list of ``(seat, action)`` pairs (:mod:`hollywood_env.actions`), and
the match is a pure function of its rules, seed and that list: :meth:`PlayMatch.from_log`
rebuilds a match (after a server restart, or for ``hollywood replay``) by replaying the actions,
checking each one is legal. The agent's randomness is reseeded before each of its decisions from
``(seed, decision index)``, so it plays the same after a restart as before it.

The person's view (:meth:`PlayMatch.view`) is the only thing that reaches the browser. It holds
what the rules show a player and nothing more:

* while a hand is played: the person's own cards, the number of cards the agent holds and the
  cards it took from the discard pile (everybody saw them taken), the discard pile (every card
  in it was laid face up), the number of cards in the stock. Never the agent's other cards nor
  the stock's order;
* when a hand ends (status ``hand_over`` until the person asks for the next hand; the next
  deal is not shown before): after a knock, gin or big gin both hands laid out with melds,
  lay-offs and deadwood (the agent's knock discard stays face down); after a wall (nobody lays
  down) the person's own hand only. The stock is never shown.

Requests carry the view's ``version``; a request made on an older version (a second tab, a
double click) is refused as stale, and every refused request leaves the match unchanged.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

import numpy as np

from agents.registry import call_policy
from hollywood_env import core
from hollywood_env.actions import (
    BIG_GIN,
    DISCARD,
    DRAW_STOCK,
    KNOCK,
    NUM_ACTIONS,
    PASS,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_FIRST_UPCARD,
    PHASE_NAMES,
    TAKE_DISCARD,
    action_name,
)
from hollywood_env.cards import CARD_VALUES, format_card, mask_to_cards, parse_card
from hollywood_env.melds import best_arrangement, deadwood_after_discard_masks
from hollywood_env.observation import encode_one
from hollywood_env.render import hand_summary
from hollywood_env.rules import Rules, resolve_rules

HUMAN, AGENT = 0, 1
#: the JSON log format written by :meth:`PlayMatch.to_log`
LOG_FORMAT = "hollywood-play-log"
LOG_VERSION = 1
#: seeds a person can type: a match is numbered by its seed
MAX_SEED = 2**31 - 1

_AGENT_STREAM, _HINT_STREAM = 0xA6E7, 0x417


class PlayError(ValueError):
    """A request the match refuses; ``status`` is its HTTP status (4xx). The match is unchanged."""

    status = 400


class IllegalMove(PlayError):
    status = 422


class StaleRequest(PlayError):
    status = 409


def card_code(card: int) -> str:
    """``7h``, ``Td``, ``As``: rank then suit (see :mod:`hollywood_env.cards`)."""
    return format_card(int(card))


def daily_seed(day: _dt.date) -> int:
    """The daily deal's seed: the date as the number ``YYYYMMDD`` (the same for everyone)."""
    return day.year * 10000 + day.month * 100 + day.day


def decision_seed(seed: int, decision: int, stream: int) -> int:
    """The seed an agent is reseeded with before decision number ``decision`` of match ``seed``."""
    return int(np.random.SeedSequence([int(seed), int(decision), stream]).generate_state(1, np.uint64)[0] >> 1)


def _one_action(policy, state, seat: int, seed: int) -> int:
    """The action ``policy`` picks for ``seat`` (to act), reseeded with ``seed`` first."""
    if callable(getattr(policy, "seed", None)):
        policy.seed(seed)
    obs = encode_one(state, 0, seat)[None]
    a = int(call_policy(policy, obs, state.legal_action_mask[:1], state, games=[0], viewer=seat).reshape(-1)[0])
    if not (0 <= a < NUM_ACTIONS and state.legal_action_mask[0, a]):
        raise RuntimeError(f"the agent chose an illegal action {a}")
    return a


def hand_order(cards: list[int]) -> tuple[list[int], dict[int, int], int]:
    """The person's hand as the table shows it: the cards of the optimal arrangement's melds
    first (melds by their lowest rank; a set by suit, a run upward), then the deadwood from low
    to high (value, rank, suit). Returns ``(cards in that order, card -> meld number, deadwood)``."""
    if not cards:
        return [], {}, 0
    melds, deadwood = best_arrangement(cards)
    melds = sorted((sorted(m, key=lambda c: (c % 13, c // 13)) for m in melds), key=lambda m: (m[0] % 13, m[0] // 13))
    meld_of = {c: i for i, m in enumerate(melds) for c in m}
    loose = sorted((c for c in cards if c not in meld_of), key=lambda c: (CARD_VALUES[c], c % 13, c // 13))
    return [c for m in melds for c in m] + loose, meld_of, deadwood


def parse_move(move) -> int:
    """A move of the HTTP API -> an action index. ``move``: ``{"type": T}`` with T one of
    ``draw_stock``, ``take_discard``, ``pass``, ``big_gin``, or ``{"type": "discard" | "knock",
    "card": "7h"}``."""
    if not isinstance(move, dict):
        raise PlayError(f"a move must be an object such as {{\"type\": \"discard\", \"card\": \"7h\"}}, got {move!r}")
    kind = move.get("type")
    simple = {"draw_stock": DRAW_STOCK, "take_discard": TAKE_DISCARD, "pass": PASS, "big_gin": BIG_GIN}
    if isinstance(kind, str) and kind in simple:  # (a list or an object cannot be looked up: no move type)
        return simple[kind]
    if kind in ("discard", "knock"):
        text = move.get("card")
        if not isinstance(text, str):
            raise PlayError(f"a {kind} move needs \"card\", a card such as \"7h\", \"Td\" or \"Qs\"; got {text!r}")
        try:
            card = parse_card(text)
        except ValueError as e:
            raise PlayError(str(e)) from None
        return (DISCARD if kind == "discard" else KNOCK) + card
    allowed = ", ".join([*simple, "discard", "knock"])
    raise PlayError(f"unknown move type {kind!r}; allowed: {allowed}")


def move_of(action: int) -> dict:
    """The inverse of :func:`parse_move`."""
    a = int(action)
    if a < KNOCK:
        return {"type": "discard", "card": card_code(a - DISCARD)}
    if a < DRAW_STOCK:
        return {"type": "knock", "card": card_code(a - KNOCK)}
    return {"type": {DRAW_STOCK: "draw_stock", TAKE_DISCARD: "take_discard", PASS: "pass", BIG_GIN: "big_gin"}[a]}


@dataclass
class EndedHand:
    """What the match keeps of the hand that ended last: the omniscient summary (seats as names),
    the seat and action that ended it, and the sheet after it."""

    summary: dict
    last_seat: int
    last_action: int
    number: int
    dealer: int
    knock_limit: int
    multiplier: int


class PlayMatch:
    """A match of the person (seat 0) against ``policy`` (seat 1). See the module docstring.

    ``rules``: a :class:`Rules` or preset name; ``seed``: the match number (0..2**31-1);
    ``opponent``: the agent's spec (recorded in the log); ``policy``: the agent itself (built by
    the caller, e.g. ``make_agent(opponent, rules)``); ``kind``: how the match was started
    (``new``, ``replay``, ``daily``); ``created``: an ISO time for the log.
    """

    def __init__(self, rules: Rules | str, seed: int, opponent: str, policy, match_id: str, kind: str = "new",
                 created: str | None = None):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) <= MAX_SEED:
            raise PlayError(f"seed must be an integer in 0..{MAX_SEED}, got {seed!r}")
        self.rules = resolve_rules(rules)
        self.seed = int(seed)
        self.opponent = opponent
        self.policy = policy
        self.match_id = match_id
        self.kind = kind
        self.created = created or _dt.datetime.now().isoformat(timespec="seconds")
        self.status_override: str | None = None  # "abandoned" once the person leaves it unfinished
        self.state = core.init(1, self.rules, seed=self.seed)
        self.actions: list[list[int]] = []
        self.hands: list[dict] = []          # the log's record of every ended hand
        self.hands_acknowledged = 0
        self.events: list[dict] = []         # public events since the person's last request
        self.ended: EndedHand | None = None
        self.just_drawn: int | None = None   # the person's card just drawn (it stands out)
        self._start_hand_record()
        self._advance()

    # --- reading --------------------------------------------------------------------------
    @property
    def version(self) -> int:
        """Changes with every change of the match: actions played plus hand results left."""
        return len(self.actions) + self.hands_acknowledged

    @property
    def over(self) -> bool:
        return bool(self.state.done[0])

    @property
    def awaiting_next_hand(self) -> bool:
        return not self.over and len(self.hands) > self.hands_acknowledged

    @property
    def status(self) -> str:
        """``playing``, ``hand_over`` (a hand's result shown), ``match_over``, or ``abandoned``."""
        if self.status_override:
            return self.status_override
        if self.over:
            return "match_over"
        return "hand_over" if self.awaiting_next_hand else "playing"

    # --- playing --------------------------------------------------------------------------
    def _check_version(self, version) -> None:
        if isinstance(version, bool) or not isinstance(version, int):
            raise PlayError(f"\"version\" must be the integer version of the view the move was made on, got {version!r}")
        if version != self.version:
            raise StaleRequest(f"stale request: it was made on version {version} of the match, which is now at "
                               f"version {self.version}; reload the match")

    def move(self, move, version) -> None:
        """The person's move (see :func:`parse_move`), made on view ``version``."""
        self._check_version(version)
        if self.status == "abandoned":
            raise PlayError("this match was abandoned: start a new match")
        if self.over:
            raise IllegalMove("the match is over: start a new match or replay this one")
        if self.awaiting_next_hand:
            raise IllegalMove("the hand is over: ask for the next hand first")
        action = parse_move(move)
        self._check_legal(action)
        self.events = []
        self._apply(HUMAN, action)
        self._advance()

    def next_hand(self, version) -> None:
        """Leave the ended hand's result and deal on (the agent plays if it is to move)."""
        self._check_version(version)
        if self.status == "abandoned":
            raise PlayError("this match was abandoned: start a new match")
        if not self.awaiting_next_hand:
            raise IllegalMove("there is no ended hand to leave: " + ("the match is over" if self.over else
                                                                     "the hand is still being played"))
        self.events = []
        self.hands_acknowledged = len(self.hands)
        self._advance()

    def _check_legal(self, action: int) -> None:
        st = self.state
        mask = st.legal_action_mask[0]
        if int(st.current_player[0]) != HUMAN:
            raise IllegalMove("it is not your turn")
        if 0 <= action < NUM_ACTIONS and mask[action]:
            return
        phase = int(st.phase[0])
        hand = set(mask_to_cards(int(st.hands[0, HUMAN])))
        if action < DRAW_STOCK:
            card = action % KNOCK
            verb = "discard" if action < KNOCK else "knock with"
            if phase != PHASE_DISCARD:
                what = "take the first upcard or pass" if phase == PHASE_FIRST_UPCARD else \
                    "draw first: click the stock or the discard pile"
                raise IllegalMove(f"you cannot {verb} a card now: {what}")
            if card not in hand:
                raise IllegalMove(f"{card_code(card)} is not in your hand")
            if card == int(st.taken_card[0]) and self.rules.forbid_discard_of_taken_card:
                raise IllegalMove(f"you just took {card_code(card)} from the discard pile: the rules forbid "
                                  f"discarding it this turn; discard another card")
            after = self._after_discard()[card]
            limit = int(st.knock_limit[0])
            raise IllegalMove(f"discarding {card_code(card)} leaves {after} deadwood, above the knock limit "
                              f"{limit}{' (gin only)' if limit == 0 else ''}: you cannot knock with it")
        names = {DRAW_STOCK: "draw from the stock", TAKE_DISCARD: "take the discard", PASS: "pass",
                 BIG_GIN: "declare big gin"}
        if action == BIG_GIN:
            why = "the rules do not allow big gin" if not self.rules.big_gin else "all 11 cards must be melded"
        elif phase == PHASE_DISCARD:
            why = "you have drawn already: discard a card (or knock)"
        elif action == PASS:
            why = "passing is only for the first upcard: draw from the stock or the pile"
        else:
            why = "the stock is empty" if action == DRAW_STOCK else "the discard pile is empty"
        raise IllegalMove(f"you cannot {names[action]} now: {why}")

    def _advance(self) -> None:
        """Let the agent play while it is to move and no ended hand waits for the person."""
        while not self.over and not self.awaiting_next_hand and int(self.state.current_player[0]) == AGENT:
            a = _one_action(self.policy, self.state, AGENT, decision_seed(self.seed, len(self.actions), _AGENT_STREAM))
            self._apply(AGENT, a)

    def _apply(self, seat: int, action: int) -> None:
        """Play one action (legal: checked by the core), record it, its public event and a
        hand's end."""
        st = self.state
        hand_before = int(st.hands[0, HUMAN])
        pile_top = int(st.pile_top[0])
        stock_before = st.deck[0, st.stock_pos[0]:].astype(int).tolist()
        phase_before = int(st.phase[0])
        dealer, limit, mult = int(st.dealer[0]), int(st.knock_limit[0]), int(st.multiplier[0])
        core.step(st, np.array([action], dtype=np.int64))
        self.actions.append([seat, int(action)])
        drawn = None
        if action in (DRAW_STOCK, PASS) and not st.hand_ended[0]:
            # a stock draw, or the non-dealer's automatic draw after both passed the upcard
            if action == DRAW_STOCK or phase_before == PHASE_FIRST_UPCARD and int(st.phase[0]) == PHASE_DISCARD:
                drawn = stock_before[0]
        move = {"seat": seat, "action": int(action), "name": action_name(action)}
        if drawn is not None:
            move["drawn"] = card_code(drawn)
        self._hand_record["moves"].append(move)
        self._public_event(seat, action, pile_top, drawn)
        gained = mask_to_cards(int(st.hands[0, HUMAN]) & ~hand_before) if not st.hand_ended[0] else []
        if gained:
            self.just_drawn = gained[0]
        elif action < DRAW_STOCK or st.hand_ended[0]:
            self.just_drawn = None
        if st.hand_ended[0]:
            self._end_hand(seat, action, stock_before, dealer, limit, mult)

    def _public_event(self, seat: int, action: int, pile_top: int, drawn: int | None) -> None:
        """Note what everybody saw happen (the person's own drawn card included, since it is
        theirs; the agent's stock draws and knock discard without the card)."""
        who = "you" if seat == HUMAN else "opponent"
        ev: dict = {"who": who, "type": move_of(action)["type"]}
        if action == TAKE_DISCARD:
            ev["card"] = card_code(pile_top)
        elif action < KNOCK or (action < DRAW_STOCK and seat == HUMAN):
            ev["card"] = card_code(action % KNOCK)  # the agent's knock discard stays face down
        elif action == DRAW_STOCK and seat == HUMAN:
            ev["card"] = card_code(drawn)
        self.events.append(ev)
        if action == PASS and drawn is not None:  # both passed: the non-dealer's automatic draw
            drawer = int(self.state.current_player[0])
            ev = {"who": "you" if drawer == HUMAN else "opponent", "type": "draw_stock", "automatic": True}
            if drawer == HUMAN:
                ev["card"] = card_code(drawn)
            self.events.append(ev)

    def _end_hand(self, seat: int, action: int, stock_before: list[int], dealer: int, limit: int, mult: int) -> None:
        st = self.state
        s = hand_summary(st, 0, names=(HUMAN, AGENT))
        self.ended = EndedHand(summary=s, last_seat=seat, last_action=int(action), number=len(self.hands) + 1,
                               dealer=dealer, knock_limit=limit, multiplier=mult)
        rec = self._hand_record
        rec.update({
            "kind": s["kind"], "knocker": s["knocker"], "winner": s["winner"], "points": s["points"],
            "knocker_deadwood": s["knocker_deadwood"], "defender_deadwood": s["defender_deadwood"],
            "final_hands": [[card_code(c) for c in s["hands"][p]] for p in (0, 1)],
            "knocker_melds": [[card_code(c) for c in m] for m in s["knocker_melds"]],
            "defender_melds": [[card_code(c) for c in m] for m in s["defender_melds"]],
            "laid_off": [card_code(c) for c in s["laid_off"]],
            "columns_credited": s["columns_credited"], "games_ended": s["games_ended"],
            "sheet_after": {"columns": st.sheet.columns[0].tolist(), "totals": st.sheet.totals(np.array([0]))[0].tolist(),
                            "hands_scored": st.sheet.hands_scored[0].tolist(), "opened": st.sheet.opened[0].tolist(),
                            "game_winner": st.sheet.game_winner[0].astype(int).tolist()},
            "explanation": self._explain(s),
        })
        self.hands.append(rec)
        if not self.over:
            self._start_hand_record()

    def _start_hand_record(self) -> None:
        st = self.state
        self._hand_record = {
            "number": len(self.hands) + 1, "dealer": int(st.dealer[0]),
            "dealt": [[card_code(c) for c in mask_to_cards(int(st.hands[0, p]))] for p in (0, 1)],
            "upcard": card_code(int(st.pile[0, 0])), "knock_limit": int(st.knock_limit[0]),
            "multiplier": int(st.multiplier[0]), "first_action": len(self.actions), "moves": [],
        }

    def _after_discard(self) -> dict[int, int]:
        """Discard phase: each held card -> the person's minimum deadwood without it."""
        dw = deadwood_after_discard_masks(np.array([self.state.hands[0, HUMAN]], dtype=np.uint64))[0]
        return {c: int(dw[c]) for c in mask_to_cards(int(self.state.hands[0, HUMAN]))}

    # --- hints ----------------------------------------------------------------------------
    def hint(self, policy, agent_name: str) -> dict:
        """What ``policy`` would play in the person's place (it reads the person's own
        observation only): ``target`` (``stock``, ``pile``, ``pass``, ``card``, ``big_gin``),
        ``card``, ``knock``, ``can_knock`` and a sentence."""
        if self.status != "playing" or int(self.state.current_player[0]) != HUMAN:
            raise IllegalMove("there is nothing to hint: it is not your move")
        a = _one_action(policy, self.state, HUMAN, decision_seed(self.seed, len(self.actions), _HINT_STREAM))
        mask = self.state.legal_action_mask[0]
        can_knock = bool(mask[KNOCK:DRAW_STOCK].any())
        out = {"agent": agent_name, "move": move_of(a), "can_knock": can_knock, "knock": KNOCK <= a < DRAW_STOCK}
        if a == DRAW_STOCK:
            out.update(target="stock", message=f"{agent_name} would draw from the stock.")
        elif a == TAKE_DISCARD:
            out.update(target="pile", message=f"{agent_name} would take {card_code(int(self.state.pile_top[0]))} "
                                              f"from the pile.")
        elif a == PASS:
            out.update(target="pass", message=f"{agent_name} would pass the upcard.")
        elif a == BIG_GIN:
            out.update(target="big_gin", message=f"{agent_name} would declare big gin.")
        else:
            c = card_code(a % KNOCK)
            verb = "knock, discarding" if out["knock"] else "discard"
            out.update(target="card", card=c, message=f"{agent_name} would {verb} {c}.")
        if can_knock and not out["knock"]:
            after = self._after_discard()
            legal_knocks = np.flatnonzero(mask[KNOCK:DRAW_STOCK])
            best = min(legal_knocks, key=lambda c: after[int(c)])
            out["message"] += (f" You can knock: discarding {card_code(best)} leaves {after[int(best)]} deadwood"
                               f"{' (gin)' if after[int(best)] == 0 else ''}.")
        return out

    # --- the view -------------------------------------------------------------------------
    def view(self, opponent_label: str | None = None) -> dict:
        """The person's view, as JSON-ready plain values (see the module docstring)."""
        label = opponent_label or self.opponent
        v = {
            "match_id": self.match_id, "version": self.version, "seed": self.seed, "kind": self.kind,
            "status": self.status, "opponent": label, "rules": self._rules_view(),
            "hand_number": len(self.hands) + (0 if self.awaiting_next_hand or self.over else 1),
            "events": list(self.events), "scoresheet": self._sheet_view(), "history": self._history_view(),
        }
        if self.status == "playing":
            v["table"] = self._table_view()
            v["message"] = v["table"]["prompt"]
        if self.ended is not None and self.status in ("hand_over", "match_over", "abandoned") and \
                (self.awaiting_next_hand or self.over):
            v["result"] = self._result_view()
            v["message"] = v["result"]["explanation"]
        if self.status == "abandoned" and "message" not in v:
            v["message"] = "This match was abandoned."
        return v

    def _rules_view(self) -> dict:
        r = self.rules
        return {"preset": r.preset_name or "custom", "columns": r.columns, "target": r.target,
                "knock_limit": r.knock_limit, "gin_bonus": r.gin_bonus, "undercut_bonus": r.undercut_bonus,
                "big_gin": r.big_gin, "big_gin_bonus": r.big_gin_bonus, "game_bonus": r.game_bonus,
                "box_bonus": r.box_bonus, "shutout": r.shutout, "straight_gin": r.straight_gin,
                "oklahoma": r.oklahoma, "forbid_discard_of_taken_card": r.forbid_discard_of_taken_card,
                "wall_stock_size": r.wall_stock_size, "match_winner": r.match_winner,
                "short_session": r.short_session, "next_dealer": r.next_dealer}

    def _table_view(self) -> dict:
        st = self.state
        phase = int(st.phase[0])
        to_move = "you" if int(st.current_player[0]) == HUMAN else "opponent"
        cards = mask_to_cards(int(st.hands[0, HUMAN]))
        order, meld_of, deadwood = hand_order(cards)
        mask = st.legal_action_mask[0]
        taken = int(st.taken_card[0])
        locked = taken if (phase == PHASE_DISCARD and to_move == "you" and taken >= 0
                           and self.rules.forbid_discard_of_taken_card) else None
        after = self._after_discard() if phase == PHASE_DISCARD else {}
        knock = [c for c in cards if mask[KNOCK + c]]
        gin = [c for c in knock if after.get(c) == 0]
        pile = st.pile[0, : st.pile_size[0]].astype(int).tolist()
        top = pile[-1] if pile else None
        legal = {"draw_stock": bool(mask[DRAW_STOCK]), "take_discard": bool(mask[TAKE_DISCARD]),
                 "pass": bool(mask[PASS]), "big_gin": bool(mask[BIG_GIN]),
                 "discard": [card_code(c) for c in cards if mask[DISCARD + c]],
                 "knock": [card_code(c) for c in knock], "gin": [card_code(c) for c in gin]}
        limit = int(st.knock_limit[0])
        if phase == PHASE_FIRST_UPCARD:
            if self._passes_this_hand() == 0:
                prompt = f"First upcard: take {card_code(top)} or pass."
            else:
                prompt = (f"The opponent passed the first upcard: take {card_code(top)} or pass "
                          f"(then the opponent draws from the stock).")
        elif phase == PHASE_DRAW:
            prompt = "Your turn: draw from the stock" + (f" or take {card_code(top)} from the pile." if top is not None
                                                         else ".")
        else:
            prompt = "Discard a card" + (" or knock." if knock else ".")
            if gin:
                prompt = "You can go gin: press Gin, then click the card to discard."
            elif knock:
                prompt = f"You can knock (deadwood {min(after[c] for c in knock)} or less after your discard): " \
                         f"press Knock, then click the card to discard, or just discard."
        known = mask_to_cards(int(st.known[0, AGENT]))
        return {
            "phase": PHASE_NAMES[phase], "to_move": to_move,
            "dealer": "you" if int(st.dealer[0]) == HUMAN else "opponent",
            "knock_limit": limit, "multiplier": int(st.multiplier[0]),
            "hand": [{"card": card_code(c), "meld": meld_of.get(c), "just_drawn": c == self.just_drawn,
                      "locked": c == locked, "deadwood_after_discard": after.get(c)} for c in order],
            "deadwood": deadwood,
            "best_deadwood_after_discard": min((after[c] for c in cards if mask[DISCARD + c]), default=None),
            "locked_reason": (f"You just took {card_code(locked)} from the discard pile: the rules forbid "
                              f"discarding it this turn.") if locked is not None else None,
            "opponent": {"cards": int(bin(int(st.hands[0, AGENT])).count("1")),
                         "known": [card_code(c) for c in known]},
            "stock": {"cards": int(st.stock_size[0])},
            "pile": {"top": card_code(top) if top is not None else None, "cards": [card_code(c) for c in pile]},
            "legal": legal,
            "knock_button": ("Gin" if gin else "Knock") if knock else None,
            "prompt": prompt,
        }

    def _passes_this_hand(self) -> int:
        return sum(1 for m in self._hand_record["moves"] if m["action"] == PASS)

    def _result_view(self) -> dict:
        e = self.ended
        s = e.summary
        wall = s["kind"] == "wall"
        names = {HUMAN: "you", AGENT: "opponent"}
        out = {"number": e.number, "kind": s["kind"], "explanation": self.hands[-1]["explanation"],
               "winner": None if wall else names[s["winner"]], "knocker": None if wall else names[s["knocker"]],
               "points": s["points"], "multiplier": e.multiplier, "columns_credited": s["columns_credited"],
               "games_ended": s["games_ended"], "match_over": s["match_over"],
               "match_winner": None if not s["match_over"] else
               ("draw" if s["match_winner"] == "draw" else names[s["match_winner"]])}
        hands = {}
        for p in (HUMAN, AGENT):
            if wall and p == AGENT:
                continue
            cards = s["hands"][p]
            if wall:
                order, meld_of, dw = hand_order(cards)
                hands[names[p]] = {"melds": [], "laid_off": [], "deadwood_cards": [], "deadwood": dw,
                                   "cards": [card_code(c) for c in order]}
                continue
            is_knocker = p == s["knocker"]
            melds = s["knocker_melds"] if is_knocker else s["defender_melds"]
            laid = [] if is_knocker else s["laid_off"]
            kept = {c for m in melds for c in m} | set(laid)
            dead = sorted((c for c in cards if c not in kept), key=lambda c: (CARD_VALUES[c], c))
            hands[names[p]] = {"role": "knocker" if is_knocker else "defender",
                               "melds": [[card_code(c) for c in m] for m in melds],
                               "laid_off": [card_code(c) for c in laid],
                               "deadwood_cards": [card_code(c) for c in dead],
                               "deadwood": s["knocker_deadwood"] if is_knocker else s["defender_deadwood"]}
        out["hands"] = hands
        return out

    def _explain(self, s: dict) -> str:
        """The hand's result in words."""
        name = {HUMAN: "You", AGENT: "The opponent"}
        obj = {HUMAN: "you", AGENT: "the opponent"}
        r = self.rules
        if s["kind"] == "wall":
            return (f"The wall: only {r.wall_stock_size} cards are left in the stock and nobody knocked. "
                    f"The hand is a draw: nobody scores, and the same dealer deals again.")
        k, w = s["knocker"], s["winner"]
        d = 1 - k
        kd, dd = s["knocker_deadwood"], s["defender_deadwood"]
        mult = self._hand_record["multiplier"]
        laid = s["laid_off"]
        laid_txt = (f" after laying off {', '.join(card_code(c) for c in laid)}" if laid else "")
        has = "have" if d == HUMAN else "has"
        if s["kind"] == "gin":
            text = (f"Gin! {name[k]} melded all ten cards. {name[d]} {has} {dd} deadwood (no lay-offs against gin): "
                    f"{obj[k]} score{'s' if k == AGENT else ''} {r.gin_bonus} + {dd} = {r.gin_bonus + dd}.")
        elif s["kind"] == "big_gin":
            text = (f"Big gin! {name[k]} melded all eleven cards. {name[d]} {has} {dd} deadwood: "
                    f"{obj[k]} score{'s' if k == AGENT else ''} {r.big_gin_bonus} + {dd} = {r.big_gin_bonus + dd}.")
        elif s["kind"] == "undercut":
            text = (f"Undercut! {name[k]} knocked with {kd}; {obj[d]} {has} {dd}{laid_txt}, no more than the "
                    f"knocker: {obj[d]} score{'s' if d == AGENT else ''} {r.undercut_bonus} + ({kd} - {dd}) = "
                    f"{r.undercut_bonus + kd - dd}.")
        else:
            text = (f"{name[k]} knocked with {kd}; {obj[d]} {has} {dd}{laid_txt}: "
                    f"{obj[k]} score{'s' if k == AGENT else ''} {dd} - {kd} = {dd - kd}.")
        if mult > 1:
            text += f" Doubled by the spade upcard: {s['points']} points."
        if s["columns_credited"] and r.columns > 1:
            games = s["columns_credited"]
            text += (" Points entered in game " if len(games) == 1 else " Points entered in games ") + \
                ", ".join(map(str, games)) + "."
        for g in s["games_ended"]:
            winner = "You win" if w == HUMAN else "The opponent wins"
            text += f" {winner} game {g}." if r.columns > 1 else f" {winner} the game."
        if s["match_over"]:
            mw = s["match_winner"]
            text += " Match over: " + ("a draw." if mw == "draw" else ("you win the match!" if mw == HUMAN
                                                                        else "the opponent wins the match."))
        return text

    def _sheet_view(self) -> dict:
        """The scoresheet: per game (column) each side's points, opened columns, hands credited
        (boxes), the winner and the bonuses of an ended game, and the totals."""
        st = self.state
        sh = st.sheet
        r = self.rules
        totals = sh.totals(np.array([0]))[0]
        games = []
        for k in range(r.columns):
            w = int(sh.game_winner[0, k])
            cols = sh.columns[0, :, k].astype(int).tolist()
            g = {"number": k + 1, "points": cols, "opened": sh.opened[0, :, k].tolist(),
                 "hands": sh.hands_scored[0, :, k].astype(int).tolist(), "totals": totals[:, k].astype(int).tolist(),
                 "winner": None if w < 0 else ("you" if w == HUMAN else "opponent"), "ended": w >= 0}
            if w >= 0:
                shutout = cols[1 - w] == 0
                bonus = r.game_bonus * (2 if shutout and r.shutout == "double_game_bonus" else 1)
                g.update(shutout=shutout, game_bonus=bonus, box_bonus=[r.box_bonus * h for h in g["hands"]],
                         doubled=shutout and r.shutout == "double_all")
            games.append(g)
        mw = int(st.match_winner[0])
        return {"games": games, "totals": totals.sum(axis=1).astype(int).tolist(), "target": r.target,
                "games_won": [sum(1 for g in games if g["winner"] == who) for who in ("you", "opponent")],
                "match_over": self.over,
                "match_winner": None if not self.over else {HUMAN: "you", AGENT: "opponent"}.get(mw, "draw")}

    def _history_view(self) -> list[dict]:
        names = {HUMAN: "you", AGENT: "opponent", None: None}
        shown = self.hands if (self.awaiting_next_hand or self.over) else self.hands[: self.hands_acknowledged]
        return [{"number": h["number"], "kind": h["kind"], "winner": names[h["winner"]], "points": h["points"],
                 "columns_credited": h["columns_credited"], "games_ended": h["games_ended"]} for h in shown]

    # --- the log --------------------------------------------------------------------------
    def result(self) -> dict | None:
        """The match's result for the human (None until it is over)."""
        if not self.over:
            return None
        sheet = self._sheet_view()
        t = sheet["totals"]
        return {"winner": {"you": "human", "opponent": "agent"}.get(sheet["match_winner"], "draw"),
                "totals": t, "margin": t[HUMAN] - t[AGENT], "games_won": sheet["games_won"],
                "hands_won": [sum(1 for h in self.hands if h["winner"] == p) for p in (HUMAN, AGENT)],
                "hands": len(self.hands)}

    def to_log(self) -> dict:
        """The JSON game log: rules, seed, every action, every hand's result (module docstring
        of :mod:`experiments.play.gamelog`)."""
        return {
            "format": LOG_FORMAT, "format_version": LOG_VERSION, "match_id": self.match_id,
            "created": self.created, "updated": _dt.datetime.now().isoformat(timespec="seconds"),
            "status": "abandoned" if self.status_override == "abandoned" else
            ("finished" if self.over else "in_progress"),
            "kind": self.kind, "rules": self.rules.to_dict(), "preset": self.rules.preset_name,
            "seed": self.seed, "players": {"human": HUMAN, "agent": AGENT}, "opponent": self.opponent,
            "actions": [list(a) for a in self.actions], "hands_acknowledged": self.hands_acknowledged,
            "hands": self.hands, "result": self.result(),
        }

    @classmethod
    def from_log(cls, log: dict, policy) -> PlayMatch:
        """Rebuild a match from its log by replaying its actions (each checked legal; the
        person's seat is replayed, the agent's too, not re-decided). Raises ``ValueError``
        naming what is wrong with a log that does not replay."""
        if not isinstance(log, dict) or log.get("format") != LOG_FORMAT:
            raise ValueError(f"not a {LOG_FORMAT} file (no \"format\": \"{LOG_FORMAT}\")")
        if log.get("format_version") != LOG_VERSION:
            raise ValueError(f"unsupported log format_version {log.get('format_version')!r} (this version reads {LOG_VERSION})")
        try:
            rules = Rules.from_dict(log["rules"])
            m = cls.__new__(cls)
            m.rules, m.seed, m.opponent, m.policy = rules, int(log["seed"]), log["opponent"], policy
            m.match_id, m.kind, m.created = log["match_id"], log.get("kind", "new"), log.get("created")
            m.status_override = "abandoned" if log.get("status") == "abandoned" else None
            m.state = core.init(1, rules, seed=m.seed)
            m.actions, m.hands, m.hands_acknowledged, m.events = [], [], 0, []
            m.ended, m.just_drawn = None, None
            m._start_hand_record()
            actions = log["actions"]
        except (KeyError, TypeError) as e:
            raise ValueError(f"a game log needs rules, seed, opponent, match_id and actions: {e!r} is missing or wrong") from None
        for i, pair in enumerate(actions):
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, int) for x in pair)):
                raise ValueError(f"action {i} of the log is not a [seat, action] pair of ints: {pair!r}")
            seat, a = pair
            if m.over or seat != int(m.state.current_player[0]) or not (0 <= a < NUM_ACTIONS) \
                    or not m.state.legal_action_mask[0, a]:
                raise ValueError(f"action {i} of the log ({pair!r}) is not legal in the replayed match")
            m._apply(seat, a)
            m.hands_acknowledged = len(m.hands) - 1 if m.state.hand_ended[0] else len(m.hands)
        ack = log.get("hands_acknowledged", len(m.hands))
        if isinstance(ack, bool) or not isinstance(ack, int):
            raise ValueError(f"hands_acknowledged must be an int, got {ack!r}")
        m.hands_acknowledged = max(min(ack, len(m.hands)), m.hands_acknowledged)
        if m.status_override is None:
            m._advance()  # the agent's moves, should the log end where it is to move
        m.events = []
        return m
