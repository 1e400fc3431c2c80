"""Points per won hand by opponent: how often each bot's wins score 25 points or more (a gin or an
undercut bonus), in 100 Hollywood matches against the shipped PPO (``ppo-hollywood-v1``), deals from
seed 555 on. The figures behind ``combine=sheet``'s 25-point line (docs/agents.md, "Search").

    .venv/bin/python results/search/combine/win_points.py > results/search/combine/win_points.md
"""

import numpy as np

from agents.matches import act
from agents.registry import make_agent
from hollywood_env import core
from hollywood_env.actions import KIND_WALL
from hollywood_env.rules import resolve_rules

rules = resolve_rules("hollywood")
n = 100
print("| opponent | its won hands | mean points | median | share at 25 or more |\n|---|---:|---:|---:|---:|")
for opp in ["simple", "neller", "hollywood", "marjj"]:
    state = core.init(n, rules, seed=np.arange(n) + 555)
    me, other = make_agent("ppo-hollywood-v1", rules, seed=1), make_agent(opp, rules, seed=2)
    wins = []  # the points of the opponent's (seat 1's) won hands
    while True:
        idx = np.flatnonzero(~(state.terminated | state.truncated))
        if idx.size == 0:
            break
        cur = state.current_player[idx]
        a = np.zeros(n, np.int64)
        for seat, policy in ((0, me), (1, other)):
            g = idx[cur == seat]
            if g.size:
                a[g] = act(policy, opp if seat else "ppo-hollywood-v1", state, g)
        core.step(state, a, games=idx)
        e = np.flatnonzero(state.hand_ended & (state.hand_kind != KIND_WALL) & (state.hand_winner == 1))
        wins += state.hand_points[e].tolist()
    w = np.array(wins)
    print(f"| `{opp}` | {w.size} | {w.mean():.1f} | {np.median(w):.0f} | {(w >= 25).mean():.0%} |")
