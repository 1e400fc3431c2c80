"""The exact belief posterior against a known opponent: the opponent's hand weighted by the chance
that its policy, holding that hand, would have made the moves it made this hand.

Against a bot whose policy is known exactly (``simple`` and ``hollywood`` are deterministic
functions of what they see; ``marjj`` too, but for its random tie-breaks), the best any belief can
do is this Bayesian posterior. It is estimated by importance sampling:

For a decision of the viewer:

1. *Worlds*: ``w`` sets of the opponent's unknown cards, drawn
   - ``uniform``: uniformly among the unseen cards (the prior: every deal is equally likely), or
   - ``learned``: from the learned probabilities as independent cards, kept when their number is
     right (the conditional Bernoulli distribution, whose density is known up to a constant, so
     that dividing by it makes the estimate exact in the limit, as with ``uniform``).
2. *Histories*: for each world, a few rebuilt histories of the opponent's hand, backwards
   from now: a card it discarded was in its hand before; a card it took from the pile was not; a
   card it drew from the stock is one of the cards it held next that it had not taken from the
   pile (``State.known``), chosen at random (every choice equally likely a priori, because every
   stock order is). After both players pass the first upcard the engine makes the non-dealer's
   draw itself: its pass is followed by an 11-card discard phase.
3. *Likelihood*: each rebuilt hand is put into a copy of the real state of that earlier step
   (``core.take``; every other field of it is public, so the opponent then saw exactly what the
   copy shows it) and the opponent model is asked for its move. A world's weight is the mean over
   its histories of the product over the opponent's moves of 1 (the model makes the move) or
   ``eps`` (it does not: room for noise). The model is a second copy of the opponent with
   a generator of its own (:func:`play` gives the share of the opponent's real moves it makes).
4. The posterior probability of a card is the weighted share of the worlds that hold it.

:class:`PosteriorSearch` is the ``search`` agent with its worlds drawn from this posterior (learned
proposals weighted by the likelihood, then resampled): an experiment that knows the opponent, not
an agent spec. The measurements are ``experiments/research/belief_posterior.py`` (the top-k share against
the learned belief) and ``experiments/research/search_information.py`` (hands won with these worlds).
"""

from __future__ import annotations

import numpy as np

from agents.matches import act
from agents.registry import Policy
from agents.search.search import SearchAgent
from hollywood_env import core
from hollywood_env.actions import DISCARD, DRAW_STOCK, KNOCK, TAKE_DISCARD
from hollywood_env.cards import CARD_BITS, NUM_CARDS, masks_to_bools
from hollywood_env.determinize import consistent, opponent_hand_size, sample_worlds, unseen_cards
from hollywood_env.melds import popcount
from hollywood_env.rules import Rules

__all__ = ["play", "rebuild_histories", "log_likelihood", "draw_worlds", "PosteriorSearch"]


def play(viewer: Policy, viewer_spec: str, opponent: Policy, opponent_spec: str, model: Policy, rules: Rules,
         games: int, keep: float, rng: np.random.Generator, seed: int,
         ) -> tuple[list[core.State], list[np.ndarray], list[tuple[int, int]], np.ndarray, float]:
    """First hands of ``games`` matches; returns the State before every step, the actions and
    the recorded viewer decisions ``(step, game)``. The opponent sits in seat ``game % 2``. Also
    the share of the opponent's moves that the model makes on the same states (1 for a
    deterministic bot; ``marjj`` breaks ties at random)."""
    state = core.init(games, rules, seed=seed)
    opp_seat = (np.arange(games) % 2).astype(np.int64)
    snaps, acts, records, agree = [], [], [], []
    stopped = np.zeros(games, dtype=bool)
    while True:
        idx = np.flatnonzero(~(state.done | stopped))
        if idx.size == 0:
            break
        snaps.append(core.take(state, np.arange(games)))
        a = np.full(games, -1, dtype=np.int64)
        on_opp = state.current_player[idx] == opp_seat[idx]
        mine = idx[~on_opp]
        if mine.size:
            a[mine] = act(viewer, viewer_spec, state, mine)
            records += [(len(snaps) - 1, int(g)) for g in mine[rng.random(mine.size) < keep]]
        theirs = idx[on_opp]
        if theirs.size:
            a[theirs] = act(opponent, opponent_spec, state, theirs)
            agree.append(act(model, opponent_spec, state, theirs) == a[theirs])
        acts.append(a)
        core.step(state, a, games=idx)
        stopped |= state.hand_ended
    return snaps, acts, records, opp_seat, float(np.concatenate(agree).mean())


