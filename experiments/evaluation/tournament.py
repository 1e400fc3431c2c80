"""Round-robin tournaments on shared deals, their summaries, files and heatmap.

:func:`round_robin` plays every pairing of a list of agents with :func:`agents.matches.play_pairing`
on the same deals (common random numbers) and fits ratings; the whole tournament is a function of
its seed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from agents.matches import DEFAULT_BATCH_PAIRS, DEFAULT_MAX_STEPS, PairingResult, agent_generators, deal_seeds, play_pairing
from hollywood_env.rules import Rules, resolve_rules


@dataclass
class TournamentResult:
    agents: list
    rules: Rules
    n_pairs: int
    seed: int | None
    per_hand: bool
    pairings: dict  # (i, j) -> PairingResult (i < j, agent i is A)
    seconds: float = 0.0


def round_robin(agents: list[str], rules: Rules | str | None = None, n_pairs: int = 1000, seed: int | None = 0, *,
                max_steps: int | None = DEFAULT_MAX_STEPS, per_hand: bool = False,
                batch_pairs: int = DEFAULT_BATCH_PAIRS, progress=None, ray: bool = False,
                ray_address: str | None = None) -> TournamentResult:
    """Every pairing of ``agents`` (specs) plays ``n_pairs`` duplicate pairs on the same deals.

    ``ray=True`` plays the pairings as parallel Ray tasks
    (:mod:`experiments.evaluation.ray_pairings`; a local Ray, or the cluster at ``ray_address``)
    with the same results: each pairing's deals and agent seeds are fixed here before any is
    played."""
    rules = resolve_rules(rules)
    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {agents}")
    labels = unique_labels(agents)
    seeds = deal_seeds(seed, n_pairs)
    pairs = list(combinations(range(len(agents)), 2))
    rngs = agent_generators(seed, 2 * len(pairs))
    jobs = [((i, j), dict(agent_a=agents[i], agent_b=agents[j], rules=rules, n_pairs=n_pairs, seed=seed,
                          max_steps=max_steps, per_hand=per_hand, slot_seeds=seeds, batch_pairs=batch_pairs,
                          names=(labels[i], labels[j]), agent_seeds=(rngs[2 * k], rngs[2 * k + 1])))
            for k, (i, j) in enumerate(pairs)]
    t0 = time.perf_counter()
    if ray:
        from experiments.evaluation.ray_pairings import play_pairings_ray

        results = play_pairings_ray(jobs, progress, address=ray_address)
    else:
        results = {key: play_pairing(**kw, progress=progress) for key, kw in jobs}
    return TournamentResult(labels, rules, n_pairs, seed, per_hand, results, time.perf_counter() - t0)


def unique_labels(agents: list[str]) -> list[str]:
    """Display labels; a spec listed twice gets ``#2``, ``#3``..."""
    seen: dict[str, int] = {}
    out = []
    for a in agents:
        a = str(a)
        seen[a] = seen.get(a, 0) + 1
        out.append(a if seen[a] == 1 else f"{a}#{seen[a]}")
    return out


# --- tournament report -------------------------------------------------------------------------


def _pair_points(r: PairingResult):
    """A's and B's points per duplicate pair: matches (win 1, draw 1/2), or hands won per hand."""
    if r.per_hand:
        return r.pair(r.a_hands).astype(float), r.pair(r.b_hands).astype(float)
    mw = r.match_winner
    a = np.where(mw == 0, 1.0, np.where(mw == 2, 0.5, 0.0))
    b = np.where(mw == 1, 1.0, np.where(mw == 2, 0.5, 0.0))
    return r.pair(a), r.pair(b)


