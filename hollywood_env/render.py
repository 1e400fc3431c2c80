"""Readable text views of one game of a core :class:`~hollywood_env.core.State`.

* :func:`hand_summary`: what happened in the hand that ended at the last step (a dict of plain
  Python values; the AEC env puts each agent's view of it in that agent's info dict).
* :func:`render_state`: a table for humans: the viewer's hand grouped in melds with its deadwood,
  the discard pile's top, the stock size, the scoresheet, and, when the last step ended a hand,
  what its end revealed: after a knock, gin or big gin both hands, the melds, the lay-offs and
  the score; after a wall (nobody lays down) the viewer's own hand only.
* :func:`render_rgb`: the same table as a picture, an ``(H, W, 3)`` uint8 array (the envs'
  ``render_mode="rgb_array"``, for Gymnasium's ``RecordVideo`` and Stable-Baselines3): the
  viewer's hand face up, the opponent's hand face down except the cards it took from the pile,
  the discard pile's top and size, the stock count, the last hand's result (the opponent's
  hand face up after a knock, gin or big gin) and the scoresheet. It draws only
  :func:`table_view`, the plain facts the viewer may see, so no hidden card can reach it.
  Drawn with Pillow (a dependency of the core install) and its built-in font.

What a viewer is shown never depends on a card the rules keep from it (docs/rules.md section 2):
the opponent's hand stays hidden while a hand is played and after a wall. Only
``hand_summary(..., viewer=None)`` is omniscient: the full record of both hands for analysis
tools, never for a player.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .actions import KIND_NAMES, KIND_WALL, PHASE_DISCARD, PHASE_DRAW, PHASE_FIRST_UPCARD, PHASE_GAME_OVER, PHASE_NAMES
from .cards import format_card, mask_to_cards
from .melds import best_arrangement, melds_from_masks

if TYPE_CHECKING:  # annotations only
    from .core import State

DEFAULT_NAMES = ("player_0", "player_1")


def _cards(cards) -> str:
    return " ".join(format_card(c) for c in sorted(cards)) if len(cards) else "-"


def _melds(melds) -> str:
    return " ".join("[" + " ".join(format_card(c) for c in m) + "]" for m in melds) if melds else "-"


def hand_summary(state: State, game: int = 0, names: Sequence[str] = DEFAULT_NAMES,
                 viewer: int | None = None) -> dict | None:
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


def format_scoresheet(state: State, game: int = 0, names: Sequence[str] = DEFAULT_NAMES) -> str:
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


def render_state(state: State, game: int = 0, viewer: int | None = None, names: Sequence[str] = DEFAULT_NAMES,
                 title: str | None = None, summary: dict | None = None) -> str:
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


# --- pictures -------------------------------------------------------------------------------------

#: size of :func:`render_rgb`'s picture (height, width)
RGB_SHAPE = (420, 640)
_CARD_W, _CARD_H, _GAP = 38, 54, 4
_GREEN, _WHITE, _BLACK, _RED = (20, 100, 50), (250, 250, 245), (20, 20, 20), (200, 30, 30)
_BACK, _GOLD, _GREY = (40, 60, 150), (240, 200, 60), (200, 215, 200)


def table_view(state: State, game: int = 0, viewer: int | None = None, names: Sequence[str] = DEFAULT_NAMES,
               title: str | None = None) -> dict:
    """What ``viewer`` (a seat; default: the player to act) may see of ``game``, as plain values:
    everything :func:`render_rgb` draws. The opponent's hand is its size and the cards it took
    from the pile (``known``); the stock is its size; after a wall the ended hand's record holds
    the viewer's own hand only (:func:`hand_summary`)."""
    g = int(game)
    me = int(state.current_player[g]) if viewer is None else int(viewer)
    opp = 1 - me
    sheet = state.sheet
    c = state.rules.columns
    top = int(state.pile_top[g])
    hand = mask_to_cards(int(state.hands[g, me]))
    melds, deadwood = best_arrangement(hand) if hand else ([], 0)
    melded = [card for m in melds for card in m]
    return {
        "title": title,
        "names": tuple(names), "viewer": me, "to_act": int(state.current_player[g]),
        "phase": int(state.phase[g]), "over": bool(state.terminated[g] or state.phase[g] == PHASE_GAME_OVER),
        "truncated": bool(state.truncated[g]), "match_winner": int(state.match_winner[g]),
        "hand_number": int(state.hand_number[g]), "dealer": int(state.dealer[g]),
        "stock": int(state.stock_size[g]), "pile_size": int(state.pile_size[g]), "pile_top": top,
        "knock_limit": int(state.knock_limit[g]), "doubled": bool(state.multiplier[g] > 1),
        "hand": melded + [card for card in hand if card not in set(melded)], "melded": len(melded),
        "deadwood": int(deadwood),
        "opp_count": len(mask_to_cards(int(state.hands[g, opp]))),
        "opp_known": mask_to_cards(int(state.known[g, opp])),
        "summary": hand_summary(state, g, names, viewer=me),
        "sheet": [[(bool(sheet.opened[g, p, k]), int(sheet.columns[g, p, k]), int(sheet.hands_scored[g, p, k]),
                    int(sheet.game_winner[g, k]) == p) for k in range(c)] for p in (0, 1)],
        "totals": [int(t) for t in sheet.totals(np.array([g]))[0].sum(axis=1)],
        "target": int(state.rules.target),
    }


