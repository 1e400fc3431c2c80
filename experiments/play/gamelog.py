"""Game logs of matches played in the browser, and what is read from them.

The log (one JSON file per match, written by the server after every move; see
:mod:`experiments.play.store`) holds:

=======================  ========================================================================
key                      value
=======================  ========================================================================
``format``               ``"hollywood-play-log"``; ``format_version``: 1
``match_id``             ``YYYYMMDD-HHMMSS-s<seed>``; ``created``, ``updated``: ISO times
``status``               ``in_progress``, ``finished`` or ``abandoned``
``kind``                 how it was started: ``new``, ``replay`` (same seed again) or ``daily``
``rules``, ``preset``    every rule option (``Rules.to_dict()``) and the preset they equal
``seed``                 the match number: ``core.init(1, rules, seed)`` deals its cards
``players``              ``{"human": 0, "agent": 1}``: the seats; ``opponent``: the agent's spec
``actions``              every ``[seat, action]`` (:mod:`hollywood_env.actions`) in order
``hands_acknowledged``   hand results the person has seen and left
``hands``                per ended hand: ``number``, ``dealer``, ``dealt`` (both 10-card hands),
                         ``upcard``, ``knock_limit``, ``multiplier``, ``moves`` (seat, action,
                         name, ``drawn``: the card a stock draw gave), ``kind``, ``knocker``,
                         ``winner``, ``points``, the deadwoods, ``final_hands``, the melds,
                         ``laid_off``, ``columns_credited``, ``games_ended``, ``sheet_after``
                         (``columns``, ``totals``, ``hands_scored``, ``opened``,
                         ``game_winner``: the scoresheet after the hand) and ``explanation``
``result``               when finished: ``winner`` (``human``, ``agent``, ``draw``), ``totals``
                         (grand totals with bonuses), ``margin`` (human minus agent),
                         ``games_won``, ``hands_won``, ``hands``
=======================  ========================================================================

The log is complete (both hands, the cards drawn): it is for after the match, never sent to
the browser. ``rules``, ``seed`` and ``actions`` alone determine the match; the rest is a
readable record, checked against a replay by :func:`load_log`.

* :func:`load_log` -- read and check a log (replayed through the core).
* :func:`format_replay` -- the match hand by hand as text (``hollywood replay LOG``).
* :func:`match_record` -- a :class:`experiments.analysis.playthrough.MatchRecord`, for the play_through
  notebook's views.
* :func:`human_results` / :func:`format_results` -- the person's results per opponent (and
  rules) over a folder of logs, with 95% intervals (``hollywood play-results DIR``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from hollywood_env.cards import parse_card

from ..evaluation.stats import t_interval, wilson
from .game import AGENT, HUMAN, PlayMatch

SEAT_NAMES = {HUMAN: "human", AGENT: "agent"}


class _ReplayOnly:
    """Stands in for the agent when a finished log is replayed: it is never asked to move."""

    def __call__(self, obs, mask):
        raise ValueError("the log ends where the agent is to move: it cannot be replayed without the agent")


def load_log(path) -> tuple[dict, PlayMatch]:
    """``(log, match)``: the log at ``path`` and the match rebuilt from its rules, seed and
    actions. Raises ``ValueError`` with the file name for a file that is not a valid log, or
    whose recorded hands disagree with the replay."""
    path = Path(path)
    try:
        with open(path) as f:
            log = json.load(f)
    except OSError as e:
        raise ValueError(f"{path}: cannot read it ({e.strerror or e})") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON ({e})") from None
    try:
        log_for_replay = dict(log)
        log_for_replay["status"] = "abandoned"  # replay the actions only: the agent is not asked to move
        match = PlayMatch.from_log(log_for_replay, _ReplayOnly())
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    recorded = [{k: h.get(k) for k in ("kind", "winner", "points")} for h in log.get("hands", [])]
    replayed = [{k: h.get(k) for k in ("kind", "winner", "points")} for h in match.hands]
    if recorded != replayed:
        raise ValueError(f"{path}: the recorded hand results disagree with a replay of its actions")
    match.status_override = "abandoned" if log.get("status") == "abandoned" else None
    return log, match


# --- hollywood replay ---------------------------------------------------------------------------


def _names(log: dict) -> dict:
    return {HUMAN: "You", AGENT: f"{log.get('opponent', 'agent')}", None: None}


def format_replay(log: dict, match: PlayMatch, moves: bool = True, hand: int | None = None) -> str:
    """The match hand by hand: the deal, every move (``moves``), the result in words and the
    scoresheet after each hand. ``hand``: only that hand (1-based)."""
    names = _names(log)
    lines = [f"Match {log['match_id']} ({log.get('kind', 'new')}), seed {log['seed']}, rules "
             f"{log.get('preset') or 'custom'}: You (seat 0) vs {names[AGENT]} (seat 1); {log.get('status')}."]
    columns = match.rules.columns
    for h in match.hands:
        if hand is not None and h["number"] != hand:
            continue
        lines.append("")
        lines.append(f"Hand {h['number']}: dealer {names[h['dealer']]}, upcard {h['upcard']}, knock limit "
                     f"{h['knock_limit']}" + (f", score x{h['multiplier']}" if h["multiplier"] > 1 else ""))
        for p in (HUMAN, AGENT):
            lines.append(f"  dealt to {names[p]:<12} {' '.join(h['dealt'][p])}")
        if moves:
            for i, m in enumerate(h["moves"], 1):
                drawn = f" ({m['drawn']})" if m.get("drawn") else ""
                lines.append(f"  {i:3d}. {names[m['seat']]:<12} {m['name']}{drawn}")
        lines.append("  " + h["explanation"])
        if h["kind"] != "wall":
            k = h["knocker"]
            km = " ".join("[" + " ".join(m) + "]" for m in h["knocker_melds"]) or "-"
            dm = " ".join("[" + " ".join(m) + "]" for m in h["defender_melds"]) or "-"
            lines.append(f"  {names[k]} (knocker) melds {km}, deadwood {h['knocker_deadwood']}")
            lines.append(f"  {names[1 - k]} (defender) melds {dm}, laid off {' '.join(h['laid_off']) or '-'}, "
                         f"deadwood {h['defender_deadwood']}")
        sheet = h["sheet_after"]
        cells = []
        for g in range(columns):
            w = sheet["game_winner"][g]
            mark = "" if w < 0 else f" (won by {names[w]})"
            cells.append(f"game {g + 1}: {sheet['columns'][HUMAN][g]}-{sheet['columns'][AGENT][g]}{mark}")
        lines.append("  scoresheet (You-" + names[AGENT] + "): " + "; ".join(cells))
    res = match.result()
    if res is not None and hand is None:
        who = {"human": "You win", "agent": f"{names[AGENT]} wins", "draw": "A draw"}[res["winner"]]
        lines.append("")
        lines.append(f"Match over: {who}; totals with bonuses {res['totals'][HUMAN]} to {res['totals'][AGENT]} "
                     f"(margin {res['margin']:+d}), games {res['games_won'][HUMAN]}-{res['games_won'][AGENT]}, "
                     f"hands {res['hands_won'][HUMAN]}-{res['hands_won'][AGENT]}.")
    elif res is None and hand is None:
        lines.append("")
        lines.append(f"Unfinished ({log.get('status')}) after {len(match.hands)} hand(s) and "
                     f"{len(match.actions)} action(s).")
    return "\n".join(lines)


def match_record(log: dict, match: PlayMatch):
    """The match as a :class:`experiments.analysis.playthrough.MatchRecord` (seat 0 the person), so the
    play_through notebook's views (``hand_markdown``, ``match_table_markdown``, the scoresheet
    plots) show a match played in the browser."""
    from ..analysis.playthrough import HandRecord, MatchRecord, SheetSnapshot

    hands = []
    c = match.rules.columns
    for h in match.hands:
        def cards(xs):
            return [parse_card(x) for x in xs]
        rec = HandRecord(number=h["number"], dealer=h["dealer"], dealt=(cards(h["dealt"][0]), cards(h["dealt"][1])),
                         upcard=parse_card(h["upcard"]), knock_limit=h["knock_limit"], multiplier=h["multiplier"],
                         moves=[(m["seat"], m["action"]) for m in h["moves"]])
        rec.kind, rec.knocker, rec.winner, rec.points = h["kind"], h["knocker"], h["winner"], h["points"]
        rec.knocker_deadwood, rec.defender_deadwood = h["knocker_deadwood"], h["defender_deadwood"]
        rec.final_hands = tuple(cards(x) for x in h["final_hands"])
        rec.knocker_melds = [cards(m) for m in h["knocker_melds"]]
        rec.defender_melds = [cards(m) for m in h["defender_melds"]]
        rec.laid_off = cards(h["laid_off"])
        if rec.knocker is not None:
            kept = {x for m in rec.defender_melds for x in m} | set(rec.laid_off)
            rec.defender_deadwood_cards = [x for x in rec.final_hands[1 - rec.knocker] if x not in kept]
        rec.columns_credited, rec.games_ended = h["columns_credited"], h["games_ended"]
        s = h["sheet_after"]
        gw = np.array(s["game_winner"], dtype=np.int64)
        rec.sheet = SheetSnapshot(columns=np.array(s["columns"]).reshape(2, c),
                                  hands_scored=np.array(s["hands_scored"]).reshape(2, c),
                                  opened=np.array(s["opened"], dtype=bool).reshape(2, c), game_winner=gw,
                                  totals=np.array(s["totals"]).reshape(2, c))
        hands.append(rec)
    st = match.state
    over = bool(st.terminated[0])
    return MatchRecord(specs=("human", log["opponent"]), names=("You", log["opponent"]), rules=match.rules,
                       seed=match.seed, hands=hands, match_winner=int(st.match_winner[0]) if over else -1,
                       terminated=over, truncated=False, decisions=len(match.actions), state=st)


# --- the person's results ------------------------------------------------------------------------


def human_results(logs: list[dict]) -> list[dict]:
    """The person's results per (opponent, rules preset), from game logs in play order.

    Per group: ``finished`` matches, ``won``, ``lost``, ``drawn``, ``abandoned`` (not counted in
    the rates), ``win_rate`` (a draw counts one half; Wilson 95% interval), ``margin`` (grand
    total difference per finished match; mean with a t 95% interval), ``best_margin`` (largest
    winning margin), ``current_streak`` and ``best_streak`` (consecutive finished matches won),
    ``hands`` and ``hands_won`` with the hand win rate (Wilson; walls excluded from neither)."""
    groups: dict[tuple, dict] = {}
    for log in logs:
        key = (str(log.get("opponent")), str(log.get("preset") or "custom"))
        g = groups.setdefault(key, {"opponent": key[0], "rules": key[1], "finished": 0, "won": 0, "lost": 0,
                                    "drawn": 0, "abandoned": 0, "in_progress": 0, "margins": [], "win_margins": [],
                                    "current_streak": 0, "best_streak": 0, "hands": 0, "hands_won": 0})
        status = log.get("status")
        if status == "abandoned":
            g["abandoned"] += 1
            continue
        if status != "finished" or not log.get("result"):
            g["in_progress"] += 1
            continue
        r = log["result"]
        g["finished"] += 1
        g["margins"].append(int(r["margin"]))
        g["hands"] += int(r["hands"])
        g["hands_won"] += int(r["hands_won"][HUMAN])
        if r["winner"] == "human":
            g["won"] += 1
            g["win_margins"].append(int(r["margin"]))
            g["current_streak"] += 1
            g["best_streak"] = max(g["best_streak"], g["current_streak"])
        else:
            g["lost" if r["winner"] == "agent" else "drawn"] += 1
            g["current_streak"] = 0
    out = []
    for g in groups.values():
        margins = g.pop("margins")
        g["win_rate"] = wilson(g["won"] + 0.5 * g["drawn"], g["finished"]).to_dict()
        g["margin"] = t_interval(margins).to_dict()
        wins = g.pop("win_margins")
        g["best_margin"] = max(wins) if wins else None
        g["hand_win_rate"] = wilson(g["hands_won"], g["hands"]).to_dict()
        out.append(g)
    return sorted(out, key=lambda g: (g["opponent"], g["rules"]))


def _fmt(est: dict, pct: bool) -> str:
    if est["value"] is None:
        return "n/a"
    k, unit, d = (100.0, "%", 1) if pct else (1.0, "", 1)
    if est["low"] is None:
        return f"{est['value'] * k:.{d}f}{unit}"
    return f"{est['value'] * k:.{d}f}{unit} [{est['low'] * k:.{d}f}, {est['high'] * k:.{d}f}]"


def format_results(results: list[dict]) -> str:
    """A Markdown table of :func:`human_results`."""
    head = ("| opponent | rules | finished | won | lost | drawn | abandoned | win rate [95%] | "
            "margin per match [95%] | best margin | streak (best) | hands won [95%] |")
    lines = [head, "|" + "---|" * 12]
    for g in results:
        best = "-" if g["best_margin"] is None else f"{g['best_margin']:+d}"
        lines.append(f"| {g['opponent']} | {g['rules']} | {g['finished']} | {g['won']} | {g['lost']} | {g['drawn']} | "
                     f"{g['abandoned']} | {_fmt(g['win_rate'], True)} | {_fmt(g['margin'], False)} | {best} | "
                     f"{g['current_streak']} ({g['best_streak']}) | {_fmt(g['hand_win_rate'], True)} |")
    lines.append("")
    lines.append("Win rate: a drawn match counts one half; Wilson 95% interval. Margin: the human's grand total "
                 "(columns and bonuses) minus the agent's per finished match; t 95% interval. Abandoned and "
                 "unfinished matches are not in the rates.")
    return "\n".join(lines)
