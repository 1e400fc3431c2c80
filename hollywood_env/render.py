"""Readable text views of one game of a core :class:`~hollywood_env.core.State`.

* :func:`hand_summary`: what happened in the hand that ended at the last step (a dict of plain
  Python values; the AEC env puts each agent's view of it in that agent's info dict).
* :func:`render_state`: a table for humans: the viewer's hand grouped in melds with its deadwood,
  the discard pile's top, the stock size, the scoresheet, and, when the last step ended a hand,
  what its end revealed: after a knock, gin or big gin both hands, the melds, the lay-offs and
  the score; after a wall (nobody lays down) the viewer's own hand only.

What a viewer is shown never depends on a card the rules keep from it (RULES.md section 2):
the opponent's hand stays hidden while a hand is played and after a wall. Only
``hand_summary(..., viewer=None)`` is omniscient: the full record of both hands for analysis
tools, never for a player.
"""

from __future__ import annotations

import numpy as np

from .actions import KIND_NAMES, KIND_WALL, PHASE_DISCARD, PHASE_DRAW, PHASE_FIRST_UPCARD, PHASE_GAME_OVER, PHASE_NAMES
from .cards import format_card, mask_to_cards
from .melds import best_arrangement, melds_from_masks

DEFAULT_NAMES = ("player_0", "player_1")


def _cards(cards) -> str:
    return " ".join(format_card(c) for c in sorted(cards)) if len(cards) else "-"


def _melds(melds) -> str:
    return " ".join("[" + " ".join(format_card(c) for c in m) + "]" for m in melds) if melds else "-"


def hand_summary(state, game: int = 0, names=DEFAULT_NAMES, viewer: int | None = None) -> dict | None:
    """The hand that ended at the last core step in ``game`` (None if none did), as seen by
    ``viewer`` (a seat): after a wall ``hands`` holds the viewer's own hand only, since nobody
    lays down. ``viewer=None``: the omniscient record (both hands even after a wall), for
    analysis of finished games, not for a player.

    Keys: ``hand_ended`` (True), ``kind`` (``knock``, ``gin``, ``undercut``, ``big_gin``,
    ``wall``), ``winner`` / ``knocker`` (names, None for a wall), ``points`` (scored by the
    winner, before columns), ``knocker_deadwood``, ``defender_deadwood`` (after lay-offs),
    ``columns_credited`` / ``games_ended`` (1-based game numbers), ``match_over``,
    ``match_winner`` (a name, ``"draw"``, or None while the match goes on), ``hands`` (name ->
    card indices at the end of the hand: both players after a knock, gin or big gin; after a
    wall only ``viewer``'s, both with ``viewer=None``), ``knocker_melds``, ``defender_melds``
    (lists of card lists), ``laid_off`` (cards).
    """
    g = int(game)
    if not state.hand_ended[g]:
        return None
    kind = int(state.hand_kind[g])
    wall = kind == KIND_WALL
    knocker = int(state.hand_knocker[g])
    winner = int(state.hand_winner[g])
    over = bool(state.terminated[g])
    mw = int(state.match_winner[g])
    return {
        "hand_ended": True,
        "kind": KIND_NAMES[kind],
        "winner": None if wall or winner < 0 else names[winner],
        "knocker": None if wall or knocker < 0 else names[knocker],
        "points": 0 if wall else int(state.hand_points[g]),
        "knocker_deadwood": 0 if wall else int(state.knocker_deadwood[g]),
        "defender_deadwood": 0 if wall else int(state.defender_deadwood[g]),
        "columns_credited": [int(k) + 1 for k in np.flatnonzero(state.columns_credited[g])],
        "games_ended": [int(k) + 1 for k in np.flatnonzero(state.games_ended[g])],
        "match_over": over,
        "match_winner": (names[mw] if mw in (0, 1) else "draw") if over else None,
        "hands": {names[p]: mask_to_cards(int(state.ended_hands[g, p]))
                  for p in ((0, 1) if viewer is None or not wall else (int(viewer),))},
        "knocker_melds": [] if wall else melds_from_masks(int(state.knocker_sets[g]), int(state.knocker_runs[g])),
        "defender_melds": [] if wall else melds_from_masks(int(state.defender_sets[g]), int(state.defender_runs[g])),
        "laid_off": [] if wall else mask_to_cards(int(state.laid_off[g])),
    }


