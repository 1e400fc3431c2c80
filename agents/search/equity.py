"""Match-win equity: the chance that a player wins the Hollywood match from a given scoresheet.

A Hollywood match does not reward hand points as such: it rewards games won, two of three by
default (``docs/rules.md`` section 4). Twenty points that open a column or end a game are worth
more than twenty that land in a game already lost. The equity of a scoresheet for a viewer is
``P(the viewer wins the match | the sheet)``, a drawn match counting one half, for two players of
equal strength. ``search:value=equity`` values each rolled-out hand by the change of the viewer's
equity it makes (:mod:`agents.search.search`).

How it is estimated
===================

1. **Hand outcomes** (:class:`HandOutcomes`). The result of one hand is a wall (probability
   ``wall``), or a win by either player (one half each: equal players) of a number of points drawn
   from ``points``, the points of the won hands of real play (first hands of duplicate pairs
   between the bots and the shipped agents, :func:`collect_hand_outcomes`).
2. **Simulation** (:func:`play_out`). Scoresheets are played to the match's end with hand
   outcomes drawn independently, on the batched sheet of the engine
   (:class:`hollywood_env.scoring.BatchScoresheet`), so every rule of the sheet (opening columns,
   ended games, shutouts) is the engine's own.
3. **A model of the simulation** (:class:`EquityNet`): a small network fitted by cross-entropy to
   the final results of simulated matches from every sheet they passed through. The Monte-Carlo
   estimate of one sheet (:func:`monte_carlo_equity`, many play-outs of that sheet) is the slow,
   obvious reference it is tested against.

What is exact, not fitted (:meth:`MatchEquity.__call__`):

* a decided match: a player who has won a majority of the games has equity 1 (the other 0), and
  a match over with the games split evenly is worth one half;
* symmetry: the viewer's equity plus the opponent's is 1 on every sheet (the network's two
  readings, one from each seat, are averaged).

The sheet's features, from the viewer's side, per game ``k``: both players' column ``k`` over the
target (0 once the game has ended), whether each has opened it (in progress only), and whether
each has won it. Box and game bonuses do not decide a majority match, so they are not read.

Only majority matches of the whole session are modelled (``rules.match_winner == "majority"``,
``short_session`` off); a model holds the sheet rules it was fitted for (columns and target), and
using it under other rules is an error that says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.checkpoint import CheckpointError, atomic_write, read_model_file
from agents.paths import MODELS_DIR
from hollywood_env.rules import Rules, resolve_rules
from hollywood_env.scoring import BatchScoresheet

__all__ = ["EQUITY_FILE", "HandOutcomes", "collect_hand_outcomes", "play_out", "monte_carlo_equity",
           "sheet_features", "decided_equity", "EquityNet", "MatchEquity", "simulate_training_data",
           "fit_equity", "save_equity", "load_equity", "check_equity_rules"]

EQUITY_FORMAT = "hollywood-match-equity"
EQUITY_VERSION = 1
#: the shipped model of the ``hollywood`` rules (``hollywood equity train`` writes it)
EQUITY_FILE = MODELS_DIR / "equity_hollywood.pt"
#: the features of one game of the sheet (see the module docstring)
FEATURES_PER_GAME = 6
#: a play-out stops after this many hands (a safety net: a match of three games to 100 lasts
#: about 12 hands, and every won hand scores at least 1 point in a game in progress)
MAX_HANDS = 400


def check_equity_rules(rules: Rules) -> None:
    """Raise ``ValueError`` unless match equity is defined for ``rules`` (a majority match of
    the whole session)."""
    if rules.match_winner != "majority" or rules.short_session:
        raise ValueError(f"match equity is modelled for majority matches of the whole session only; these rules "
                         f"have match_winner={rules.match_winner!r}, short_session={rules.short_session!r}")


# --- hand outcomes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandOutcomes:
    """The result of one hand between equal players: a wall with probability ``wall``, else a
    win by either player (one half each) of ``points[j]`` points, each ``j`` as likely."""

    wall: float
    points: np.ndarray

    def __post_init__(self):
        pts = np.asarray(self.points)
        if not 0.0 <= self.wall < 1.0:
            raise ValueError(f"wall must be a probability below 1, got {self.wall!r}")
        if pts.ndim != 1 or pts.size == 0 or (pts <= 0).any():
            raise ValueError("points must be a non-empty 1-d array of positive hand points")

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``(winner, points)``, each ``(n,)`` int64: ``winner`` -1 for a wall, else 0 or 1."""
        wall = rng.random(n) < self.wall
        winner = np.where(wall, -1, rng.integers(0, 2, n))
        points = np.asarray(self.points, dtype=np.int64)[rng.integers(0, len(self.points), n)]
        return winner.astype(np.int64), points