def rebuild_histories(hands: np.ndarray, snaps: list[core.State], acts: list[np.ndarray], T: int, g: int, o: int,
                      rng: np.random.Generator) -> list[tuple[int, np.ndarray, int]]:
    """The opponent's hand at each of its moves before step ``T`` in game ``g``, backwards from
    ``hands (m,)`` (its hand at ``T``): a list of ``(step, hands (m,), action)``."""
    H = hands.copy()
    out = []
    for t in range(T - 1, -1, -1):
        if int(snaps[t].current_player[g]) != o:
            continue
        a = int(acts[t][g])
        st = snaps[t]
        if a < DRAW_STOCK:  # a discard or a knock: the card was in the hand
            H = H | CARD_BITS[a - DISCARD if a < KNOCK else a - KNOCK]
        elif a == TAKE_DISCARD:  # the top of the pile was not
            H = H & ~CARD_BITS[int(st.pile[g, st.pile_size[g] - 1])]
        elif a == DRAW_STOCK or int(popcount(H[:1])[0]) == 11:
            # one card came from the stock: any card held next that was not taken from the pile
            free = masks_to_bools(H & ~np.uint64(st.known[g, o]))
            drawn = np.argmax(np.where(free, rng.random(free.shape), -1.0), axis=1)
            H = H & ~CARD_BITS[drawn]
        out.append((t, H.copy(), a))
    return out


def log_likelihood(model: Policy, spec: str, snaps: list[core.State], history: list[tuple[int, np.ndarray, int]],
                   m: int, g: int, o: int, eps: float) -> np.ndarray:
    """``(m,)``: the log of the product over the opponent's moves of 1 (the model makes it with
    the rebuilt hand) or ``eps`` (it does not)."""
    logw = np.zeros(m)
    for (t, hands, a) in history:
        expect = 11 if a < DRAW_STOCK else 10
        if np.any(popcount(hands) != expect):
            raise AssertionError(f"a rebuilt hand of step {t} does not hold {expect} cards")
        sub = core.take(snaps[t], np.full(m, g))
        sub.hands[:, o] = hands
        sub.legal_action_mask[:] = core.legal_action_mask(sub)
        ok = sub.legal_action_mask[:, a] & (act(model, spec, sub, np.arange(m)) == a)
        logw += np.where(ok, 0.0, np.log(eps))
    return logw


def draw_worlds(kind: str, p: np.ndarray, unseen: np.ndarray, need: int, w: int,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(chosen (w, 52) bool, log proposal density up to a constant (w,))``."""
    if kind == "uniform":
        keys = np.where(unseen[None, :], rng.random((w, NUM_CARDS)), np.inf)
        chosen = np.zeros((w, NUM_CARDS), dtype=bool)
        np.put_along_axis(chosen, np.argsort(keys, axis=1)[:, :need], True, axis=1)
        return chosen, np.zeros(w)
    pieces, have = [], 0
    while have < w:
        draw = (rng.random((8 * w, NUM_CARDS)) < p[None, :]) & unseen[None, :]
        draw = draw[draw.sum(axis=1) == need]
        pieces.append(draw)
        have += draw.shape[0]
    chosen = np.concatenate(pieces)[:w]
    q = np.clip(p, 1e-9, 1 - 1e-9)
    log_odds = np.where(unseen, np.log(q / (1 - q)), 0.0)
    return chosen, chosen @ log_odds


class PosteriorSearch(SearchAgent):
    """The search agent whose worlds are drawn from the posterior given ``simple``'s policy:
    learned proposals weighted by the likelihood of the opponent's moves this hand, resampled.
    :func:`play` gives it the real game so far (``snaps``, ``acts``: the States before each step
    and the actions, read for their public fields and the rebuilt opponent hands only), ``games``,
    ``opp_seat``, the opponent model and the learned belief. For this experiment only."""

    oversample_posterior = 16
    paths = 4
    eps = 0.01

    def _worlds(self, info, w, obs=None, history=None, rows=None):
        # proposals: the learned probabilities as independent cards, kept when their number is
        # right (a density known up to a constant, divided out below); then w of them resampled
        # by weight, and dealt into uniform worlds with the stock reshuffled
        big_w = w * self.oversample_posterior
        probs = self.learned.probabilities(info, obs, history)
        unseen = masks_to_bools(unseen_cards(info))
        need = opponent_hand_size(info) - popcount(info.opp_known)
        games = self.games[rows]
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
        order = np.argsort(keys, axis=1)  # the rest of the unseen cards, shuffled, are the stock
        r, c = np.nonzero(np.arange(NUM_CARDS)[None, :] < free.sum(axis=1)[:, None])
        worlds.deck[r, worlds.stock_pos[r] + c] = order[r, c]
        worlds.legal_action_mask[:] = core.legal_action_mask(worlds)
        if not consistent(worlds, info, w).all():
            raise AssertionError("a posterior world is not consistent with what the viewer saw")
        return worlds
