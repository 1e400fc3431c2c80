"""Game-win equity of one-column Gin Rummy: the chance of winning a game to the target from a score.

In a game to 100 (the ``eaai`` preset, and every one-column preset without bonuses) hands win
nothing by themselves: points do, as they bring a player to the target. An early knock that wins
5 points and an undercut that loses 30 are not worth the same, and 20 points at 90-20 are worth
less than at 40-40. The equity of a score for a player is ``P(that player wins the game | the
score)``. ``search`` on one-column rules values each rolled-out hand by the change of that
equity (:mod:`agents.search.search`, ``value=equity``).

The table
=========

``E[a, b, s]``: the equity of a player with ``a`` points against ``b``, who starts the next hand
when ``s == 1`` (the starting player is the dealer's opponent, who sees the first upcard first).
Hands are independent draws from a model of hand outcomes (:class:`StarterOutcomes`): the
starter wins ``k`` points with probability ``starter[k]``, the other player with ``other[k]``.
After a scored hand the other player starts; a hand that ends at the wall is cancelled and
redealt with the same starter, so walls drop out of the model (the outcome probabilities are
those of the scored hands). Every scored hand gives its winner at least one point, so

    E[a, b, 1] = sum_k starter[k] V(a + k, b, 0) + other[k]   V(a, b + k, 0)
    E[a, b, 0] = sum_k starter[k] V(a, b + k, 1) + other[k]   V(a + k, b, 1)

with ``V = 1`` once the player reaches the target, ``0`` once the opponent does, and ``E``
otherwise: each value needs only scores of a larger sum, so one pass from the highest sum down
solves it exactly (:func:`equity_table`). The Monte-Carlo play-out of the same model
(:func:`monte_carlo_game_equity`) is the slow, obvious reference it is tested against.

The model of hand outcomes
==========================

:func:`collect_starter_outcomes` plays the first hands of duplicate pairs between agents
(by default ``marjj`` against itself, ``simple`` and ``hollywood``: a gin-hunter on at least one
side, as the search's opponents on these rules are) and counts the points each hand gave its
winner, split by whether the winner started. The shipped model of the ``eaai`` rules
(``models/game_equity_eaai.json``, plain JSON: histograms and how they were made) comes from
``hollywood_env``-only play with the command in that file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.paths import MODELS_DIR
from hollywood_env import core
from hollywood_env.rules import Rules, resolve_rules

GAME_EQUITY_FORMAT = "hollywood-game-equity"
GAME_EQUITY_VERSION = 1
#: the shipped outcome model of the ``eaai`` rules
GAME_EQUITY_FILE = MODELS_DIR / "game_equity_eaai.json"
#: the pairings whose first hands make the shipped outcome model
DEFAULT_PAIRINGS = (("marjj", "marjj"), ("marjj", "simple"), ("marjj", "hollywood"))


def check_game_equity_rules(rules: Rules) -> None:
    """Raise ``ValueError`` unless the equity of a game to the target is defined for ``rules``:
    one column, and no game or box bonus (so only the race to the target counts)."""
    if rules.columns != 1 or rules.game_bonus or rules.box_bonus:
        raise ValueError(f"game equity is modelled for one-column games with no game or box bonus (the eaai "
                         f"preset); these rules have columns={rules.columns}, game_bonus={rules.game_bonus}, "
                         f"box_bonus={rules.box_bonus}")


@dataclass(frozen=True)
class StarterOutcomes:
    """The scored hands of a model of play: ``starter[k]`` (``other[k]``) is the probability that a
    scored hand gives the starting player (the other player) ``k`` points; together they sum to 1,
    and index 0 is 0 (every scored hand is worth at least one point)."""

    starter: np.ndarray
    other: np.ndarray

    def __post_init__(self):
        s, o = np.asarray(self.starter, dtype=np.float64), np.asarray(self.other, dtype=np.float64)
        if s.ndim != 1 or s.shape != o.shape or s.size < 2:
            raise ValueError("starter and other must be 1-d arrays of the same length (index: points)")
        if (s < 0).any() or (o < 0).any() or s[0] or o[0] or not np.isclose(s.sum() + o.sum(), 1.0):
            raise ValueError("starter and other must be probabilities of 1 or more points that sum to 1")
        object.__setattr__(self, "starter", s)
        object.__setattr__(self, "other", o)

    @classmethod
    def from_counts(cls, starter_counts: Sequence[int], other_counts: Sequence[int]) -> StarterOutcomes:
        s, o = np.asarray(starter_counts, dtype=np.float64), np.asarray(other_counts, dtype=np.float64)
        n = max(s.size, o.size)
        s, o = np.pad(s, (0, n - s.size)), np.pad(o, (0, n - o.size))
        total = s.sum() + o.sum()
        if total <= 0:
            raise ValueError("no scored hand to make a model of")
        return cls(s / total, o / total)

    @property
    def starter_wins(self) -> float:
        """The share of scored hands the starting player wins."""
        return float(self.starter.sum())

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``(starter_won, points)``, each ``(n,)``: ``n`` independent scored hands."""
        p = np.concatenate([self.starter, self.other])
        j = rng.choice(p.size, size=n, p=p / p.sum())
        return j < self.starter.size, j % self.starter.size


