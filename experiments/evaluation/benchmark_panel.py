"""The benchmark's panel: the standard opponents of ``hollywood benchmark``, their published
ratings, and the fit of a new agent's rating with the panel's held fixed.

The panel's ratings are fitted once from a round robin of the panel and committed, one file per
game (``results/benchmark/panel_<rules>.json``, written by :func:`main`)::

    python -m experiments.evaluation.benchmark_panel --rules eaai --games 1000 --slow-games 100 \\
        --seed 5100 --out results/benchmark

Each pairing plays duplicate pairs on the deals of ``seed`` (the first ``n`` deals of the same
sequence for every pairing: common random numbers); a pairing with a slow member (``search``)
plays ``--slow-games`` instead of ``--games``. The file keeps every pairing's points per
duplicate pair, so a rerun with more members plays only the pairings it lacks
(``--reuse``), and the ratings are a Bradley-Terry fit of all of them
(:func:`experiments.evaluation.stats.bradley_terry_bootstrap`).

:func:`fit_against_panel` is the rating of one agent from its results against members of the
panel, the members' strengths held at their published values: the maximum of the Bradley-Terry
likelihood in the one free strength, with the panel fit's prior (one virtual draw per opponent
played). Its standard error is from the observed information; :func:`rating_against_panel` adds
a bootstrap over the agent's duplicate pairs and reports the wider interval. An agent whose
results are those of a member gets that member's rating: in the joint fit each strength solves
the same equation given the others.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import time
import zlib
from itertools import combinations
from pathlib import Path

import numpy as np

from experiments.evaluation.stats import ELO_PER_NAT, Z95

#: the panel of each game, weakest first by design; the trained members play only their own game
PANELS = {
    "hollywood": ["random", "simple", "neller", "hollywood", "marjj", "ppo-hollywood", "search"],
    "eaai": ["random", "simple", "neller", "hollywood", "marjj", "ppo-gin-rummy", "search"],
}
#: members too slow to play as many games as the rest (seconds per game, not milliseconds)
SLOW = ("search",)
#: where the published panel files live: the checkout's results/benchmark/
PANEL_DIR = Path(__file__).resolve().parents[2] / "results" / "benchmark"
#: per-pair points are stored as one digit per pair: twice the points (0 .. 4)
_DIGITS = "01234"


def panel_path(rules: str, folder: str | Path | None = None) -> Path:
    return Path(folder or PANEL_DIR) / f"panel_{rules}.json"


def load_panel(rules: str, folder: str | Path | None = None) -> dict | None:
    """The published panel of ``rules`` (the JSON of :func:`write_panel`), or None when there is none."""
    p = panel_path(rules, folder)
    if not p.is_file():
        return None
    with open(p) as f:
        return json.load(f)


def panel_strengths(panel: dict) -> dict[str, float]:
    """Member -> Bradley-Terry strength (natural log-odds, the file's gauge)."""
    return {row["agent"]: float(row["bt_strength"]) for row in panel["ratings"]}


def agent_seeds(seed: int, *names: str) -> list[np.random.Generator]:
    """The two agents' generators of a pairing named ``names``: a function of the seed and the
    names alone, so a pairing gets the same games whatever else is played beside it."""
    key = [int(seed), *(zlib.crc32(n.encode()) for n in names)]
    return [np.random.default_rng(s) for s in np.random.SeedSequence(key).spawn(2)]


def pair_points(r) -> tuple[np.ndarray, np.ndarray]:
    """A's and B's points per duplicate pair of a :class:`~agents.matches.PairingResult` (win 1,
    draw 1/2; an unfinished match gives neither side a point)."""
    mw = r.match_winner
    a = np.where(mw == 0, 1.0, np.where(mw == 2, 0.5, 0.0))
    b = np.where(mw == 1, 1.0, np.where(mw == 2, 0.5, 0.0))
    return r.pair(a), r.pair(b)


def encode_points(points) -> str:
    return "".join(_DIGITS[int(round(2 * p))] for p in points)


def decode_points(text: str) -> np.ndarray:
    return np.array([_DIGITS.index(c) / 2 for c in text], dtype=np.float64)


# --- the fit with the panel held fixed ------------------------------------------------------------


def fit_against_panel(opponent_strengths, points, games, prior_draws: float = 1.0,
                      iters: int = 100) -> tuple[float, float]:
    """The strength ``t`` of one agent that maximizes the Bradley-Terry likelihood of its results
    against opponents of fixed strengths: ``points[j]`` won (a draw 1/2) of ``games[j]`` against an
    opponent of strength ``opponent_strengths[j]``, plus ``prior_draws`` virtual drawn games
    against each opponent it played. Returns ``(t, standard error)``, natural log-odds, from
    Newton's method on the concave log-likelihood and its observed information."""
    theta = np.asarray(opponent_strengths, dtype=np.float64)
    w = np.asarray(points, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    played = n > 0
    if not played.any():
        raise ValueError("no results to fit: every game count is 0")
    w = np.where(played, w + prior_draws / 2, 0.0)
    n = np.where(played, n + prior_draws, 0.0)
    t = float(np.average(theta[played], weights=n[played]))
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(t - theta)))
        grad = float((w - n * p).sum())
        info = float((n * p * (1 - p)).sum())
        step = float(np.clip(grad / max(info, 1e-300), -5.0, 5.0))  # the log-likelihood is concave
        t += step
        if abs(step) < 1e-12:
            break
    p = 1.0 / (1.0 + np.exp(-(t - theta)))
    info = float((n * p * (1 - p)).sum())
    return t, 1.0 / math.sqrt(info) if info > 0 else math.inf


