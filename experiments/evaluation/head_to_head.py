"""Head-to-head evaluation with duplicate deals, and its statistics.

:func:`evaluate` plays A against B (see :func:`agents.matches.play_pairing`) and
:func:`summarize` turns the raw result into rates and means with 95% intervals:

=======================  ======================================================  ================
metric                   definition (from A's side unless named ``b_``)           interval
=======================  ======================================================  ================
``match_win_rate``       matches won (a draw counts 1/2) / completed matches      Wilson
                         (one-column rules: a match is one game to the target,
                         so this is the share of games won, the headline)
``match_score_by_pair``  mean over duplicate pairs of the pair's match score      t over pairs
``game_win_rate``        Hollywood games (columns) won / games ended              Wilson
                         (rules with several columns only)
``hand_win_rate``        hands won / hands decided (walls excluded)               Wilson
``points_per_hand``      (A's hand points - B's) / hands decided                  bootstrap, pairs
``a_knock_win_rate``     A's knocks that won (not gin, not undercut) / hands      Wilson
                         decided
``a_gin_rate``           A's gins (and big gins) / hands decided                  Wilson
``a_undercut_rate``      hands where A undercut B's knock / hands decided         Wilson
``a_knocks_undercut``    A's (non-gin) knocks that were undercut / those knocks   Wilson
``wall_rate``            walls / hands dealt                                      Wilson
``reward_per_match``     A's zero-sum return per match in the reward mode         bootstrap, pairs
=======================  ======================================================  ================

(``b_knock_win_rate``, ``b_gin_rate``, ``b_undercut_rate``, ``b_knocks_undercut`` likewise; B's
undercut rate is the share of hands in which A was undercut.) Rates use the Wilson
interval over their units, which treats them as independent. The two games of a duplicate pair
share their deals, so their results are correlated: the luck of the cards makes them negatively
correlated for A, but a deal sequence that suits one agent's style makes them positively
correlated (hollywood vs simple: the pair interval is about 20% wider than Wilson's). So means
resample whole duplicate pairs (cluster bootstrap), and ``match_score_by_pair`` gives the match
win rate with the pair as the unit: quote it when the two disagree.

Reward modes (docs/rules.md section 6, A's return per match, zero-sum): ``hand`` = (A's hand
points - B's) / 100; ``hollywood`` = (A's scoresheet total - B's) / 100 at the end of the match (columns
times points plus bonuses); ``games`` = games won by A - by B; ``match`` = +1 / -1 / 0.
Truncated matches count with what they had scored (``match``: 0 unless finished).
"""

from __future__ import annotations

import numpy as np

from agents.matches import DEFAULT_BATCH_PAIRS, DEFAULT_MAX_STEPS, PairingResult, play_pairing
from experiments.evaluation.stats import Estimate, cluster_bootstrap, t_interval, wilson
from hollywood_env.rewards import MODES as REWARD_MODES
from hollywood_env.rewards import match_return
from hollywood_env.rules import Rules, resolve_rules

METRIC_LABELS = {
    "match_win_rate": "match win rate",
    "match_score_by_pair": "match score per duplicate pair",
    "game_win_rate": "Hollywood game win rate",
    "a_knock_win_rate": "knocks won (A)",
    "b_knock_win_rate": "knocks won (B)",
    "hand_win_rate": "hand win rate (walls excluded)",
    "points_per_hand": "net points per decided hand",
    "a_gin_rate": "gin rate (A)",
    "b_gin_rate": "gin rate (B)",
    "a_undercut_rate": "undercuts made (A)",
    "b_undercut_rate": "undercuts made (B), suffered by A",
    "a_knocks_undercut": "knocks undercut (A)",
    "b_knocks_undercut": "knocks undercut (B)",
    "wall_rate": "wall rate",
    "reward_per_match": "return per match",
}
PCT_METRICS = {"match_win_rate", "match_score_by_pair", "game_win_rate", "hand_win_rate", "a_knock_win_rate",
               "b_knock_win_rate", "a_gin_rate", "b_gin_rate",
               "a_undercut_rate", "b_undercut_rate", "a_knocks_undercut", "b_knocks_undercut", "wall_rate"}


