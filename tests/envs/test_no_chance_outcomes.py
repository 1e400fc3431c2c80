"""No agent is ever offered a chance outcome.

A player of Gin Rummy chooses *where* to draw from, never *which* stock card arrives: that is the
deal's. An environment that lets its policy pick the stock card (by exposing the chance node as
an action) trains an agent that looks strong at home and loses in a real game. These tests pin
the property on every surface an agent acts through:

* the action table has no action per stock card: in the draw phases the only legal actions are
  ``DRAW_STOCK``, ``TAKE_DISCARD`` and ``PASS``; a card action (``DISCARD + c``, ``KNOCK + c``)
  is legal only for a card the mover holds;
* the card a stock draw brings is the next card of the deck laid out at the deal, whoever draws
  and whatever they played before (two different policies on the same seeds draw the same cards
  in the same order);
* the same holds for the masks of the PettingZoo AEC env and of the self-play batch that the
  training rollouts step.
"""

from __future__ import annotations

import numpy as np
import pytest

import hollywood_env
from hollywood_env import SelfPlayBatch, core
from hollywood_env.actions import (
    BIG_GIN,
    DISCARD,
    DRAW_STOCK,
    KNOCK,
    NUM_ACTIONS,
    PASS,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_FIRST_UPCARD,
    TAKE_DISCARD,
)
from hollywood_env.cards import masks_to_bools
from hollywood_env.observation import HAND, PHASE
from hollywood_env.rules import PRESETS, Rules

DRAW_ACTIONS = {PHASE_FIRST_UPCARD: {TAKE_DISCARD, PASS}, PHASE_DRAW: {TAKE_DISCARD, DRAW_STOCK}}


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in mask])


def check_mask(mask: np.ndarray, phase: int, hand: np.ndarray) -> None:
    """``mask``: (NUM_ACTIONS,) of one decision; ``hand``: (52,) bool, the mover's cards."""
    legal = set(np.flatnonzero(mask).tolist())
    assert legal, "a decision with no legal action"
    if phase in DRAW_ACTIONS:
        assert legal <= DRAW_ACTIONS[phase], f"draw phase offers {sorted(legal)}"
        return
    assert phase == PHASE_DISCARD
    cards = np.array([a - DISCARD if a < KNOCK else a - KNOCK for a in legal if a < DRAW_STOCK], dtype=np.int64)
    assert cards.size and hand[cards].all(), "a card action for a card the mover does not hold"
    assert legal - set(range(DRAW_STOCK)) <= {BIG_GIN}


def test_the_check_rejects_an_action_that_names_an_unseen_card():
    hand = np.zeros(52, dtype=bool)
    hand[:11] = True
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    mask[[DISCARD + 3, KNOCK + 3]] = True
    check_mask(mask, PHASE_DISCARD, hand)
    for bad_action, phase in ((DISCARD + 40, PHASE_DISCARD), (KNOCK + 40, PHASE_DISCARD), (DISCARD + 40, PHASE_DRAW),
                              (DRAW_STOCK, PHASE_FIRST_UPCARD)):
        bad = mask.copy() if phase == PHASE_DISCARD else np.eye(NUM_ACTIONS, dtype=bool)[TAKE_DISCARD]
        bad[bad_action] = True
        with pytest.raises(AssertionError):
            check_mask(bad, phase, hand)


def test_masks_never_name_a_stock_card_in_any_preset():
    rng = np.random.default_rng(0)
    for preset in PRESETS:
        state = core.init(16, preset, seed=11)
        for _ in range(300):
            g = np.flatnonzero(~state.done)
            if not g.size:
                break
            for i in g:
                p = int(state.current_player[i])
                check_mask(state.legal_action_mask[i], int(state.phase[i]), masks_to_bools(state.hands[i:i + 1, p])[0])
            core.step(state, random_legal(state.legal_action_mask[g], rng), games=g)


def test_the_stock_card_is_the_decks_whoever_draws():
    """Two different move sequences on the same seeds: every card a stock draw brings is the card
    at the stock position of the deck laid out at the deal, and the deck of a hand is never
    rewritten while it is played, so no move can steer which card comes."""
    rules = Rules.preset("gin-rummy-simple")
    first_decks = core.init(32, rules, seed=3).deck.copy()
    draws = 0
    for seed in (1, 2):
        state = core.init(32, rules, seed=3)
        rng = np.random.default_rng(seed)
        for _ in range(120):
            g = np.flatnonzero(~state.done)
            if not g.size:
                break
            deck, stock_pos, hand_number = state.deck.copy(), state.stock_pos.copy(), state.hand_number.copy()
            held = state.hands[:, 0] | state.hands[:, 1]
            core.step(state, random_legal(state.legal_action_mask[g], rng), games=g)
            same_hand = state.hand_number[g] == hand_number[g]
            first_hand = g[same_hand & (hand_number[g] == 0)]
            np.testing.assert_array_equal(state.deck[first_hand], first_decks[first_hand])
            drew = g[same_hand & (state.stock_pos[g] > stock_pos[g])]
            for i in drew:
                assert state.stock_pos[i] == stock_pos[i] + 1
                arrived = int((state.hands[i, 0] | state.hands[i, 1]) & ~held[i])
                assert arrived == 1 << int(deck[i, stock_pos[i]])
            draws += drew.size
    assert draws > 500


def test_aec_env_and_vector_env_offer_the_core_masks_only():
    rng = np.random.default_rng(7)
    env = hollywood_env.env(rules="hollywood")
    env.reset(seed=5)
    checked = 0
    for _agent in env.agent_iter(max_iter=800):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"].astype(bool)
        assert mask.shape == (NUM_ACTIONS,)
        phase = int(np.argmax(obs["observation"][PHASE]))
        check_mask(mask, phase, obs["observation"][HAND].astype(bool))
        env.step(int(rng.choice(np.flatnonzero(mask))))
        checked += 1
    assert checked > 300

    batch = SelfPlayBatch(16, "hollywood", seed=2)
    obs, mask, player = batch.reset()
    for _ in range(200):
        live = mask.any(axis=1)
        for g in np.flatnonzero(live):
            check_mask(mask[g], int(np.argmax(obs[g, PHASE])), obs[g, HAND].astype(bool))
        actions = np.zeros(16, dtype=np.int64)
        actions[live] = random_legal(mask[live], rng)
        obs, mask, player, *_ = batch.step(actions)
