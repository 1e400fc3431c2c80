"""What limits the ``search`` agent: the value of knowing the opponent's hand.

    python -m experiments.research.search_information --pairs 100      # single hands against simple

Plays single hands (duplicate deals) of the search agent against ``simple`` with the worlds built
four ways, and with draws and knocks searched or not (``--moves``):

* ``truth``: every world holds the opponent's *true* hand (the stock still shuffled): an
  experiment only, the agent never sees this in play; it bounds what a better belief could give;
* ``learned``: the opponent's unknown cards drawn from the learned belief (agents/search/belief.py);
* ``heuristic``: built-up hands ranked by the cards passed on;
* ``uniform``: uniformly random opponent hands;
* ``posterior`` (not played unless named in ``--beliefs``): the posterior given ``simple``'s own
  policy, an experiment that knows the opponent (``agents/search/posterior.py``): learned
  proposals weighted by the likelihood of the opponent's moves this hand, then resampled.

Prints hand win rates (walls excluded) with Wilson 95% intervals and the net points per hand.

``--belief-only``: no games against the agent; instead, at positions of games of ``simple``
against itself and of ``hollywood`` against itself, the share of the opponent's unknown cards
that the sampled worlds put in its hand (uniform worlds against the agent's belief).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from agents.bots import SimpleBot  # noqa: E402
from agents.search.belief import LearnedBelief  # noqa: E402
from agents.search.posterior import PosteriorSearch  # noqa: E402
from agents.search.search import SearchAgent, parse_search_spec  # noqa: E402
from experiments.evaluation.stats import wilson  # noqa: E402
from hollywood_env import core  # noqa: E402
from hollywood_env.actions import KIND_WALL  # noqa: E402
from hollywood_env.cards import CARD_BITS, NUM_CARDS  # noqa: E402
from hollywood_env.determinize import sample_worlds  # noqa: E402
from hollywood_env.history import encode_history  # noqa: E402
from hollywood_env.observation import encode  # noqa: E402


class TruthSearch(SearchAgent):
    """The search agent whose worlds hold the opponent's true hand (set ``truth`` = the real
    State and ``games`` = the rows' games before each call). For this experiment only."""

    truth: core.State
    games: np.ndarray

    def _worlds(self, info, w, obs=None, history=None, rows=None):
        worlds = super()._worlds(info, w, obs, history, rows)
        g = np.repeat(self.games[rows], w)
        me = self.truth.current_player[g].astype(np.int64)
        opp_true = self.truth.hands[g, 1 - me]
        for i in range(worlds.batch_size):  # give the opponent its true hand, the rest to the stock
            hand = int(opp_true[i])
            seen = int(worlds.hands[i, 0]) | int(np.bitwise_or.reduce(
                CARD_BITS[worlds.pile[i, :worlds.pile_size[i]].astype(np.int64)]))
            stock = [c for c in range(NUM_CARDS) if not ((hand | seen) >> c) & 1]
            worlds.hands[i, 1] = hand
            worlds.deck[i, worlds.stock_pos[i]:] = self.rng.permutation(stock)
        worlds.known[:, 1] = worlds.known[:, 1] & worlds.hands[:, 1]
        worlds.legal_action_mask[:] = core.legal_action_mask(worlds)
        return worlds

def play(agent, pairs: int, seed: int, rules: str = "gin-rummy-simple"):
    seeds = core.slot_seeds(seed, pairs)
    state = core.init(2 * pairs, rules, seed=np.concatenate([seeds, seeds]))
    a_seat = np.r_[np.zeros(pairs, int), np.ones(pairs, int)]
    opp = SimpleBot(rules)
    done = np.zeros(2 * pairs, bool)
    result = np.zeros(2 * pairs)
    points = np.zeros(2 * pairs)
    snaps, acts = [], []  # the real game so far, for the posterior's rebuilt histories
    if isinstance(agent, PosteriorSearch):
        agent.snaps, agent.acts, agent.opp_seat, agent.model = snaps, acts, 1 - a_seat, SimpleBot(rules)
        agent.learned = LearnedBelief.from_file()
    while not done.all():
        idx = np.flatnonzero(~done)
        if isinstance(agent, PosteriorSearch):
            snaps.append(core.take(state, np.arange(2 * pairs)))
        on_a = state.current_player[idx] == a_seat[idx]
        act = np.full(2 * pairs, -1, dtype=np.int64)
        ia, ib = idx[on_a], idx[~on_a]
        if ia.size:
            if isinstance(agent, (TruthSearch, PosteriorSearch)):
                agent.games = ia
            if isinstance(agent, TruthSearch):
                agent.truth = state
            act[ia] = agent(encode(state, games=ia), state.legal_action_mask[ia],
                            history=encode_history(state, games=ia))
        if ib.size:
            act[ib] = opp(encode(state, games=ib), state.legal_action_mask[ib])
        acts.append(act.copy())
        core.step(state, act, games=idx)
        e = np.flatnonzero(state.hand_ended & ~done)
        wall = state.hand_kind[e] == KIND_WALL
        won = state.hand_winner[e] == a_seat[e]
        result[e] = np.where(wall, 0, np.where(won, 1, -1))
        points[e] = np.where(wall, 0, np.where(won, 1, -1) * state.hand_points[e])
        done[e] = True
    return result, points