#: the pairings whose first hands make the shipped model's outcome distribution
DEFAULT_PAIRINGS = (("ppo-hollywood-v1", "marjj"), ("ppo-hollywood-v1", "simple"), ("ppo-hollywood-v1", "hollywood"),
                    ("marjj", "simple"), ("marjj", "hollywood"), ("simple", "hollywood"), ("simple", "simple"))


def collect_hand_outcomes(rules: Rules | str,
                          pairings: Sequence[tuple[str, str]] = DEFAULT_PAIRINGS,
                          n_pairs: int = 2000, seed: int = 0) -> HandOutcomes:
    """The outcome distribution of the first hands of ``n_pairs`` duplicate pairs of each pairing
    (agent names of :func:`agents.registry.make_agent`): the share of walls and the points of
    every won hand, whoever won it."""
    from agents.matches import play_pairing  # the match harness loads every agent: import it only here

    rules = resolve_rules(rules)
    walls, hands, points = 0, 0, []
    for i, (a, b) in enumerate(pairings):
        r = play_pairing(a, b, rules, n_pairs=n_pairs, seed=seed * 1000 + i, per_hand=True)
        walls += int(r.walls.sum())
        hands += int(r.hands.sum())
        won = r.a_points + r.b_points
        points.append(won[won > 0])
    return HandOutcomes(wall=walls / max(hands, 1), points=np.concatenate(points).astype(np.int64))


# --- play-outs ---------------------------------------------------------------------------------------


def _sheet(rules: Rules, columns=None, opened=None, game_winner=None, n: int | None = None) -> BatchScoresheet:
    """A batched sheet of ``n`` matches, empty or a copy of the arrays given."""
    n = n if columns is None else len(columns)
    s = BatchScoresheet(n, rules)
    if columns is not None:
        s.columns[:] = columns
        s.opened[:] = opened
        s.game_winner[:] = game_winner
    return s


def _over(sheet: BatchScoresheet) -> np.ndarray:
    """Matches whose winner is known: over, or a majority of the games won by one player."""
    gw = sheet.game_winner
    need = sheet.rules.columns // 2 + 1
    return sheet.match_over() | ((gw == 0).sum(axis=1) >= need) | ((gw == 1).sum(axis=1) >= need)


def _winner_value(sheet: BatchScoresheet) -> np.ndarray:
    """Player 0's result of decided matches: 1, 0, or 0.5 for games split evenly."""
    gw = sheet.game_winner
    a, b = (gw == 0).sum(axis=1), (gw == 1).sum(axis=1)
    return np.where(a > b, 1.0, np.where(b > a, 0.0, 0.5))


def play_out(sheet: BatchScoresheet, outcomes: HandOutcomes, rng: np.random.Generator,
             record: list | None = None) -> np.ndarray:
    """Play every match of ``sheet`` (changed in place) to its end with hand outcomes drawn from
    ``outcomes``; player 0's result of each (1 won, 0 lost, 0.5 drawn). With ``record`` (a list),
    each hand appends ``(match indices, columns, opened, game_winner)`` of the matches still
    undecided before it is played."""
    check_equity_rules(sheet.rules)
    n = sheet.columns.shape[0]
    for _ in range(MAX_HANDS):
        live = np.flatnonzero(~_over(sheet))
        if live.size == 0:
            break
        if record is not None:
            record.append((live, sheet.columns[live].copy(), sheet.opened[live].copy(), sheet.game_winner[live].copy()))
        winner, points = outcomes.sample(live.size, rng)
        won = winner >= 0
        if won.any():
            sheet.record(live[won], winner[won], points[won])
    else:
        raise RuntimeError(f"{int((~_over(sheet)).sum())} of {n} matches undecided after {MAX_HANDS} hands")
    return _winner_value(sheet)


def monte_carlo_equity(rules: Rules | str, outcomes: HandOutcomes, columns: np.ndarray, opened: np.ndarray,
                       game_winner: np.ndarray, viewer: int, n_play_outs: int, rng: np.random.Generator) -> float:
    """The viewer's equity of one sheet (``columns (2, C)``, ``opened (2, C)``, ``game_winner (C,)``)
    as the mean result of ``n_play_outs`` play-outs: the slow reference of :class:`MatchEquity`."""
    rules = resolve_rules(rules)
    k = n_play_outs
    s = _sheet(rules, np.repeat(columns[None], k, 0), np.repeat(opened[None], k, 0), np.repeat(game_winner[None], k, 0))
    p0 = play_out(s, outcomes, rng).mean()
    return float(p0 if viewer == 0 else 1.0 - p0)


# --- features and the model --------------------------------------------------------------------------


