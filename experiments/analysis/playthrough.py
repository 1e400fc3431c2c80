"""One match recorded hand by hand, and the views of the record (``notebooks/play_through.ipynb``).

* :func:`record_match`: one match of two agents in the batched core at batch size 1, recorded
  as a :class:`MatchRecord` of :class:`HandRecord` (the deal, the moves, the cards at the end
  with melds and lay-offs, the discard pile and stock left, the result and the scoresheet after
  it, a :class:`SheetSnapshot`).
* :func:`hand_markdown`, :func:`match_markdown`, :func:`match_table_markdown`,
  :func:`scoresheet_markdown`, :func:`cards_text`, :func:`melds_text`: Markdown views;
  :func:`sheet_history` and :func:`plot_scoresheet`: the scoresheet over the match.

Many matches, played in batches for statistics, are :func:`agents.matches.play_pairing`;
this module plays one, slowly, to keep everything that happened in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.matches import agent_generators
from agents.registry import call_policy, make_agent
from experiments.evaluation.tournament import unique_labels
from hollywood_env import core
from hollywood_env.actions import DRAW_STOCK, KNOCK, action_name
from hollywood_env.cards import format_card, mask_to_cards, sort_cards
from hollywood_env.observation import encode
from hollywood_env.render import hand_summary
from hollywood_env.rules import resolve_rules

# --- the record --------------------------------------------------------------------------------


@dataclass
class SheetSnapshot:
    """The scoresheet of one match at a point: ``columns``, ``hands_scored`` (2, C) int,
    ``opened`` (2, C) bool, ``game_winner`` (C,) (-1: in progress), ``totals`` (2, C): columns
    plus the bonuses of ended games."""

    columns: np.ndarray
    hands_scored: np.ndarray
    opened: np.ndarray
    game_winner: np.ndarray
    totals: np.ndarray

    @classmethod
    def of(cls, state, game: int = 0) -> SheetSnapshot:
        sh = state.sheet
        return cls(columns=sh.columns[game].copy(), hands_scored=sh.hands_scored[game].copy(),
                   opened=sh.opened[game].copy(), game_winner=sh.game_winner[game].astype(np.int64),
                   totals=sh.totals(np.array([game]))[0].copy())


@dataclass
class HandRecord:
    """One hand of a recorded match (seats 0 and 1; card indices, see :mod:`hollywood_env.cards`).

    The deal: ``number`` (1-based, walls included), ``dealer``, ``dealt`` (each seat's 10 cards),
    ``upcard``, ``knock_limit``, ``multiplier``. The play: ``moves`` ((seat, action) pairs).
    The end: ``kind`` (knock, gin, undercut, big_gin, wall), ``knocker`` / ``winner`` (None for
    a wall), ``points``, the deadwoods, ``final_hands``, the melds, ``laid_off``,
    ``defender_deadwood_cards``, ``discard_pile`` (bottom to top) and ``stock`` (cards left),
    ``columns_credited`` / ``games_ended`` (1-based games), and ``sheet`` after the hand.
    """

    number: int
    dealer: int
    dealt: tuple[list[int], list[int]]
    upcard: int
    knock_limit: int
    multiplier: int
    moves: list[tuple[int, int]] = field(default_factory=list)
    kind: str = ""
    knocker: int | None = None
    winner: int | None = None
    points: int = 0
    knocker_deadwood: int = 0
    defender_deadwood: int = 0
    final_hands: tuple[list[int], list[int]] = ([], [])
    knocker_melds: list[list[int]] = field(default_factory=list)
    defender_melds: list[list[int]] = field(default_factory=list)
    laid_off: list[int] = field(default_factory=list)
    defender_deadwood_cards: list[int] = field(default_factory=list)
    discard_pile: list[int] = field(default_factory=list)
    stock: list[int] = field(default_factory=list)
    columns_credited: list[int] = field(default_factory=list)
    games_ended: list[int] = field(default_factory=list)
    sheet: SheetSnapshot | None = None

    @property
    def wall(self) -> bool:
        return self.kind == "wall"


@dataclass
class MatchRecord:
    """A recorded match: ``hands`` (finished hands, in order; the record also iterates over
    them), the agents (``specs``, display ``names``; ``specs[0]`` in seat 0), the rules and
    seed, the result (``match_winner``: 0, 1, 2 for a draw, -1 unfinished), and the final core
    ``state`` (batch size 1)."""

    specs: tuple[str, str]
    names: tuple[str, str]
    rules: Any
    seed: int
    hands: list[HandRecord]
    match_winner: int
    terminated: bool
    truncated: bool
    decisions: int
    state: Any = None

    def __iter__(self):
        return iter(self.hands)

    def __len__(self) -> int:
        return len(self.hands)

    def __getitem__(self, i):
        return self.hands[i]

    @property
    def final_sheet(self) -> SheetSnapshot:
        return SheetSnapshot.of(self.state)


def record_match(agent_a="simple", agent_b="hollywood", rules="hollywood", seed: int = 0, max_steps: int | None = 3000,
                 names: Sequence[str] | None = None) -> MatchRecord:
    """Play one match of ``agent_a`` (seat 0) against ``agent_b`` (seat 1) in the batched core at
    batch size 1 and record it hand by hand.

    Agents are :func:`agents.registry.make_agent` specs or policies; ``seed`` fixes the deals
    (``core.init(1, rules, seed)``) and the agents' own randomness. ``max_steps`` caps the
    decisions (a truncated match keeps its finished hands). Returns a :class:`MatchRecord`.
    """
    rules = resolve_rules(rules)
    specs = tuple(a if isinstance(a, str) else getattr(a, "name", type(a).__name__) for a in (agent_a, agent_b))
    names = tuple(names) if names is not None else tuple(unique_labels(list(specs)))
    rngs = agent_generators(int(seed), 2)
    policies = [make_agent(agent_a, rules, seed=rngs[0]), make_agent(agent_b, rules, seed=rngs[1])]
    state = core.init(1, rules, seed=int(seed), max_steps=max_steps)
    hands: list[HandRecord] = []
    current = _start_hand(state)
    decisions = 0
    # The game loop: it only plays and notes the moves; what a hand was is read off the state by
    # _start_hand and _end_hand.
    while not state.done[0]:
        seat = int(state.current_player[0])
        action = int(call_policy(policies[seat], encode(state), state.legal_action_mask, state).reshape(-1)[0])
        pile, stock = _pile_and_stock(state)  # before the step: one that ends a hand deals the next
        core.step(state, np.array([action], dtype=np.int64))  # raises on an illegal action
        decisions += 1
        current.moves.append((seat, action))
        if state.hand_ended[0]:
            hands.append(_end_hand(current, state, action, pile, stock))
            if not state.done[0]:
                current = _start_hand(state)
    mw = int(state.match_winner[0])
    return MatchRecord(specs=specs, names=names, rules=rules, seed=int(seed), hands=hands,
                       match_winner=mw if bool(state.terminated[0]) else -1, terminated=bool(state.terminated[0]),
                       truncated=bool(state.truncated[0]), decisions=decisions, state=state)


def _start_hand(state) -> HandRecord:
    """The record of the hand just dealt in ``state``: its deal, no moves yet."""
    return HandRecord(number=int(state.hand_number[0]) + 1, dealer=int(state.dealer[0]),
                      dealt=(mask_to_cards(int(state.hands[0, 0])), mask_to_cards(int(state.hands[0, 1]))),
                      upcard=int(state.pile[0, 0]), knock_limit=int(state.knock_limit[0]),
                      multiplier=int(state.multiplier[0]))


def _pile_and_stock(state) -> tuple[list[int], list[int]]:
    """The discard pile (bottom to top) and the stock left in ``state``."""
    return (state.pile[0, : state.pile_size[0]].astype(int).tolist(),
            state.deck[0, state.stock_pos[0]:].astype(int).tolist())


def _end_hand(h: HandRecord, state, last_action: int, pile: list[int], stock: list[int]) -> HandRecord:
    """``h`` completed from ``state`` just after the step that ended the hand: the result, the
    cards at the end, the scoresheet. ``pile`` and ``stock`` are from before that step (which
    dealt the next hand); the last action's discard, if it was one, goes on top of the pile."""
    s = hand_summary(state, 0, names=(0, 1))  # names = seats
    h.kind, h.knocker, h.winner, h.points = s["kind"], s["knocker"], s["winner"], s["points"]
    h.knocker_deadwood, h.defender_deadwood = s["knocker_deadwood"], s["defender_deadwood"]
    h.final_hands = (s["hands"][0], s["hands"][1])
    h.knocker_melds, h.defender_melds, h.laid_off = s["knocker_melds"], s["defender_melds"], s["laid_off"]
    if h.knocker is not None:
        kept = {c for m in h.defender_melds for c in m} | set(h.laid_off)
        h.defender_deadwood_cards = [c for c in h.final_hands[1 - h.knocker] if c not in kept]
    h.discard_pile = pile + ([last_action % KNOCK] if last_action < DRAW_STOCK else [])
    h.stock = stock
    h.columns_credited, h.games_ended = s["columns_credited"], s["games_ended"]
    h.sheet = SheetSnapshot.of(state)
    return h


# --- views of a recorded match -----------------------------------------------------------------

_RED = "#c0392b"


def cards_text(cards: Iterable[int], html: bool = False) -> str:
    """Cards with unicode suits, sorted by suit then rank (``A♣ 7♣ T♦``); ``html`` colours ♦ and
    ♥ red. ``—`` for none."""
    out = []
    for c in sort_cards(cards):
        s = format_card(c, unicode=True)
        if html and c // 13 in (1, 2):
            s = f'<span style="color:{_RED}">{s}</span>'
        out.append(s)
    return " ".join(out) if out else "—"


def melds_text(melds: Sequence[Sequence[int]], html: bool = False) -> str:
    """Melds as ``[7♣ 7♦ 7♠] [3♥ 4♥ 5♥]``; ``—`` for none."""
    return " ".join("[" + cards_text(m, html) + "]" for m in melds) if melds else "—"


def scoresheet_markdown(sheet: SheetSnapshot, names: Sequence[str], target: int | None = None) -> str:
    """The scoresheet as a Markdown table: per game a player's column points and, in brackets,
    the hands credited to it (``—``: not opened), **W** for the winner of an ended game, and the
    total with the bonuses of ended games."""
    c = sheet.columns.shape[1]
    lines = ["| | " + " | ".join(f"game {k + 1}" for k in range(c)) + " | total |", "|---|" + "---:|" * (c + 1)]
    for p in (0, 1):
        cells = []
        for k in range(c):
            cell = f"{int(sheet.columns[p, k])} ({int(sheet.hands_scored[p, k])})" if sheet.opened[p, k] else "—"
            if sheet.game_winner[k] == p:
                cell = f"**{cell} W**"
            cells.append(cell)
        lines.append(f"| {names[p]} | " + " | ".join(cells) + f" | {int(sheet.totals[p].sum())} |")
    if target is not None:
        lines.append(f"\n*target {target}; (n): hands credited to the column; W: game won; totals include the "
                     f"bonuses of ended games*")
    return "\n".join(lines)


def _result_text(h: HandRecord, names: Sequence[str]) -> str:
    if h.wall:
        return "**The wall**: two cards left in the stock, nobody scores; the same dealer deals again."
    k, d = h.knocker, 1 - h.knocker
    what = {"gin": "goes gin", "big_gin": "goes big gin", "knock": f"knocks with {h.knocker_deadwood}",
            "undercut": f"knocks with {h.knocker_deadwood}"}[h.kind]
    text = f"**{names[k]} {what}**; {names[d]} has {h.defender_deadwood} deadwood"
    if h.laid_off:
        text += f" after laying off {len(h.laid_off)} card{'s' if len(h.laid_off) > 1 else ''}"
    text += ". "
    if h.kind == "undercut":
        text += f"**Undercut**: {names[h.winner]} scores {h.points}"
    else:
        text += f"{names[h.winner]} scores {h.points}"
    if h.multiplier > 1:
        text += " (doubled: spade upcard)"
    if h.columns_credited:
        text += f", entered in game{'s' if len(h.columns_credited) > 1 else ''} {', '.join(map(str, h.columns_credited))}"
    text += "."
    if h.games_ended:
        text += f" Game{'s' if len(h.games_ended) > 1 else ''} {', '.join(map(str, h.games_ended))} ended."
    return text


def hand_markdown(h: HandRecord, names: Sequence[str], html: bool = True, show_moves: bool = False,
                  target: int | None = None) -> str:
    """One hand as Markdown: the deal, both hands at the end with melds, lay-offs and deadwood,
    the discard pile and stock left, the result, and the scoresheet after the hand. ``html``:
    red ♦ ♥; ``show_moves``: every decision, in a collapsible block."""
    cell = lambda cards: cards_text(cards, html)  # noqa: E731
    up = cell([h.upcard])
    head = (f"### Hand {h.number} — dealer {names[h.dealer]}, upcard {up}, knock limit {h.knock_limit}"
            f"{', score doubled' if h.multiplier > 1 else ''}")
    rows = ["| | " + " | ".join(names) + " |", "|---|---|---|",
            "| dealt | " + " | ".join(cell(h.dealt[p]) for p in (0, 1)) + " |",
            "| at the end | " + " | ".join(cell(h.final_hands[p]) for p in (0, 1)) + " |"]
    if not h.wall:
        k = h.knocker
        melds = {k: h.knocker_melds, 1 - k: h.defender_melds}
        melded = {p: {c for m in melds[p] for c in m} for p in (0, 1)}
        dead = {k: [c for c in h.final_hands[k] if c not in melded[k]], 1 - k: h.defender_deadwood_cards}
        dw = {k: h.knocker_deadwood, 1 - k: h.defender_deadwood}
        role = {k: "knocker", 1 - k: "defender"}
        rows.append("| role | " + " | ".join(role[p] for p in (0, 1)) + " |")
        rows.append("| melds | " + " | ".join(melds_text(melds[p], html) for p in (0, 1)) + " |")
        rows.append("| laid off | " + " | ".join(cell(h.laid_off) if p == 1 - k else "—" for p in (0, 1)) + " |")
        rows.append("| deadwood | " + " | ".join(f"{cell(dead[p])} = **{dw[p]}**" for p in (0, 1)) + " |")
    parts = [head, "", "\n".join(rows), "",
             f"Discard pile ({len(h.discard_pile)}, top last): {cell(h.discard_pile)}  \n"
             f"Stock left: {len(h.stock)} cards · {len(h.moves)} decisions", "", _result_text(h, names)]
    if show_moves:
        moves = "; ".join(f"{names[p]}: {action_name(a)}" for p, a in h.moves)
        parts += ["", f"<details><summary>moves</summary>\n\n{moves}\n\n</details>"]
    if h.sheet is not None:
        parts += ["", scoresheet_markdown(h.sheet, names, target)]
    return "\n".join(parts)


def match_markdown(m: MatchRecord) -> str:
    """A header for the match: agents, rules, seed, hands, and the result."""
    r = m.rules
    walls = sum(h.wall for h in m.hands)
    head = [f"## {m.names[0]} (seat 0) vs {m.names[1]} (seat 1)", "",
            f"rules `{r.preset_name or 'custom'}` (target {r.target}, {r.columns} games), seed {m.seed}: "
            f"{len(m.hands)} hands ({walls} walls), {m.decisions} decisions."]
    if m.terminated:
        head.append("**Result:** " + ("a draw." if m.match_winner == 2 else f"{m.names[m.match_winner]} wins the match."))
    else:
        head.append(f"**Unfinished:** truncated after {m.decisions} decisions (max_steps).")
    return "\n".join(head)


def match_table_markdown(m: MatchRecord) -> str:
    """One row per hand: dealer, result, points, and the totals after it."""
    n0, n1 = m.names
    lines = [f"| hand | dealer | result | winner | points | games | total {n0} | total {n1} |",
             "|---:|---|---|---|---:|---|---:|---:|"]
    for h in m.hands:
        who = "wall" if h.wall else f"{h.kind} (knocker {m.names[h.knocker]})"
        win = "—" if h.winner is None else m.names[h.winner]
        games = ", ".join(map(str, h.columns_credited)) or "—"
        t = h.sheet.totals.sum(axis=1)
        lines.append(f"| {h.number} | {m.names[h.dealer]} | {who} | {win} | {h.points} | {games} | {int(t[0])} | {int(t[1])} |")
    return "\n".join(lines)


def sheet_history(m: MatchRecord, what: str = "columns") -> tuple[np.ndarray, np.ndarray]:
    """``(hand numbers, values)``: the start (hand 0, all zero) then each hand's sheet;
    ``values`` is (hands + 1, 2, C) of ``what`` (``columns``, ``totals`` or ``hands_scored``)."""
    c = m.rules.columns
    x = np.array([0] + [h.number for h in m.hands])
    vals = np.stack([np.zeros((2, c), dtype=np.int64)] + [getattr(h.sheet, what) for h in m.hands])
    return x, vals


def plot_scoresheet(m: MatchRecord, what: str = "columns"):
    """Each scoresheet column over the match: one line per player per column (colour: the
    game, solid: seat 0, dashed: seat 1), the target as a dotted line, a star where a game
    ended. ``what="totals"`` plots the totals with bonuses instead. Returns the figure."""
    import matplotlib.pyplot as plt

    x, vals = sheet_history(m, what)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    c = vals.shape[2]
    for k in range(c):
        for p, style in ((0, "-"), (1, "--")):
            ax.step(x, vals[:, p, k], where="post", linestyle=style, color=f"C{k}",
                    label=f"game {k + 1}: {m.names[p]}")
    for h in m.hands:
        for g in h.games_ended:
            ax.plot([h.number], [getattr(h.sheet, what)[h.winner, g - 1]], marker="*", markersize=14,
                    color=f"C{g - 1}", markeredgecolor="black")
    if what == "columns":
        ax.axhline(m.rules.target, color="grey", linestyle=":", linewidth=1, label=f"target {m.rules.target}")
    ax.set_xlabel("hand (walls included)")
    ax.set_ylabel("column points" if what == "columns" else what)
    ax.set_title(f"{m.names[0]} (solid) vs {m.names[1]} (dashed): scoresheet {what} after each hand", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig