"""Does the search play better with worlds from the posterior given the opponent's policy?

A companion of ``benchmarks/search_information.py`` (same games: single hands of
``gin-rummy-simple`` against ``simple`` on duplicate deals, the same search knobs): one more row,
``posterior``, whose worlds are the uniform worlds reweighted by the likelihood of the opponent's
moves this hand under ``simple``'s own policy (``policy_posterior.py`` beside this file: the
opponent's earlier hands rebuilt backwards from each world, one factor per move), then resampled
in proportion to their weights. The opponent *is* ``simple`` here, so this is the best belief a
player who knows its opponent's policy can have; the search's rollouts already assume that
opponent. The real earlier states are kept only to avoid replaying the hand: only their public
fields and the rebuilt opponent hand are read.

    .venv/bin/python results/belief/posterior_search.py --pairs 200 --worlds 32 --seed 5
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from policy_posterior import draw_worlds, log_likelihood, rebuild_histories  # noqa: E402

from agents.belief import LearnedBelief  # noqa: E402
from agents.bots import SimpleBot  # noqa: E402
from agents.search import SearchAgent, candidates, parse_search_spec  # noqa: E402
from experiments.evaluation.stats import wilson  # noqa: E402
from hollywood_env import core  # noqa: E402
from hollywood_env.actions import KIND_WALL  # noqa: E402
from hollywood_env.cards import CARD_BITS, masks_to_bools  # noqa: E402
from hollywood_env.determinize import consistent, opponent_hand_size, sample_worlds, unseen_cards  # noqa: E402
from hollywood_env.history import encode_history  # noqa: E402
from hollywood_env.melds import popcount  # noqa: E402
from hollywood_env.observation import encode  # noqa: E402


class PosteriorSearch(SearchAgent):
    """The search agent whose worlds are resampled by the likelihood of the opponent's moves under
    ``simple`` (set ``snaps``, ``acts`` (the real game so far), ``games`` and ``opp_seat`` before
    each call). For this experiment only."""

    oversample_posterior = 16
    paths = 4
    eps = 0.01

    def _worlds(self, info, w, obs=None, history=None):
        # proposals: the learned probabilities as independent cards, kept when their number is
        # right (a density known up to a constant, divided out below); then w of them resampled
        # by weight, and dealt into uniform worlds with the stock reshuffled
        big_w = w * self.oversample_posterior
        probs = self.learned.probabilities(info, obs, history)
        unseen = masks_to_bools(unseen_cards(info))
        need = opponent_hand_size(info) - popcount(info.opp_known)
        games = self.games[self._searched]
        T = len(self.snaps) - 1
        opp_hands = []
        for i, g in enumerate(games):
            o = int(self.opp_seat[g])
            chosen, logq = draw_worlds("learned", probs[i], unseen[i], int(need[i]), big_w, self.rng)
            hands = np.bitwise_or.reduce(np.where(chosen, CARD_BITS[None, :], np.uint64(0)), axis=1) | info.opp_known[i]
            hist = rebuild_histories(np.repeat(hands, self.paths), self.snaps, self.acts, T, int(g), o, self.rng)
            logl = log_likelihood(self.model, "simple", self.snaps, hist, big_w * self.paths, int(g), o, self.eps)
            logw = np.logaddexp.reduce(logl.reshape(big_w, self.paths), axis=1) - logq
            p = np.exp(logw - logw.max())
            opp_hands.append(hands[self.rng.choice(big_w, size=w, p=p / p.sum())])
        worlds = sample_worlds(info, w, self.rng)
        hands = np.concatenate(opp_hands)
        worlds.hands[:, 1] = hands
        free = masks_to_bools(np.repeat(unseen_cards(info), w) & ~hands)
        keys = np.where(free, self.rng.random(free.shape), 2.0)
        order = np.argsort(keys, axis=1)
        rows = np.arange(worlds.batch_size)
        for i in rows:  # the rest of the unseen cards, shuffled, are the stock
            k = int(free[i].sum())
            worlds.deck[i, worlds.stock_pos[i]:worlds.stock_pos[i] + k] = order[i, :k]
        worlds.legal_action_mask[:] = core.legal_action_mask(worlds)
        if not consistent(worlds, info, w).all():
            raise AssertionError("a posterior world is not consistent with what the viewer saw")
        return worlds

    def candidate_values(self, obs, masks, history=None):
        base = np.asarray(self._base(obs, masks))
        rows, _ = candidates(np.asarray(obs, np.float32), np.asarray(masks, bool), base, self.config.moves)
        self._searched = np.unique(rows)
        return super().candidate_values(obs, masks, history)


def play(agent, pairs: int, seed: int, rules: str = "gin-rummy-simple"):
    """As ``benchmarks/search_information.py``'s ``play``, keeping the real states for the
    posterior agent."""
    seeds = core.slot_seeds(seed, pairs)
    state = core.init(2 * pairs, rules, seed=np.concatenate([seeds, seeds]))
    a_seat = np.r_[np.zeros(pairs, int), np.ones(pairs, int)]
    opp = SimpleBot(rules)
    done = np.zeros(2 * pairs, bool)
    result = np.zeros(2 * pairs)
    points = np.zeros(2 * pairs)
    snaps, acts = [], []
    if isinstance(agent, PosteriorSearch):
        agent.snaps, agent.acts, agent.opp_seat, agent.model = snaps, acts, 1 - a_seat, SimpleBot(rules)
        agent.learned = LearnedBelief.from_file()
    while not done.all():
        idx = np.flatnonzero(~done)
        snaps.append(core.take(state, np.arange(2 * pairs)))
        on_a = state.current_player[idx] == a_seat[idx]
        act = np.full(2 * pairs, -1, dtype=np.int64)
        ia, ib = idx[on_a], idx[~on_a]
        if ia.size:
            agent.games = ia
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pairs", type=int, default=200)
    p.add_argument("--worlds", type=int, default=32)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--moves", default="discards")
    p.add_argument("--beliefs", default="posterior,learned")
    p.add_argument("--knobs", default="")
    args = p.parse_args()
    print(f"search (worlds={args.worlds}) vs simple, {args.pairs} duplicate pairs of single hands of "
          f"gin-rummy-simple, seed {args.seed}\n")
    print("| worlds hold | moves searched | hands won | 95% interval | net points/hand | seconds |")
    print("|---|---|---:|---|---:|---:|")
    for belief in args.beliefs.split(","):
        for moves in args.moves.split(","):
            knobs = dict(worlds=args.worlds, moves=moves, prior=0.0, base="simple", rollout="simple", own_rollout="",
                         confidence=0.0, value="points", belief="uniform" if belief == "posterior" else belief)
            knobs.update(parse_search_spec(args.knobs))
            agent = (PosteriorSearch if belief == "posterior" else SearchAgent)("gin-rummy-simple", seed=1, **knobs)
            t0 = time.perf_counter()
            result, points = play(agent, args.pairs, args.seed)
            won, lost = int((result > 0).sum()), int((result < 0).sum())
            est = wilson(won, won + lost)
            print(f"| {belief} | {moves} | {won / (won + lost):.1%} | [{est.low:.1%}, {est.high:.1%}] | "
                  f"{points.mean():+.2f} | {time.perf_counter() - t0:.0f} |", flush=True)


if __name__ == "__main__":
    main()