def sheet_features(columns: np.ndarray, opened: np.ndarray, game_winner: np.ndarray, viewer: np.ndarray,
                   target: int) -> np.ndarray:
    """``(n, 6 C)`` float32: per game, the viewer's and the opponent's column over ``target`` and
    opened flags (0 once the game has ended), and whether each has won the game."""
    n = columns.shape[0]
    rows = np.arange(n)
    v = np.asarray(viewer, dtype=np.int64)
    o = 1 - v
    live = game_winner < 0
    f = np.stack([np.where(live, columns[rows, v] / target, 0.0), np.where(live, columns[rows, o] / target, 0.0),
                  live & opened[rows, v], live & opened[rows, o], game_winner == v[:, None], game_winner == o[:, None]],
                 axis=2)  # (n, C, 6)
    return f.reshape(n, -1).astype(np.float32)


def decided_equity(game_winner: np.ndarray, viewer: np.ndarray, rules: Rules) -> np.ndarray:
    """``(n,)``: the viewer's equity where the match is decided (a majority of games won, or all
    ended), NaN elsewhere."""
    v = np.asarray(viewer, dtype=np.int64)
    mine = (game_winner == v[:, None]).sum(axis=1)
    theirs = (game_winner == (1 - v)[:, None]).sum(axis=1)
    need = rules.columns // 2 + 1
    over = np.all(game_winner >= 0, axis=1)
    out = np.full(len(v), np.nan)
    out[mine >= need] = 1.0
    out[theirs >= need] = 0.0
    out[over & (mine == theirs)] = 0.5
    return out