def belief_quality(bot_name: str, worlds: int = 32, seed: int = 3) -> dict:
    """Mean share of the opponent's unknown cards found in the sampled opponent hands, at the
    draw decisions of 300 games of ``bot_name`` against itself (every 4th decision, first 45)."""
    from agents.bots import HollywoodBot
    from hollywood_env import melds as M
    from hollywood_env.actions import PHASE_DRAW
    from hollywood_env.determinize import InfoSet

    bot = {"simple": SimpleBot, "hollywood": HollywoodBot}[bot_name]("hollywood")
    state = core.init(300, "hollywood", seed=seed)
    agents = {b: SearchAgent("hollywood", seed=0, worlds=worlds, belief=b) for b in ("heuristic", "learned")}
    rng = np.random.default_rng(0)
    hits: dict = {"uniform": [], "heuristic": [], "learned": []}
    for t in range(45):
        live = np.flatnonzero(~state.done)
        g = live[state.phase[live] == PHASE_DRAW]
        if t % 4 == 3 and g.size:
            info = InfoSet.from_observation(encode(state, games=g), state.legal_action_mask[g], "hollywood")
            truth = state.hands[g, 1 - state.current_player[g].astype(np.int64)] & ~info.opp_known
            need = M.popcount(truth).astype(np.float64)
            obs, hist = encode(state, games=g), encode_history(state, games=g)
            for name, worlds_state in (("uniform", sample_worlds(info, worlds, rng)),
                                       ("heuristic", agents["heuristic"]._worlds(info, worlds)),
                                       ("learned", agents["learned"]._worlds(info, worlds, obs, hist))):
                found = M.popcount(worlds_state.hands[:, 1] & np.repeat(truth, worlds)).reshape(-1, worlds).mean(axis=1)
                hits[name] += list(found[need > 0] / need[need > 0])
        core.step(state, bot(encode(state), state.legal_action_mask))
    return {k: float(np.mean(v)) for k, v in hits.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pairs", type=int, default=100, help="duplicate pairs of single hands per row (default 100)")
    p.add_argument("--worlds", type=int, default=16)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--rules", default="gin-rummy-simple", help="rules preset of the hands (default gin-rummy-simple)")
    p.add_argument("--beliefs", default="truth,learned,heuristic,uniform", help="rows to play (comma-separated)")
    p.add_argument("--knobs", default="", help="more search knobs for every row (default base=simple, prior=0, "
                   "confidence=0, value=points, simple alone in the rollouts), e.g. refine=0,base=marjj")
    p.add_argument("--moves", default="all,knocks,discards",
                   help="what is searched (comma-separated: all, knocks, discards)")
    p.add_argument("--belief-only", action="store_true", help="only the share of the opponent's cards the worlds find")
    args = p.parse_args(argv)
    if args.belief_only:
        print("| opponent | uniform worlds | heuristic worlds | learned worlds |\n|---|---:|---:|---:|")
        for name in ("simple", "hollywood"):
            q = belief_quality(name)
            print(f"| {name} | {q['uniform']:.1%} | {q['heuristic']:.1%} | {q['learned']:.1%} |")
        return 0
    print(f"search (worlds={args.worlds}) vs simple, {args.pairs} duplicate pairs of single hands of "
          f"{args.rules}, seed {args.seed}\n")
    print("| worlds hold | moves searched | hands won | 95% interval | net points/hand | seconds |")
    print("|---|---|---:|---|---:|---:|")
    for belief in args.beliefs.split(","):
        for moves in args.moves.split(","):
            knobs = dict(worlds=args.worlds, moves=moves, prior=0.0, base="simple", rollout="simple", own_rollout="",
                         confidence=0.0, value="points",
                         belief="uniform" if belief in ("truth", "posterior") else belief)
            knobs.update(parse_search_spec(args.knobs))
            kind = {"truth": TruthSearch, "posterior": PosteriorSearch}.get(belief, SearchAgent)
            agent = kind(args.rules, seed=1, **knobs)
            t0 = time.perf_counter()
            result, points = play(agent, args.pairs, args.seed, args.rules)
            won, lost = int((result > 0).sum()), int((result < 0).sum())
            est = wilson(won, won + lost)
            lo, hi = est.low, est.high
            print(f"| {belief} | {moves} | {won / (won + lost):.1%} | [{lo:.1%}, {hi:.1%}] | "
                  f"{points.mean():+.2f} | {time.perf_counter() - t0:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