def check_reward(reward: str) -> str:
    if reward not in REWARD_MODES:
        raise ValueError(f"unknown reward mode {reward!r}; valid modes: {', '.join(REWARD_MODES)}")
    return reward


def match_returns(r: PairingResult, reward: str) -> np.ndarray:
    """A's return in each game (per-game array) under ``reward`` (:func:`hollywood_env.rewards.match_return`)."""
    check_reward(reward)
    return match_return(reward, np.stack([r.a_points, r.b_points], axis=1), np.stack([r.a_total, r.b_total], axis=1),
                        np.stack([r.a_games, r.b_games], axis=1), r.match_winner,
                        hands_won=np.stack([r.a_hands, r.b_hands], axis=1))


def match_scores(r: PairingResult) -> np.ndarray:
    """A's match score per game: 1 won, 1/2 drawn, 0 lost, NaN not finished."""
    mw = r.match_winner
    return np.where(mw == 0, 1.0, np.where(mw == 1, 0.0, np.where(mw == 2, 0.5, np.nan)))


def summarize(r: PairingResult, reward: str = "hollywood", n_boot: int = 2000, boot_seed: int = 0) -> dict:
    """Rates and means with 95% intervals (see the module docstring) as a JSON-ready dict."""
    check_reward(reward)
    decided = r.hands - r.walls
    nd = float(decided.sum())
    m: dict[str, Estimate] = {}
    if not r.per_hand:
        score = match_scores(r)
        done = np.isfinite(score)
        m["match_win_rate"] = wilson(np.nansum(score), done.sum())
        pair_score = r.pair(np.where(done, score, 0.0)) / 2.0
        pair_done = done[: r.n_pairs] & done[r.n_pairs:]
        m["match_score_by_pair"] = t_interval(pair_score[pair_done])
        if r.rules.columns > 1:
            games = r.a_games + r.b_games
            m["game_win_rate"] = wilson(r.a_games.sum(), games.sum())
    # points beside the hand win rate: a hand-winner that is undercut loses games
    m["points_per_hand"] = cluster_bootstrap(r.pair(r.a_points - r.b_points), r.pair(decided), n_boot, boot_seed)
    m["hand_win_rate"] = wilson(r.a_hands.sum(), nd)
    m["a_knock_win_rate"] = wilson(r.a_knocks.sum() - r.b_undercuts.sum(), nd)
    m["b_knock_win_rate"] = wilson(r.b_knocks.sum() - r.a_undercuts.sum(), nd)
    m["a_gin_rate"] = wilson(r.a_gins.sum(), nd)
    m["b_gin_rate"] = wilson(r.b_gins.sum(), nd)
    m["a_undercut_rate"] = wilson(r.a_undercuts.sum(), nd)
    m["b_undercut_rate"] = wilson(r.b_undercuts.sum(), nd)
    m["a_knocks_undercut"] = wilson(r.b_undercuts.sum(), r.a_knocks.sum())
    m["b_knocks_undercut"] = wilson(r.a_undercuts.sum(), r.b_knocks.sum())
    m["wall_rate"] = wilson(r.walls.sum(), r.hands.sum())
    if not r.per_hand:
        m["reward_per_match"] = cluster_bootstrap(r.pair(match_returns(r, reward)), np.full(r.n_pairs, 2.0), n_boot,
                                                  boot_seed + 1)
    mw = r.match_winner
    return {
        "agent_a": r.agent_a, "agent_b": r.agent_b,
        "rules": r.rules.preset_name or "custom", "rules_options": r.rules.to_dict(),
        "reward": reward, "per_hand": r.per_hand, "seed": r.seed, "max_steps": r.max_steps,
        "pairs": r.n_pairs, "games_played": r.n_games,
        "matches_completed": int((mw >= 0).sum()), "matches_truncated": int(r.truncated.sum()),
        "a_match_wins": int((mw == 0).sum()), "b_match_wins": int((mw == 1).sum()), "match_draws": int((mw == 2).sum()),
        "hands": int(r.hands.sum()), "walls": int(r.walls.sum()), "hands_decided": int(nd),
        "a_hands_won": int(r.a_hands.sum()), "b_hands_won": int(r.b_hands.sum()),
        "a_games_won": int(r.a_games.sum()), "b_games_won": int(r.b_games.sum()),
        "decisions": int(r.decisions), "seconds": round(r.seconds, 3),
        "decisions_per_second": round(r.decisions / r.seconds) if r.seconds > 0 else None,
        "metrics": {k: v.to_dict() for k, v in m.items()},
    }


