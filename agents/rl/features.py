"""Derived features for the learning agents, computed from the observation and the legal mask.

The environment's observation is the raw public state (:mod:`hollywood_env.observation`). A
network can learn melds from the 52-card hand plane, but slowly; these features hand it what
every Gin player computes at a glance. They use only the viewer's own hand, the top of the pile
and the legal mask, so they leak nothing.

================  ====  ==========================================================================
feature           size  content
================  ====  ==========================================================================
``MELDED``        52    1 for each card of the hand in its best (minimum-deadwood) arrangement
``BEST_DISCARD``  52    discard phase: 1 for each legal discard that leaves the minimum deadwood
``DISCARD_VALUE`` 52    discard phase: ``1 - d / 100`` for each legal discard, ``d`` the minimum
                        deadwood of the 10 cards left (so a gin discard is 1.0); 0 elsewhere
``DEADWOOD``      1     minimum deadwood of the hand / 10, capped at 3
``TAKE_DEADWOOD`` 1     draw and first-upcard phases: the best deadwood reachable by taking the top
                        of the pile and discarding (not that card, when the rules forbid it),
                        / 10, capped at 3; 0 in the discard phase
``TAKE_GAIN``     1     draw and first-upcard phases: (``DEADWOOD`` - ``TAKE_DEADWOOD``), i.e.
                        how much taking the upcard lowers the deadwood, / 10
``TAKE_KNOCKS``   1     draw and first-upcard phases: 1 if taking the upcard allows a knock
================  ====  ==========================================================================

Scales are chosen so that the differences that matter (one deadwood point, the best discard)
are large enough for a network to act on early in training.

With a ``belief`` (``PPOConfig.belief_input``), :func:`augment` appends ``BELIEF_SIZE`` (52) more
values after these: for each card, the probability that the opponent holds it, from the learned
belief (:class:`agents.search.belief.BeliefFeatures`) read from the observation and the legal mask alone
(no history), with the hard facts (0 for a card the viewer can place, 1 for one the opponent is
known to hold). The belief reads only the viewer's information, so these leak nothing either.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hollywood_env import melds as M
from hollywood_env import observation as O
from hollywood_env.cards import NUM_CARDS, bools_to_masks, masks_to_bools

NUM_FEATURES = 3 * NUM_CARDS + 4
VERSION = "hand_v2"
#: offsets of the card planes within the features (for networks that read them per card)
MELDED, BEST_DISCARD, DISCARD_VALUE = 0, NUM_CARDS, 2 * NUM_CARDS
DEADWOOD, TAKE_DEADWOOD, TAKE_GAIN, TAKE_KNOCKS = 3 * NUM_CARDS, 3 * NUM_CARDS + 1, 3 * NUM_CARDS + 2, 3 * NUM_CARDS + 3
NUM_CARD_PLANES = 3
#: values the learned belief appends after the features (``PPOConfig.belief_input``): one per card
BELIEF_SIZE = NUM_CARDS


def input_size(observation_size: int, belief: bool = False) -> int:
    """What a network reads: the observation, the features and (``belief``) the belief's values."""
    return observation_size + NUM_FEATURES + (BELIEF_SIZE if belief else 0)


def augment(obs: np.ndarray, mask: np.ndarray, forbid_taken: bool = True,
            belief: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """``(n, D)`` observations -> ``(n, D + NUM_FEATURES)`` float32 with the features appended:
    what the networks read. ``belief``: a :class:`agents.search.belief.BeliefFeatures` (``(obs, mask) ->
    (n, 52)``), whose values are appended too (``(n, D + NUM_FEATURES + BELIEF_SIZE)``)."""
    n = obs.shape[0]
    d = obs.shape[1]
    out = np.zeros((n, input_size(d, belief is not None)), dtype=np.float32)
    out[:, :d] = obs
    if n == 0:
        return out
    if belief is not None:
        out[:, d + NUM_FEATURES:] = belief(obs, mask)
    f = out[:, d:d + NUM_FEATURES]
    hand_bools = obs[:, O.HAND] > 0
    hands = bools_to_masks(hand_bools)
    dw, sets, runs = M.best_arrangement_masks(hands)
    f[:, MELDED:MELDED + NUM_CARDS] = masks_to_bools(sets | runs)
    f[:, DEADWOOD] = np.minimum(dw, 30) / 10.0
    discard = np.flatnonzero(obs[:, O.PHASE.start + 2] > 0)
    if discard.size:
        after = M.deadwood_after_discard_masks(hands[discard])
        legal = mask[discard, :NUM_CARDS] & (after >= 0)
        f[discard, DISCARD_VALUE:DISCARD_VALUE + NUM_CARDS] = np.where(legal, 1.0 - after / 100.0, 0.0)
        best = np.where(legal, after, 10**6).min(axis=1, keepdims=True)
        f[discard, BEST_DISCARD:BEST_DISCARD + NUM_CARDS] = legal & (after == best)
    top_plane = obs[:, O.PILE_TOP] > 0
    drawing = np.flatnonzero((obs[:, O.PHASE.start + 2] == 0) & top_plane.any(axis=1))
    if drawing.size:
        top = bools_to_masks(top_plane[drawing])
        after = M.deadwood_after_discard_masks(hands[drawing] | top).astype(np.float64)
        after[after < 0] = np.inf
        if forbid_taken:
            after[top_plane[drawing]] = np.inf
        take = after.min(axis=1)
        f[drawing, TAKE_DEADWOOD] = np.minimum(take, 30) / 10.0
        f[drawing, TAKE_GAIN] = (dw[drawing] - take) / 10.0
        limit = np.rint(obs[drawing, O.KNOCK_LIMIT] * 10)
        f[drawing, TAKE_KNOCKS] = take <= limit
    return out
