"""How much of a game to 100 can a player win against a bot who knew its hidden cards?

The targets of the EAAI game ask for a share of games against ``simple`` and ``marjj``. How much
of that share the cards leave to skill, and how much the hidden information costs, is measured
here by giving the ``search`` agent (:class:`agents.search.search.SearchAgent`) what no player
has, with the opponent bot itself in its rollouts (its exact policy):

* ``--sees hand``: every world holds the opponent's true hand, the stock still shuffled
  (:class:`experiments.research.search_information.TruthSearch`); the rest is the search's
  ``eaai`` defaults (32 worlds, knocks and discards searched, the gate);
* ``--sees all``: one world, the true game, the stock order included (:class:`OracleSearch`).
  Each candidate is then valued exactly, the change of the chance of winning the game
  (``value=equity``, :mod:`agents.search.game_equity`) when the oracle makes the move and its
  own seat plays on as ``own_rollout`` (``patient``) plays; draws are searched too and the best
  value is played. It looks one move ahead only, so its figure is a lower bound on what a player
  who sees every card can win.

The honest search with the same knobs is ``search:rollout=OPPONENT,knocker_rollout=``.

This is a measuring instrument and nothing else: it reads the hidden cards of the game it plays,
so it is not an agent of the registry and no command or environment offers it.

Games to 100 on the ``eaai`` rules, duplicate deals as ``hollywood evaluate`` deals them for the
same ``--seed`` (:func:`agents.matches.deal_seeds`), the opponent seeded as there:

    .venv/bin/python -m experiments.research.oracle_ceiling --sees hand --opponent simple --games 200 --seed 4301
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from agents.matches import act, agent_generators, deal_seeds
from agents.registry import AgentSpecError, make_agent
from agents.search.search import SearchAgent, parse_search_spec
from experiments.evaluation.stats import cluster_bootstrap, wilson
from experiments.research.search_information import TruthSearch
from hollywood_env import core
from hollywood_env.actions import KIND_BIG_GIN, KIND_GIN, KIND_UNDERCUT, KIND_WALL
from hollywood_env.observation import encode
from hollywood_env.rules import resolve_rules

#: what the oracle sees of the hidden cards
SEES = ("all", "hand")


class OracleSearch(SearchAgent):
    """``search`` whose one world is the true game: set ``truth`` (the real State) and ``games``
    (the rows' games in it) before each call."""

    truth: core.State
    games: np.ndarray

    def _worlds(self, info, w, obs=None, history=None, rows=None):
        return core.take(self.truth, np.repeat(self.games[rows], w))


def make_oracle(sees: str, rules, seed, opponent: str, **knobs) -> SearchAgent:
    """The oracle that sees ``sees`` (:data:`SEES`) against ``opponent``, the search's ``knobs``
    over its ``eaai`` defaults; under ``sees="all"`` one world, every move searched and valued
    by its mean (an exact value needs no gate)."""
    if sees not in SEES:
        raise ValueError(f"sees must be one of {list(SEES)}, got {sees!r}")
    fixed = sorted(set(knobs) & {"rollout", "knocker_rollout", "belief"})
    if fixed:
        raise ValueError(f"the oracle's {', '.join(fixed)} cannot be set: the opponent itself plays the "
                         f"opponent's seat and the worlds come from the true game")
    knobs = {"rollout": opponent, "knocker_rollout": "", "belief": "uniform", **knobs}
    if sees == "all":
        return OracleSearch(rules, seed, **{"worlds": 1, "moves": "all", "confidence": 0.0, **knobs})
    return TruthSearch(rules, seed, **knobs)


def play_games(sees: str, opponent: str, n_pairs: int, seed: int, max_steps: int = 5000, **knobs) -> dict:
    """``n_pairs`` duplicate pairs of games to 100 of the oracle against ``opponent``; ``knobs``:
    the search's, over its ``eaai`` defaults."""
    rules = resolve_rules("eaai")
    rng_a, rng_b = agent_generators(seed, 2)
    oracle = make_oracle(sees, rules, rng_a, opponent, **knobs)
    opp = make_agent(opponent, rules, seed=rng_b)
    slots = deal_seeds(seed, n_pairs)
    b = 2 * n_pairs
    state = core.init(b, rules, seed=np.concatenate([slots, slots]), max_steps=max_steps)
    a_seat = np.concatenate([np.zeros(n_pairs, np.int64), np.ones(n_pairs, np.int64)])
    net, decided, gins, undercut = (np.zeros(b, np.int64) for _ in range(4))
    actions = np.zeros(b, np.int64)
    t0 = time.perf_counter()
    while True:
        idx = np.flatnonzero(~(state.terminated | state.truncated))
        if idx.size == 0:
            break
        on_a = state.current_player[idx] == a_seat[idx]
        ia, ib = idx[on_a], idx[~on_a]
        if ia.size:
            oracle.truth, oracle.games = state, ia
            actions[ia] = oracle(encode(state, games=ia), state.legal_action_mask[ia])
        if ib.size:
            actions[ib] = act(opp, opponent, state, ib)
        core.step(state, actions, games=idx)
        e = np.flatnonzero(state.hand_ended)
        if e.size:
            kind, won = state.hand_kind[e], state.hand_winner[e] == a_seat[e]
            scored = kind != KIND_WALL
            net[e] += np.where(scored, np.where(won, 1, -1) * state.hand_points[e], 0)
            decided[e] += scored
            gins[e] += scored & won & ((kind == KIND_GIN) | (kind == KIND_BIG_GIN))
            undercut[e] += (kind == KIND_UNDERCUT) & ~won
    finished = state.terminated & ~state.truncated
    won = finished & (state.match_winner.astype(np.int64) == a_seat)
    pair = lambda x: x[:n_pairs] + x[n_pairs:]  # noqa: E731
    games = wilson(won.sum(), finished.sum())
    points = cluster_bootstrap(pair(net).astype(float), pair(decided).astype(float), seed=0)
    return {"sees": sees, "opponent": opponent, "knobs": {k: str(v) for k, v in vars(oracle.config).items()},
            "seed": seed, "games": int(finished.sum()),
            "truncated": int(state.truncated.sum()),
            "games_won": {"value": games.value, "low": games.low, "high": games.high},
            "points_per_hand": {"value": points.value, "low": points.low, "high": points.high},
            "gin_share": float(gins.sum() / max(decided.sum(), 1)),
            "undercut_share": float(undercut.sum() / max(decided.sum(), 1)),
            "seconds": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opponent", default="simple", help="the bot played, and the oracle's model of it")
    ap.add_argument("--sees", default="all", choices=SEES,
                    help="all: the opponent's hand and the stock order; hand: the opponent's hand alone")
    ap.add_argument("--knob", action="append", default=[], metavar="KEY=VALUE",
                    help="a search knob over the eaai defaults, e.g. --knob own_rollout=marjj (repeatable)")
    ap.add_argument("--games", type=int, default=200, help="games, in duplicate pairs (even)")
    ap.add_argument("--seed", type=int, default=4301)
    ap.add_argument("--out", default=None, help="a JSON file for the result")
    args = ap.parse_args(argv)
    if args.games < 2 or args.games % 2:
        ap.error(f"--games must be an even number of at least 2, got {args.games}")
    if args.out and not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        ap.error(f"--out {args.out}: its folder does not exist")
    try:
        knobs = parse_search_spec(",".join(args.knob))
        r = play_games(args.sees, args.opponent, args.games // 2, args.seed, **knobs)
    except (AgentSpecError, ValueError, TypeError) as e:
        ap.error(str(e))
    g, p = r["games_won"], r["points_per_hand"]
    print(f"oracle seeing {'everything' if args.sees == 'all' else 'the hand'} "
          f"(own seat: {r['knobs']['own_rollout']}) vs {args.opponent}, {r['games']} games to 100, seed {args.seed}: "
          f"{100 * g['value']:.1f}% [{100 * g['low']:.1f}, {100 * g['high']:.1f}] of games won, "
          f"{p['value']:+.2f} [{p['low']:+.2f}, {p['high']:+.2f}] points a hand, "
          f"gins {100 * r['gin_share']:.1f}% and undercut {100 * r['undercut_share']:.1f}% of its decided hands, "
          f"{r['seconds']:.0f} s")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(r, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