class EquityNet(nn.Module):
    """Sheet features -> the logit of the viewer's match-win probability (an MLP)."""

    def __init__(self, n_inputs: int, hidden: int = 64, layers: int = 2):
        super().__init__()
        self.n_inputs, self.hidden, self.layers = n_inputs, hidden, layers
        dims = [n_inputs] + [hidden] * layers
        mods: list[nn.Module] = []
        for a, b in zip(dims[:-1], dims[1:], strict=True):
            mods += [nn.Linear(a, b), nn.ReLU()]
        self.body = nn.Sequential(*mods, nn.Linear(dims[-1], 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x).squeeze(-1)


class MatchEquity:
    """The viewer's match-win equity of batched scoresheets, from a fitted :class:`EquityNet`.

    ``equity(sheet, games, viewer)``: ``(n,)`` float64 in [0, 1] for the matches ``games`` of a
    :class:`~hollywood_env.scoring.BatchScoresheet` (exact where decided, symmetric between the
    seats; see the module docstring)."""

    def __init__(self, net: EquityNet, rules: Rules, meta: dict | None = None):
        check_equity_rules(rules)
        if net.n_inputs != FEATURES_PER_GAME * rules.columns:
            raise ValueError(f"an equity model of {net.n_inputs} inputs reads {net.n_inputs // FEATURES_PER_GAME} "
                             f"columns; these rules have {rules.columns}")
        self.net, self.rules, self.meta = net.eval(), rules, dict(meta or {})

    @classmethod
    def from_file(cls, path: str | Path, rules: Rules | str) -> MatchEquity:
        rules = resolve_rules(rules)
        net, meta = load_equity(path)
        fitted = (meta.get("columns"), meta.get("target"))
        if fitted != (rules.columns, rules.target):
            raise ValueError(f"{path}: fitted for {fitted[0]} columns to {fitted[1]}; these rules have "
                             f"{rules.columns} columns to {rules.target} (train one with `hollywood equity train`)")
        return cls(net, rules, meta)

    @classmethod
    def if_fitted(cls, path: str | Path, rules: Rules | str) -> MatchEquity | None:
        """The model of ``path`` when the file is there and was fitted for ``rules`` (their number
        of columns and target, a majority match of the whole session); ``None`` when the file is
        missing or the rules are others. A file that is there but not an equity model is an
        error (:func:`load_equity`)."""
        rules = resolve_rules(rules)
        if not Path(path).is_file():
            return None
        try:
            check_equity_rules(rules)
        except ValueError:
            return None
        net, meta = load_equity(path)
        if (meta.get("columns"), meta.get("target")) != (rules.columns, rules.target):
            return None
        return cls(net, rules, meta)

    def of_arrays(self, columns: np.ndarray, opened: np.ndarray, game_winner: np.ndarray,
                  viewer: np.ndarray) -> np.ndarray:
        """The viewer's equity of sheets given as arrays ``(n, 2, C)``, ``(n, 2, C)``, ``(n, C)``."""
        viewer = np.asarray(viewer, dtype=np.int64)
        t = self.rules.target
        both = np.concatenate([sheet_features(columns, opened, game_winner, viewer, t),
                               sheet_features(columns, opened, game_winner, 1 - viewer, t)])
        with torch.no_grad():
            p = torch.sigmoid(self.net(torch.from_numpy(both))).double().numpy()
        n = len(viewer)
        out = 0.5 * (p[:n] + 1.0 - p[n:])
        exact = decided_equity(game_winner, viewer, self.rules)
        return np.where(np.isnan(exact), out, exact)

    def __call__(self, sheet: BatchScoresheet, games: np.ndarray, viewer: np.ndarray) -> np.ndarray:
        return self.of_arrays(sheet.columns[games], sheet.opened[games], sheet.game_winner[games], viewer)


# --- fitting -----------------------------------------------------------------------------------------


def simulate_training_data(rules: Rules | str, outcomes: HandOutcomes, n_matches: int,
                           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play ``n_matches`` matches from empty sheets; every undecided sheet they passed through,
    as ``(columns, opened, game_winner, match index, player 0's final result)``."""
    rules = resolve_rules(rules)
    sheet = _sheet(rules, n=n_matches)
    record: list = []
    result = play_out(sheet, outcomes, rng, record)
    idx = np.concatenate([r[0] for r in record])
    cols, opened, gw = (np.concatenate([r[k] for r in record]) for k in (1, 2, 3))
    return cols, opened, gw, idx, result[idx]


def fit_equity(rules: Rules | str, outcomes: HandOutcomes, n_matches: int = 200_000, seed: int = 0,
               epochs: int = 4, batch: int = 4096, lr: float = 3e-3, hidden: int = 64, layers: int = 2,
               held_out: float = 0.1) -> tuple[EquityNet, dict]:
    """Fit an :class:`EquityNet` to ``n_matches`` simulated matches (``held_out`` of them kept
    apart); ``(net, metrics)`` with the held-out log loss of the model and of the constant 0.5."""
    rules = resolve_rules(rules)
    check_equity_rules(rules)
    rng = np.random.default_rng(seed)
    cols, opened, gw, idx, y = simulate_training_data(rules, outcomes, n_matches, rng)
    n = len(y)
    v0, v1 = np.zeros(n, np.int64), np.ones(n, np.int64)
    # both seats of every sheet: the viewer 1 reading has the complementary result
    x = np.concatenate([sheet_features(cols, opened, gw, v0, rules.target), sheet_features(cols, opened, gw, v1, rules.target)])
    t = np.concatenate([y, 1.0 - y]).astype(np.float32)
    match = np.concatenate([idx, idx])
    test = match < int(held_out * n_matches)  # whole matches held out
    xtr, ttr = torch.from_numpy(x[~test]), torch.from_numpy(t[~test])
    xte, tte = torch.from_numpy(x[test]), torch.from_numpy(t[test])
    g = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        net = EquityNet(x.shape[1], hidden, layers)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = epochs * (len(ttr) // batch + 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    loss_fn = nn.BCEWithLogitsLoss()
    for _ in range(epochs):
        perm = torch.randperm(len(ttr), generator=g)
        for i in range(0, len(ttr), batch):
            j = perm[i:i + batch]
            loss = loss_fn(net(xtr[j]), ttr[j])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    net.eval()
    with torch.no_grad():
        test_loss = float(loss_fn(net(xte), tte))
    const = float(loss_fn(torch.zeros(len(tte)), tte))
    return net, {"sheets": int(n), "matches": int(n_matches), "held_out_sheets": int(test.sum() // 2),
                 "log_loss": test_loss, "log_loss_constant": const}


def save_equity(path: str | Path, net: EquityNet, meta: dict) -> None:
    """Write ``net`` and ``meta`` (plain values: the rules fitted, the card's facts) weights-only."""
    data = {"format": EQUITY_FORMAT, "version": EQUITY_VERSION, "n_inputs": net.n_inputs, "hidden": net.hidden,
            "layers": net.layers, "model": {k: v.detach().clone() for k, v in net.state_dict().items()}, "meta": meta}
    atomic_write(path, lambda f: torch.save(data, f))


def load_equity(path: str | Path) -> tuple[EquityNet, dict]:
    """``(net, meta)`` of a file written by :func:`save_equity`; a :class:`CheckpointError` for
    anything else (missing, empty, another format or version, code in the file)."""
    data, what = read_model_file(path, "match-equity model", EQUITY_FORMAT, "fit one with `hollywood equity train`")
    if data.get("version") != EQUITY_VERSION:
        raise CheckpointError(f"{what}: version {data.get('version')!r} (this code reads version {EQUITY_VERSION})")
    try:
        with torch.random.fork_rng(devices=[]):
            net = EquityNet(int(data["n_inputs"]), int(data["hidden"]), int(data["layers"]))
        net.load_state_dict(data["model"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{what}: {type(e).__name__}: {str(e).splitlines()[0][:200]}") from None
    meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
    return net.eval(), meta