def collect_starter_outcomes(rules: Rules | str, pairings: Sequence[tuple[str, str]] = DEFAULT_PAIRINGS,
                             n_pairs: int = 1000, seed: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
    """``(starter_counts, other_counts, walls)``: the points of the scored first hands of
    ``n_pairs`` duplicate pairs of each pairing (agent names of :func:`agents.registry.make_agent`),
    by whether the winner started, and the number of hands that ended at the wall."""
    from agents.matches import act, agent_generators  # the match harness loads every agent: only here
    from agents.registry import make_agent

    rules = resolve_rules(rules)
    starter, other, walls = np.zeros(rules.target + 200, np.int64), np.zeros(rules.target + 200, np.int64), 0
    for i, (a, b) in enumerate(pairings):
        rng_a, rng_b = agent_generators(seed * 1000 + i, 2)
        policies = (make_agent(a, rules, seed=rng_a), make_agent(b, rules, seed=rng_b))
        deal = np.random.SeedSequence([seed, i]).generate_state(1, np.uint64)[0]
        state = core.init(2 * n_pairs, rules, seed=np.tile(deal + np.arange(n_pairs, dtype=np.uint64), 2))
        a_seat = np.repeat([0, 1], n_pairs)  # duplicate: each deal from both seats
        first = 1 - state.dealer.astype(np.int64)
        live = np.ones(2 * n_pairs, dtype=bool)
        while live.any():
            idx = np.flatnonzero(live)
            actions = np.zeros(state.batch_size, dtype=np.int64)
            on_a = state.current_player[idx] == a_seat[idx]
            for rows, k in ((idx[on_a], 0), (idx[~on_a], 1)):
                if rows.size:
                    actions[rows] = act(policies[k], (a, b)[k], state, rows)
            core.step(state, actions, games=idx)
            ended = idx[state.hand_ended[idx]]
            won = ended[state.hand_winner[ended] >= 0]
            walls += ended.size - won.size
            pts = np.minimum(state.hand_points[won], starter.size - 1)
            by_starter = state.hand_winner[won] == first[won]
            np.add.at(starter, pts[by_starter], 1)
            np.add.at(other, pts[~by_starter], 1)
            live[ended] = False
    return starter, other, walls


def equity_table(outcomes: StarterOutcomes, target: int) -> np.ndarray:
    """``(target, target, 2)`` float64: ``E[a, b, s]`` of the module docstring, solved exactly."""
    k = np.arange(outcomes.starter.size)
    # V[x, y, s] on a board padded past the target: 1 where x >= target, 0 where y >= target
    size = target + k[-1] + 1
    v = np.zeros((size, size, 2))
    v[target:, :, :] = 1.0
    v[:target, target:, :] = 0.0
    st, ot = outcomes.starter, outcomes.other
    for total in range(2 * target - 2, -1, -1):
        for a in range(max(0, total - target + 1), min(total, target - 1) + 1):
            b = total - a
            v[a, b, 1] = st @ v[a + k, b, 0] + ot @ v[a, b + k, 0]
            v[a, b, 0] = st @ v[a, b + k, 1] + ot @ v[a + k, b, 1]
    return v[:target, :target].copy()


def monte_carlo_game_equity(outcomes: StarterOutcomes, target: int, a: int, b: int, starts: bool, n: int,
                            rng: np.random.Generator) -> float:
    """The slow reference of :func:`equity_table`: ``n`` games played from ``(a, b)`` with scored
    hands drawn from ``outcomes``; the share the player wins."""
    me, opp = np.full(n, a), np.full(n, b)
    i_start = np.full(n, bool(starts))
    live = np.ones(n, dtype=bool)
    while live.any():
        idx = np.flatnonzero(live)
        starter_won, pts = outcomes.sample(idx.size, rng)
        i_won = starter_won == i_start[idx]
        me[idx] += np.where(i_won, pts, 0)
        opp[idx] += np.where(i_won, 0, pts)
        i_start[idx] = ~i_start[idx]
        live = (me < target) & (opp < target)
    return float((me >= target).mean())


class GameEquity:
    """The viewer's game-win equity of batched one-column states, from :func:`equity_table`.

    ``equity(sheet, games, viewer, next_starter)``: ``(n,)`` float64 in [0, 1] for the games
    ``games`` of a :class:`~hollywood_env.scoring.BatchScoresheet`; ``next_starter`` (``(n,)``, the
    player who starts the next hand) or ``None`` (the mean over both)."""

    def __init__(self, outcomes: StarterOutcomes, rules: Rules | str, meta: dict | None = None):
        self.rules = resolve_rules(rules)
        check_game_equity_rules(self.rules)
        self.outcomes, self.meta = outcomes, dict(meta or {})
        self.table = equity_table(outcomes, self.rules.target)

    @classmethod
    def from_file(cls, path: str | Path, rules: Rules | str) -> GameEquity:
        """The outcome model of a JSON file written by :func:`save_outcomes`."""
        try:
            d = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"{path}: not a readable game-equity file ({e})") from None
        if not isinstance(d, dict) or d.get("format") != GAME_EQUITY_FORMAT or d.get("version") != GAME_EQUITY_VERSION:
            raise ValueError(f"{path}: not a {GAME_EQUITY_FORMAT} file of version {GAME_EQUITY_VERSION}")
        outcomes = StarterOutcomes.from_counts(d["starter_counts"], d["other_counts"])
        return cls(outcomes, rules, {k: v for k, v in d.items() if not k.endswith("_counts")})

    def of_scores(self, mine: np.ndarray, theirs: np.ndarray, i_start: np.ndarray | None) -> np.ndarray:
        """The equity of scores ``mine`` against ``theirs`` (``i_start``: whether the player starts
        the next hand; ``None``: the mean over both)."""
        t = self.rules.target
        mine, theirs = np.asarray(mine, dtype=np.int64), np.asarray(theirs, dtype=np.int64)
        a, b = np.minimum(mine, t - 1), np.minimum(theirs, t - 1)
        e = (0.5 * (self.table[a, b, 0] + self.table[a, b, 1]) if i_start is None
             else self.table[a, b, np.asarray(i_start, dtype=np.int64)])
        return np.where(mine >= t, 1.0, np.where(theirs >= t, 0.0, e))

    def __call__(self, sheet, games: np.ndarray, viewer: np.ndarray, next_starter: np.ndarray | None = None) -> np.ndarray:
        viewer = np.asarray(viewer, dtype=np.int64)
        cols = sheet.columns[games, :, 0]
        rows = np.arange(len(viewer))
        i_start = None if next_starter is None else np.asarray(next_starter) == viewer
        return self.of_scores(cols[rows, viewer], cols[rows, 1 - viewer], i_start)