def evaluate(agent_a, agent_b, rules: Rules | str | None = "hollywood", matches: int | None = 2000,
             hands: int | None = None, seed: int | None = 0, reward: str = "hollywood",
             max_steps: int | None = DEFAULT_MAX_STEPS, batch_pairs: int = DEFAULT_BATCH_PAIRS, progress=None,
             n_boot: int = 2000) -> tuple[dict, PairingResult]:
    """Play ``matches`` matches (or ``hands`` single hands) of A against B, in duplicate pairs
    (an odd count is rounded up), and summarise them. Returns ``(summary, raw result)``."""
    check_reward(reward)
    rules = resolve_rules(rules)
    per_hand = hands is not None
    total = hands if per_hand else matches
    if total is None or total < 2:
        raise ValueError(f"play at least 2 {'hands' if per_hand else 'matches'} (one duplicate pair), got {total}")
    n_pairs = (int(total) + 1) // 2
    r = play_pairing(agent_a, agent_b, rules, n_pairs, seed, max_steps=max_steps, per_hand=per_hand,
                     batch_pairs=batch_pairs, progress=progress)
    return summarize(r, reward, n_boot=n_boot, boot_seed=0 if seed is None else int(seed)), r


def metric_label(key: str, s: dict) -> str:
    """The label of a metric of :func:`summarize`'s dict ``s``: with one column a match is one game
    to the target, and its win rate reads as games won."""
    opts = s["rules_options"]
    if key == "match_win_rate" and opts["columns"] == 1:
        return f"games won (to {opts['target']})"
    if key == "match_score_by_pair" and opts["columns"] == 1:
        return "game score per duplicate pair"
    label = METRIC_LABELS.get(key, key)
    return label + f" ({s['reward']})" if key == "reward_per_match" else label


def format_summary(s: dict) -> str:
    """A Markdown report of :func:`summarize`'s dict."""
    a, b = s["agent_a"], s["agent_b"]
    one_column = s["rules_options"]["columns"] == 1
    unit = "hands" if s["per_hand"] else f"games to {s['rules_options']['target']}" if one_column else "matches"
    lines = [
        f"## {a} (A) vs {b} (B): {s['games_played']} {unit} in {s['pairs']} duplicate pairs",
        "",
        f"rules `{s['rules']}`, reward `{s['reward']}`, seed {s['seed']}, max steps {s['max_steps']}; "
        f"{s['hands']} hands ({s['walls']} walls), {s['decisions']} decisions in {s['seconds']:.1f} s",
    ]
    if not s["per_hand"]:
        lines.append(f"{'games' if one_column else 'matches'}: A won {s['a_match_wins']}, B won {s['b_match_wins']}, "
                     f"drawn {s['match_draws']}, truncated {s['matches_truncated']} (excluded from the rates)")
    lines += ["", "| metric | value [95% CI] | n | interval |", "|---|---|---|---|"]
    for k, d in s["metrics"].items():
        e = Estimate(*(np.nan if d[x] is None else d[x] for x in ("value", "low", "high", "n")), d["method"])
        label = metric_label(k, s)
        n = f"{e.n:.0f}" if np.isfinite(e.n) else ""
        lines.append(f"| {label} | {e.fmt(pct=k in PCT_METRICS)} | {n} | {e.method} |")
    return "\n".join(lines)