def format_hand_summary(summary: dict) -> str:
    """The lines describing an ended hand (see :func:`hand_summary`)."""
    lines = []
    if summary["kind"] == "wall":
        lines.append("Hand over: the wall (2 cards left in the stock): a draw, nobody scores.")
        for name, cards in summary["hands"].items():
            lines.append(f"  {name:<10} {_cards(cards)}")
        return "\n".join(lines)
    knocker = summary["knocker"]
    defender = next(n for n in summary["hands"] if n != knocker)
    lines.append(f"Hand over: {summary['kind']} by {knocker}; {summary['winner']} scores {summary['points']}.")
    lines.append(f"  {knocker:<10} (knocker)  melds {_melds(summary['knocker_melds'])}  "
                 f"deadwood {summary['knocker_deadwood']}")
    laid = set(summary["laid_off"])
    melded = {c for m in summary["defender_melds"] for c in m}
    dead = [c for c in summary["hands"][defender] if c not in laid and c not in melded]
    lines.append(f"  {defender:<10} (defender) melds {_melds(summary['defender_melds'])}  "
                 f"laid off {_cards(sorted(laid))}  deadwood {_cards(dead)} = {summary['defender_deadwood']}")
    if summary["columns_credited"]:
        lines.append(f"  points entered in game(s) {', '.join(map(str, summary['columns_credited']))}")
    if summary["games_ended"]:
        lines.append(f"  game(s) ended: {', '.join(map(str, summary['games_ended']))}")
    if summary["match_over"]:
        mw = summary["match_winner"]
        lines.append("  Match over: " + ("a draw." if mw == "draw" else f"{mw} wins the match."))
    return "\n".join(lines)


def format_scoresheet(state, game: int = 0, names=DEFAULT_NAMES) -> str:
    """The scoresheet: per game the points of each player (``-``: column not opened yet),
    hands credited in brackets, ``W`` for the winner of an ended game, and the totals with the
    bonuses of ended games."""
    g = int(game)
    sheet = state.sheet
    c = state.rules.columns
    totals = sheet.totals(np.array([g]))[0].sum(axis=1)
    head = f"{'Scoresheet':<12}" + "".join(f"{'game ' + str(k + 1):>14}" for k in range(c)) + f"{'total':>9}"
    rows = [head]
    for p in (0, 1):
        cells = []
        for k in range(c):
            if sheet.opened[g, p, k]:
                cell = f"{int(sheet.columns[g, p, k])} ({int(sheet.hands_scored[g, p, k])})"
            else:
                cell = "-"
            if sheet.game_winner[g, k] == p:
                cell += " W"
            cells.append(f"{cell:>14}")
        rows.append(f"{names[p]:<12}" + "".join(cells) + f"{int(totals[p]):>9}")
    rows.append(f"(target {state.rules.target}; W: game won; totals include the bonuses of ended games)")
    return "\n".join(rows)


def render_state(state, game: int = 0, viewer: int | None = None, names=DEFAULT_NAMES, title: str | None = None,
                 summary: dict | None = None) -> str:
    """A text table of ``game`` seen by ``viewer`` (default: the player to act). ``summary``:
    an ended hand to show (default: the one that ended at the last step, if any, as ``viewer``
    sees it: see :func:`hand_summary`)."""
    g = int(game)
    player = int(state.current_player[g])
    me = player if viewer is None else int(viewer)
    opp = 1 - me
    lines = []
    if title:
        lines.append(title)
    if summary is None:
        summary = hand_summary(state, g, names, viewer=me)
    if summary is not None:
        lines.append(format_hand_summary(summary))
        lines.append("")
    phase = int(state.phase[g])
    if phase == PHASE_GAME_OVER or state.terminated[g]:
        mw = int(state.match_winner[g])
        lines.append("Match over: " + ("a draw." if mw not in (0, 1) else f"{names[mw]} wins the match."))
    else:
        dealer = int(state.dealer[g])
        what = {PHASE_FIRST_UPCARD: "take the first upcard or pass", PHASE_DRAW: "draw",
                PHASE_DISCARD: "discard or knock"}.get(phase, PHASE_NAMES[phase])
        lines.append(f"Hand {int(state.hand_number[g]) + 1}, dealer {names[dealer]}; "
                     f"{names[player]} to {what}.")
        if state.truncated[g]:
            lines.append("(the match was truncated: max_steps reached)")
        top = int(state.pile_top[g])
        lines.append(f"Stock: {int(state.stock_size[g])} cards   Discard pile: {int(state.pile_size[g])} cards, "
                     f"top {format_card(top) if top >= 0 else '-'}   Knock limit: {int(state.knock_limit[g])}"
                     + ("   (score doubled)" if state.multiplier[g] > 1 else ""))
        hand = mask_to_cards(int(state.hands[g, me]))
        melds, deadwood = best_arrangement(hand) if hand else ([], 0)
        melded = {c for m in melds for c in m}
        loose = [c for c in hand if c not in melded]
        lines.append(f"{names[me]} hand: melds {_melds(melds)} | deadwood {_cards(loose)} = {deadwood}")
        known = mask_to_cards(int(state.known[g, opp]))
        lines.append(f"{names[opp]} holds (taken from the pile): {_cards(known)}; "
                     f"{len(mask_to_cards(int(state.hands[g, opp])))} cards")
    lines.append(format_scoresheet(state, g, names))
    return "\n".join(lines)