def summarize_tournament(t: TournamentResult, reward: str = "hollywood", n_boot: int = 1000,
                         n_boot_ratings: int = 300) -> dict:
    """Pairing summaries, the matrix of match win rates (hand win rates with ``per_hand``) with
    Wilson intervals, and Bradley-Terry / Elo ratings fitted on every result."""
    from experiments.evaluation.head_to_head import summarize
    from experiments.evaluation.stats import bradley_terry, bradley_terry_bootstrap

    k = len(t.agents)
    key = "hand_win_rate" if t.per_hand else "match_win_rate"
    rate = np.full((k, k), np.nan)
    low = np.full((k, k), np.nan)
    high = np.full((k, k), np.nan)
    game_wins = np.zeros((k, k))
    pairings = []
    for (i, j), r in t.pairings.items():
        s = summarize(r, reward, n_boot=n_boot, boot_seed=(0 if t.seed is None else int(t.seed)) + 7 * i + j)
        pairings.append(s)
        e = s["metrics"][key]
        rate[i, j], low[i, j], high[i, j] = e["value"], e["low"], e["high"]
        if e["value"] is not None:
            rate[j, i], low[j, i], high[j, i] = 1 - e["value"], 1 - e["high"], 1 - e["low"]
        game_wins[i, j], game_wins[j, i] = s["a_games_won"], s["b_games_won"]
    boot_seed = 0 if t.seed is None else int(t.seed)
    match_pts = [(i, j) + _pair_points(r) for (i, j), r in t.pairings.items()]
    ratings = bradley_terry_bootstrap(t.agents, match_pts, n_boot=n_boot_ratings, seed=boot_seed)
    out = {
        "agents": t.agents, "rules": t.rules.preset_name or "custom", "rules_options": t.rules.to_dict(),
        "reward": reward, "seed": t.seed, "pairs_per_pairing": t.n_pairs, "per_hand": t.per_hand,
        "unit": "hand" if t.per_hand else "game" if t.rules.columns == 1 else "match", "matrix_metric": key,
        "seconds": round(t.seconds, 3),
        "decisions": int(sum(r.decisions for r in t.pairings.values())),
        "matrix": {"rate": _nan_list(rate), "low": _nan_list(low), "high": _nan_list(high)},
        "ratings": ratings.to_rows(),
        "rating_method": "Bradley-Terry on every result (win 1, draw 1/2), one virtual draw per pairing as prior, "
                         "Elo scale (400/ln 10 per unit), information-weighted mean 0; 95% interval: the union of a percentile "
                         "bootstrap over the duplicate deals (shared by all pairings) and the observed-information "
                         "interval (bt_se)",
        "pairings": pairings,
    }
    if not t.per_hand and t.rules.columns > 1:
        out["ratings_games"] = bradley_terry(t.agents, game_wins).to_rows()  # Hollywood games won
        out["ratings_games_method"] = "Bradley-Terry on Hollywood games won; intervals from the observed information"
    return out


def _plural(unit: str) -> str:
    return {"match": "matches", "game": "games", "hand": "hands"}[unit]


def _matrix_table(agents: list[str], cell) -> list[str]:
    """A Markdown table of ``cell(i, j)`` for every row agent ``i`` and column agent ``j``."""
    lines = ["| | " + " | ".join(agents) + " |", "|---|" + "---|" * len(agents)]
    for i, a in enumerate(agents):
        lines.append(f"| **{a}** | " + " | ".join("—" if i == j else cell(i, j) for j in range(len(agents))) + " |")
    return lines


def _nan_list(a):
    return [[None if not np.isfinite(x) else float(x) for x in row] for row in a]


def format_tournament(s: dict) -> str:
    """The Markdown tables printed to the terminal."""
    agents = s["agents"]
    unit = s["unit"]
    rate, low, high = (np.array([[np.nan if x is None else x for x in row] for row in s["matrix"][k]], dtype=float)
                       for k in ("rate", "low", "high"))
    what = f"games won to {s['rules_options']['target']}" if unit == "game" else f"{unit} win rate"
    lines = [f"## Round robin: {len(agents)} agents, {2 * s['pairs_per_pairing']} {_plural(unit)} per pairing "
             f"({s['pairs_per_pairing']} duplicate pairs), rules `{s['rules']}`, seed {s['seed']}",
             "", f"{what} by the row agent against the column agent, 95% Wilson interval", ""]
    lines += _matrix_table(agents, lambda i, j: f"{100 * rate[i, j]:.1f}% [{100 * low[i, j]:.1f}, {100 * high[i, j]:.1f}]"
                           if np.isfinite(rate[i, j]) else "—")
    points = {}
    for p in s["pairings"]:
        e = p["metrics"]["points_per_hand"]
        if e["value"] is not None:
            i, j = agents.index(p["agent_a"]), agents.index(p["agent_b"])
            if e["low"] is None or e["high"] is None:  # too few pairs for an interval
                points[i, j], points[j, i] = (e["value"],), (-e["value"],)
            else:
                points[i, j], points[j, i] = (e["value"], e["low"], e["high"]), (-e["value"], -e["high"], -e["low"])
    lines += ["", "net points per decided hand of the row agent, 95% pair-bootstrap interval", ""]
    lines += _matrix_table(agents, lambda i, j: "—" if (i, j) not in points else
                           "{:+.1f} [{:+.1f}, {:+.1f}]".format(*points[i, j]) if len(points[i, j]) == 3 else
                           "{:+.1f}".format(*points[i, j]))
    lines += ["", "| rank | agent | Elo | 95% CI | score | results |", "|---|---|---|---|---|---|"]
    for row in s["ratings"]:
        lines.append(f"| {row['rank']} | {row['agent']} | {row['elo']:+.0f} | [{row['elo_low']:+.0f}, {row['elo_high']:+.0f}] "
                     f"| {100 * (row['score'] or 0):.1f}% | {row['results']} |")
    trunc = sum(p["matches_truncated"] for p in s["pairings"])
    if trunc and unit != "hand":
        lines += ["", f"{trunc} matches were truncated at {s['pairings'][0]['max_steps']} decisions "
                      "and are left out of the rates."]
    return "\n".join(lines)