def log_likelihood(t: float, opponent_strengths, points, games, prior_draws: float = 1.0) -> float:
    """The objective :func:`fit_against_panel` maximizes, at strength ``t``."""
    theta = np.asarray(opponent_strengths, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    played = n > 0
    w = np.where(played, np.asarray(points, dtype=np.float64) + prior_draws / 2, 0.0)
    n = np.where(played, n + prior_draws, 0.0)
    d = t - theta
    return float((w * -np.logaddexp(0.0, -d) + (n - w) * -np.logaddexp(0.0, d)).sum())


def rating_against_panel(opponent_strengths, a_pair_points, b_pair_points, n_boot: int = 1000, seed: int = 0,
                         prior_draws: float = 1.0) -> dict:
    """The Elo rating of one agent from its results against panel members (strengths held fixed).

    ``a_pair_points[j]`` / ``b_pair_points[j]``: the agent's and opponent ``j``'s points per
    duplicate pair (arrays). The interval is the wider, on each side, of the observed-information
    interval and a percentile bootstrap over the agent's duplicate pairs (resampled jointly
    across opponents when all played the same deals, else per opponent)."""
    a = [np.asarray(x, dtype=np.float64) for x in a_pair_points]
    b = [np.asarray(x, dtype=np.float64) for x in b_pair_points]
    theta = np.asarray(opponent_strengths, dtype=np.float64)
    t, se = fit_against_panel(theta, [x.sum() for x in a], [x.sum() + y.sum() for x, y in zip(a, b, strict=True)], prior_draws)
    low, high = t - Z95 * se, t + Z95 * se
    if n_boot > 0:
        rng = np.random.default_rng(seed)
        sizes = {len(x) for x in a}
        shared = len(sizes) == 1
        boot = np.empty(n_boot)
        for k in range(n_boot):
            counts = None
            pts, games = [], []
            for x, y in zip(a, b, strict=True):
                m = len(x)
                if counts is None or not shared:
                    counts = np.bincount(rng.integers(0, m, size=m), minlength=m)
                pts.append(counts @ x)
                games.append(counts @ (x + y))
            boot[k] = fit_against_panel(theta, pts, games, prior_draws, iters=50)[0]
        q_low, q_high = np.quantile(boot, [(1 - 0.95) / 2, 1 - (1 - 0.95) / 2])
        low, high = min(low, float(q_low)), max(high, float(q_high))
    return {"elo": t * ELO_PER_NAT, "elo_low": low * ELO_PER_NAT, "elo_high": high * ELO_PER_NAT,
            "bt_strength": t, "bt_se": se, "games": int(sum(len(x) for x in a) * 2),
            "method": "Bradley-Terry maximum likelihood of this agent's results with the panel's strengths held at "
                      "their published values, one virtual draw per opponent as prior, Elo scale (400/ln 10 per unit); "
                      "95% interval: the union of the observed-information interval and a percentile bootstrap "
                      f"over the duplicate pairs ({n_boot} resamples)"}


# --- making the panel ---------------------------------------------------------------------------


def pairing_games(a: str, b: str, games: int, slow_games: int) -> int:
    return slow_games if a in SLOW or b in SLOW else games


def play_panel_pairings(rules: str, members: list[str], games: int, slow_games: int, seed: int,
                        reuse: dict | None = None, log=print) -> list[dict]:
    """Every pairing of ``members`` (in the panel's order), each as a JSON-ready record with the
    points per duplicate pair; a pairing found in ``reuse`` (an earlier panel file of the same
    rules and seed) with the same number of pairs is taken from it instead of played."""
    from agents.matches import deal_seeds, play_pairing

    old = {(p["agent_a"], p["agent_b"], p["pairs"]): p for p in (reuse or {}).get("pairings", [])}
    out = []
    for a, b in combinations(members, 2):
        n_pairs = (pairing_games(a, b, games, slow_games) + 1) // 2
        if (a, b, n_pairs) in old:
            out.append(old[(a, b, n_pairs)])
            log(f"{a} vs {b}: {2 * n_pairs} games, reused")
            continue
        t0 = time.perf_counter()
        r = play_pairing(a, b, rules, n_pairs, seed, slot_seeds=deal_seeds(seed, n_pairs),
                         agent_seeds=tuple(agent_seeds(seed, a, b)))
        pa, pb = pair_points(r)
        out.append({"agent_a": a, "agent_b": b, "pairs": n_pairs, "games": 2 * n_pairs,
                    "a_points": float(pa.sum()), "b_points": float(pb.sum()), "truncated": int(r.truncated.sum()),
                    "seconds": round(time.perf_counter() - t0, 1),
                    "a_pair_points2": encode_points(pa), "b_pair_points2": encode_points(pb)})
        log(f"{a} vs {b}: {2 * n_pairs} games, {pa.sum():g}-{pb.sum():g}, {time.perf_counter() - t0:.0f} s")
    return out


def fit_panel(members: list[str], pairings: list[dict], seed: int, n_boot: int = 300) -> list[dict]:
    """The members' ratings (:func:`~experiments.evaluation.stats.bradley_terry_bootstrap` rows)."""
    from experiments.evaluation.stats import bradley_terry_bootstrap

    idx = {m: i for i, m in enumerate(members)}
    results = [(idx[p["agent_a"]], idx[p["agent_b"]], decode_points(p["a_pair_points2"]),
                decode_points(p["b_pair_points2"])) for p in pairings]
    return bradley_terry_bootstrap(members, results, n_boot=n_boot, seed=seed).to_rows()


def main(argv: list[str] | None = None) -> int:
    from hollywood_env import __version__

    p = argparse.ArgumentParser(prog="python -m experiments.evaluation.benchmark_panel",
                                description="Play the benchmark panel's round robin and write its published ratings "
                                            "(panel_<rules>.json).")
    p.add_argument("--rules", required=True, choices=sorted(PANELS), help="the game: hollywood or eaai")
    p.add_argument("--games", type=int, default=1000, help="games per pairing (default 1000)")
    p.add_argument("--slow-games", type=int, default=100, help="games per pairing with a slow member (search; default 100)")
    p.add_argument("--leave-out", default="", metavar="A,B", help="members left out of this panel (comma-separated)")
    p.add_argument("--seed", type=int, default=5100, help="seed of the deals and of the agents (default 5100)")
    p.add_argument("--out", default=str(PANEL_DIR), metavar="DIR", help="folder of the panel file")
    p.add_argument("--reuse", action="store_true",
                   help="take the pairings already in the panel file (same rules, seed and games) instead of playing them")
    args = p.parse_args(argv)
    left_out = [m for m in args.leave_out.split(",") if m]
    unknown = [m for m in left_out if m not in PANELS[args.rules]]
    if unknown or args.games < 2 or args.slow_games < 2:
        p.error(f"--leave-out: not members of the panel: {unknown}" if unknown else "--games and --slow-games must be >= 2")
    members = [m for m in PANELS[args.rules] if m not in left_out]
    previous = load_panel(args.rules, args.out) if args.reuse else None
    if previous is not None and previous.get("seed") != args.seed:
        previous = None
    pairings = play_panel_pairings(args.rules, members, args.games, args.slow_games, args.seed, previous,
                                   log=lambda s: print(s, file=sys.stderr, flush=True))
    command = "python -m experiments.evaluation.benchmark_panel " + shlex.join(
        ["--rules", args.rules, "--games", str(args.games), "--slow-games", str(args.slow_games), "--seed", str(args.seed)]
        + (["--leave-out", ",".join(left_out)] if left_out else []))
    panel = {
        "rules": args.rules, "members": members, "left_out": left_out, "seed": args.seed,
        "games_per_pairing": args.games, "slow_games_per_pairing": args.slow_games, "slow_members": list(SLOW),
        "unit": "match" if args.rules == "hollywood" else "game", "command": command, "version": __version__,
        "rating_method": "Bradley-Terry on every result (win 1, draw 1/2), one virtual draw per pairing as prior, Elo "
                         "scale (400/ln 10 per unit), information-weighted mean 0; 95% interval: the union of a percentile "
                         "bootstrap over the duplicate pairs (300 resamples) and the observed-information interval",
        "pair_points_format": "a_pair_points2 / b_pair_points2: one digit per duplicate pair, twice the points of "
                              "agent_a / agent_b in the pair (a win 1, a draw 1/2, an unfinished match 0)",
        "ratings": fit_panel(members, pairings, args.seed),
        "pairings": pairings,
    }
    os.makedirs(args.out, exist_ok=True)
    path = panel_path(args.rules, args.out)
    with open(path, "w") as f:
        json.dump(panel, f, indent=1)
        f.write("\n")
    for row in panel["ratings"]:
        print(f"{row['rank']}. {row['agent']:<14} {row['elo']:+7.1f} [{row['elo_low']:+.1f}, {row['elo_high']:+.1f}]")
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
