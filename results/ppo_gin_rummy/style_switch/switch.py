"""`ppo-gin-rummy` that hands its seat to a best response to `simple` once the opponent's record
shows a player who knocks as soon as it may: an experiment in opponent modelling from the
scoresheet alone.

    hollywood evaluate results/ppo_gin_rummy/style_switch/switch.py:make simple --rules eaai --games 2000 --seed 4301
    python results/ppo_gin_rummy/style_switch/switch.py simple 555   # how often the best response plays

The record is what the observation's scoresheet says (one column): the opponent's hands won and
its points. An opponent with at least ``WINS`` hands won at under ``POINTS`` a hand has won mostly
by knocks; a gin-hunter's wins are gins and undercuts, 25 points and more each (the rule of
:func:`agents.search.search.opponent_knocks_early`, read from the observation). Both numbers were
chosen on the games of evaluation seed 7100003 (docs/results.md, "The EAAI game").
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from agents.registry import make_agent
from hollywood_env.observation import SHEET_START
from hollywood_env.rules import resolve_rules

#: the best response to `simple` (`hollywood exploit simple --rules eaai --start ppo-gin-rummy`)
BEST_RESPONSE = Path(__file__).with_name("ppo_gin_rummy_vs_simple.pt")
WINS = 2
POINTS = 20.0

# one column's scoresheet in the observation (hollywood_env/observation.py, SHEET)
_OPP_POINTS, _OPP_HANDS = SHEET_START + 1, SHEET_START + 8


def knocker_rows(obs: np.ndarray, target: int, wins: int = WINS, points: float = POINTS) -> np.ndarray:
    """``(n,)`` bool: rows whose scoresheet shows an opponent with ``wins`` hands won or more, at
    under ``points`` a hand."""
    hands = np.rint(obs[:, _OPP_HANDS] * 10)
    per_win = obs[:, _OPP_POINTS] * target / np.maximum(hands, 1)
    return (hands >= wins) & (per_win < points)


def make(rules, seed=None):
    """The switch as a policy (``module:function`` form); ``policy.decisions`` and
    ``policy.switched`` count its decisions and those the best response made."""
    rules = resolve_rules(rules)
    if rules.columns != 1:
        raise ValueError(f"the style switch reads a one-column scoresheet; these rules have {rules.columns} columns")
    default = make_agent("ppo-gin-rummy", rules=rules, seed=seed)
    versus_knocker = make_agent(f"ppo:{BEST_RESPONSE}", rules=rules, seed=seed)

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = default(obs, mask)
        knocker = knocker_rows(obs, rules.target)
        policy.decisions += len(knocker)
        policy.switched += int(knocker.sum())
        if knocker.any():
            actions = np.array(actions, copy=True)
            actions[knocker] = versus_knocker(obs[knocker], mask[knocker])
        return actions

    policy.decisions = policy.switched = 0
    return policy


if __name__ == "__main__":  # python switch.py OPPONENT SEED: 2,000 games to 100 as `hollywood evaluate` plays them
    from agents.matches import play_pairing

    opponent, seed = sys.argv[1], int(sys.argv[2])
    rules = resolve_rules("eaai")
    switch = make(rules)
    result = play_pairing(switch, opponent, rules, n_pairs=1000, seed=seed)
    won = float(np.mean(result.match_winner == 0))
    print(f"against {opponent}, seed {seed}: {100 * won:.1f}% of {2 * result.n_pairs} games won; the best response made "
          f"{100 * switch.switched / switch.decisions:.1f}% of the {switch.decisions:,} decisions")