_FONTS: dict = {}


def _font(size: int):
    font = _FONTS.get(size)
    if font is None:
        from PIL import ImageFont
        try:
            font = ImageFont.load_default(size=size)
        except TypeError:  # Pillow < 10.1: the fixed-size bitmap font
            font = ImageFont.load_default()
        _FONTS[size] = font
    return font


def _draw_card(draw, x: int, y: int, card: int | None, highlight: bool = False) -> None:
    """A card face (``card``) or back (None) with its top-left corner at ``(x, y)``."""
    box = (x, y, x + _CARD_W, y + _CARD_H)
    if card is None:
        draw.rounded_rectangle(box, radius=4, fill=_BACK, outline=_WHITE, width=2)
        draw.line((x + 6, y + 6, x + _CARD_W - 6, y + _CARD_H - 6), fill=(90, 110, 200), width=2)
        draw.line((x + _CARD_W - 6, y + 6, x + 6, y + _CARD_H - 6), fill=(90, 110, 200), width=2)
        return
    draw.rounded_rectangle(box, radius=4, fill=_WHITE, outline=_GOLD if highlight else _BLACK, width=3 if highlight else 1)
    text = format_card(card)
    color = _RED if text[-1] in "hd" else _BLACK
    rank = "10" if text[0] == "T" else text[0]
    draw.text((x + 4, y + 3), rank, fill=color, font=_font(16))
    draw.text((x + _CARD_W - 14, y + _CARD_H - 22), text[-1], fill=color, font=_font(16))


def _draw_row(draw, x: int, y: int, cards, backs: int = 0, highlight: int = 0) -> None:
    """``cards`` face up (the first ``highlight`` outlined), then ``backs`` cards face down."""
    step = _CARD_W + _GAP
    for i, card in enumerate(cards):
        _draw_card(draw, x + i * step, y, card, highlight=i < highlight)
    for j in range(backs):
        _draw_card(draw, x + (len(cards) + j) * step, y, None)


def render_rgb(state: State, game: int = 0, viewer: int | None = None, names: Sequence[str] = DEFAULT_NAMES,
               title: str | None = None) -> np.ndarray:
    """A picture of ``game`` seen by ``viewer`` (default: the player to act): an ``RGB_SHAPE + (3,)``
    uint8 array. It draws :func:`table_view` only: the viewer's hand face up (melds first,
    outlined in gold), the opponent's cards face down except those it took from the pile, the
    stock (a card back and its count), the discard pile (its top card and size), the knock
    limit, the last hand's result (after a knock, gin or big gin both hands are laid out, so the
    opponent's is shown face up; after a wall nothing more) and the scoresheet."""
    return draw_view(table_view(state, game, viewer, names, title))