PAIRING_FIELDS = ["agent_a", "agent_b", "games_played", "matches_completed", "matches_truncated", "a_match_wins",
                  "b_match_wins", "match_draws", "hands", "walls", "a_hands_won", "b_hands_won", "a_games_won",
                  "b_games_won", "decisions", "seconds"]


def write_tournament(s: dict, out_dir, plot: bool = True) -> dict:
    """Write ``tournament.json``, ``pairings.csv``, ``matrix.csv``, ``ratings.csv``,
    ``tournament.md`` and (with matplotlib) ``heatmap.png`` under ``out_dir``. Returns
    ``{kind: path}``, and ``note`` when the heatmap was skipped."""
    import csv
    import json
    import os

    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    p = os.path.join(out_dir, "tournament.json")
    with open(p, "w") as f:
        json.dump(s, f, indent=1)
    paths["json"] = p
    metric_names = list(s["pairings"][0]["metrics"]) if s["pairings"] else []
    p = os.path.join(out_dir, "pairings.csv")
    with open(p, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(PAIRING_FIELDS + [f"{m}_{x}" for m in metric_names for x in ("value", "low", "high")])
        for row in s["pairings"]:
            w.writerow([row[k] for k in PAIRING_FIELDS]
                       + [row["metrics"][m][x] for m in metric_names for x in ("value", "low", "high")])
    paths["pairings_csv"] = p
    p = os.path.join(out_dir, "matrix.csv")
    with open(p, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["agent", "opponent", f"{s['unit']}_win_rate", "low", "high"])
        for i, a in enumerate(s["agents"]):
            for j, b in enumerate(s["agents"]):
                if i != j:
                    w.writerow([a, b, s["matrix"]["rate"][i][j], s["matrix"]["low"][i][j], s["matrix"]["high"][i][j]])
    paths["matrix_csv"] = p
    p = os.path.join(out_dir, "ratings.csv")
    with open(p, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(s["ratings"][0]))
        w.writeheader()
        w.writerows(s["ratings"])
    paths["ratings_csv"] = p
    p = os.path.join(out_dir, "tournament.md")
    with open(p, "w") as f:
        f.write(format_tournament(s) + "\n")
    paths["markdown"] = p
    if plot:
        try:
            paths["heatmap"] = plot_heatmap(s, os.path.join(out_dir, "heatmap.png"))
        except ImportError:
            paths["note"] = ("heatmap.png skipped: matplotlib is not installed "
                             "(pip install 'hollywood-gin-rl[plot]' or pip install matplotlib)")
    return paths


def draw_heatmap(ax, s: dict, labels=None, digits: int = 1):
    """Draw the win-rate matrix of a tournament summary on matplotlib axes ``ax`` (annotated with
    the 95% intervals). Returns the image, for a colorbar."""
    agents = list(labels if labels is not None else s["agents"])
    k = len(agents)
    rate, low, high = (np.array([[np.nan if x is None else x for x in row] for row in s["matrix"][key]], dtype=float)
                       for key in ("rate", "low", "high"))
    im = ax.imshow(np.ma.masked_invalid(rate), cmap="RdBu", vmin=0, vmax=1)
    ax.set_xticks(range(k), agents, rotation=30, ha="right")
    ax.set_yticks(range(k), agents)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    for i in range(k):
        for j in range(k):
            if i != j and np.isfinite(rate[i, j]):
                dark = abs(rate[i, j] - 0.5) > 0.3
                ax.text(j, i, f"{100 * rate[i, j]:.{digits}f}%\n[{100 * low[i, j]:.{digits}f}, {100 * high[i, j]:.{digits}f}]",
                        ha="center", va="center", fontsize=8, color="white" if dark else "black")
    return im


def plot_heatmap(s: dict, path: str) -> str:
    """The matrix of win rates as an annotated heatmap PNG (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = len(s["agents"])
    fig, ax = plt.subplots(figsize=(1.6 * k + 2.5, 1.3 * k + 1.5))
    im = draw_heatmap(ax, s)
    fig.colorbar(im, ax=ax, label=f"{s['unit']} win rate")
    ax.set_title(f"{s['unit']} win rate, rules {s['rules']}, {2 * s['pairs_per_pairing']} {_plural(s['unit'])} per pairing")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