def save_outcomes(path: str | Path, starter_counts: np.ndarray, other_counts: np.ndarray, meta: dict) -> None:
    """Write an outcome model (plain JSON: the counts and ``meta``, such as the command that made it)."""
    last = int(max(np.flatnonzero(starter_counts).max(initial=0), np.flatnonzero(other_counts).max(initial=0)))
    d = {"format": GAME_EQUITY_FORMAT, "version": GAME_EQUITY_VERSION, **meta,
         "starter_counts": [int(x) for x in starter_counts[: last + 1]],
         "other_counts": [int(x) for x in other_counts[: last + 1]]}
    Path(path).write_text(json.dumps(d, indent=1) + "\n", encoding="utf-8")


def default_game_equity(rules: Rules | str) -> GameEquity | None:
    """The shipped model for ``rules`` when it is one-column with no bonuses and the file is there."""
    rules = resolve_rules(rules)
    try:
        check_game_equity_rules(rules)
    except ValueError:
        return None
    return GameEquity.from_file(GAME_EQUITY_FILE, rules) if GAME_EQUITY_FILE.is_file() else None


def main(argv: Sequence[str] | None = None) -> int:
    """Write the shipped outcome model: ``python -m agents.search.game_equity [--pairs N] [--seed S]``."""
    import argparse
    import time

    p = argparse.ArgumentParser(prog="python -m agents.search.game_equity", description=main.__doc__)
    p.add_argument("--pairs", type=int, default=1000, help="duplicate pairs of first hands per pairing")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="eaai")
    p.add_argument("--out", default=str(GAME_EQUITY_FILE))
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    s, o, walls = collect_starter_outcomes(args.rules, DEFAULT_PAIRINGS, args.pairs, args.seed)
    meta = {"rules": args.rules, "pairings": [list(x) for x in DEFAULT_PAIRINGS], "pairs": args.pairs,
            "seed": args.seed, "walls": walls,
            "command": f"python -m agents.search.game_equity --pairs {args.pairs} --seed {args.seed} --rules {args.rules}"}
    save_outcomes(args.out, s, o, meta)
    eq = GameEquity.from_file(args.out, args.rules)
    print(f"wrote {args.out}: {s.sum() + o.sum()} scored hands, {walls} walls, the starter wins "
          f"{100 * eq.outcomes.starter_wins:.1f}%; equity at 0-0: {eq.table[0, 0, 1]:.3f} starting, "
          f"{eq.table[0, 0, 0]:.3f} not ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