def draw_view(view: dict) -> np.ndarray:
    """The picture of a :func:`table_view` (see :func:`render_rgb`)."""
    from PIL import Image, ImageDraw

    h, w = RGB_SHAPE
    img = Image.new("RGB", (w, h), _GREEN)
    draw = ImageDraw.Draw(img)
    names, me = view["names"], view["viewer"]
    opp = 1 - me
    small, text_font = _font(12), _font(14)
    head = (view["title"] + ": ") if view["title"] else ""
    if view["over"]:
        mw = view["match_winner"]
        head += "Match over: " + ("a draw." if mw not in (0, 1) else f"{names[mw]} wins the match.")
    else:
        what = {PHASE_FIRST_UPCARD: "take the first upcard or pass", PHASE_DRAW: "draw",
                PHASE_DISCARD: "discard or knock"}.get(view["phase"], PHASE_NAMES[view["phase"]])
        head += (f"Hand {view['hand_number'] + 1}, dealer {names[view['dealer']]}; {names[view['to_act']]} to {what}"
                 + (" (truncated)" if view["truncated"] else ""))
    draw.text((10, 6), head, fill=_WHITE, font=text_font)
    # the opponent: the cards it took from the pile face up, the rest face down
    known = sorted(view["opp_known"])
    draw.text((10, 28), f"{names[opp]}: {view['opp_count']} cards ({len(known)} taken from the pile)",
              fill=_GREY, font=small)
    _draw_row(draw, 10, 44, known, backs=max(0, view["opp_count"] - len(known)))
    # the stock and the discard pile
    y = 112
    _draw_card(draw, 10, y, None)
    draw.text((10 + _CARD_W + 6, y + 18), f"stock {view['stock']}", fill=_WHITE, font=text_font)
    px = 130
    if view["pile_top"] >= 0:
        _draw_card(draw, px, y, view["pile_top"])
    else:
        draw.rounded_rectangle((px, y, px + _CARD_W, y + _CARD_H), radius=4, outline=_GREY, width=1)
    draw.text((px + _CARD_W + 6, y + 18), f"pile {view['pile_size']}", fill=_WHITE, font=text_font)
    draw.text((260, y + 18), f"knock limit {view['knock_limit']}" + ("   score doubled" if view["doubled"] else ""),
              fill=_WHITE, font=text_font)
    # the viewer's hand
    y = 180
    draw.text((10, y), f"{names[me]} (this view): deadwood {view['deadwood']}", fill=_GREY, font=small)
    _draw_row(draw, 10, y + 16, view["hand"], highlight=view["melded"])
    # the last hand's result
    y = 256
    s = view["summary"]
    if s is not None:
        if s["kind"] == "wall":
            line = "Last hand: the wall, nobody scores."
        else:
            line = (f"Last hand: {s['kind']} by {s['knocker']}; {s['winner']} scores {s['points']} "
                    f"(deadwood {s['knocker_deadwood']} vs {s['defender_deadwood']})")
        draw.text((10, y), line, fill=_GOLD, font=text_font)
        other = s["hands"].get(names[opp])
        if other is not None:  # laid out at a knock, gin or big gin
            draw.text((10, y + 20), f"{names[opp]} laid out:", fill=_GREY, font=small)
            _draw_row(draw, 130, y + 20, sorted(other))
    # the scoresheet
    y = 340
    cols = len(view["sheet"][0])
    draw.text((10, y), "Scoresheet", fill=_WHITE, font=text_font)
    for k in range(cols):
        draw.text((150 + 110 * k, y), f"game {k + 1}", fill=_WHITE, font=text_font)
    draw.text((150 + 110 * cols, y), "total", fill=_WHITE, font=text_font)
    for p in (0, 1):
        yy = y + 20 + 20 * p
        draw.text((10, yy), names[p], fill=_WHITE, font=text_font)
        for k, (opened, points, hands, won) in enumerate(view["sheet"][p]):
            cell = (f"{points} ({hands})" if opened else "-") + (" W" if won else "")
            draw.text((150 + 110 * k, yy), cell, fill=_GOLD if won else _WHITE, font=text_font)
        draw.text((150 + 110 * cols, yy), str(view["totals"][p]), fill=_WHITE, font=text_font)
    draw.text((10, y + 62), f"target {view['target']}; (n): hands credited; W: game won", fill=_GREY, font=small)
    return np.asarray(img, dtype=np.uint8)
