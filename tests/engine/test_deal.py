"""core.deal: games started from given deals (a home for search and for scripted positions)."""

import numpy as np
import pytest

from hollywood_env import core
from hollywood_env.sampling import random_legal_actions

FIELDS = ("hands", "pile", "pile_size", "stock_pos", "known", "discarded", "phase", "current_player", "dealer",
          "legal_action_mask", "hand_ended", "hand_kind", "hand_winner", "hand_points", "rewards")


def _assert_same(a, b, rows_a, rows_b, where):
    for f in FIELDS:
        np.testing.assert_array_equal(getattr(a, f)[rows_a], getattr(b, f)[rows_b], err_msg=f"{f} {where}")


@pytest.mark.parametrize("preset,batch", [("hollywood", 6), ("oklahoma", 6), ("gin-rummy", 1)])
def test_a_game_started_from_a_recorded_deal_replays_the_recorded_hand(preset, batch):
    recorded = core.init(batch, preset, seed=11)
    replay = core.init(batch, preset, seed=12345)  # other cards, other dealers
    assert not np.array_equal(recorded.hands, replay.hands)
    core.deal(replay, np.arange(batch), recorded.deck.copy(), recorded.dealer.copy())
    _assert_same(recorded, replay, slice(None), slice(None), "after the deal")
    rng = np.random.default_rng(0)
    live = np.ones(batch, dtype=bool)  # games still in their first hand: compared step by step
    steps = 0
    while live.any():
        a = random_legal_actions(recorded.legal_action_mask, rng)
        b = np.where(live, a, random_legal_actions(replay.legal_action_mask, rng))  # later hands differ
        core.step(recorded, a)
        core.step(replay, b)
        ended = recorded.hand_ended
        going = live & ~ended
        _assert_same(recorded, replay, going, going, f"at step {steps}")
        done = live & ended  # the hand's result (the next hand is dealt from each game's own seed)
        for f in ("hand_ended", "hand_kind", "hand_winner", "hand_points", "ended_hands", "rewards"):
            np.testing.assert_array_equal(getattr(recorded, f)[done], getattr(replay, f)[done], err_msg=f)
        live &= ~ended
        steps += 1
    assert steps > 20


def test_deal_into_chosen_games_leaves_the_others():
    s = core.init(4, "hollywood", seed=3)
    before = s.hands.copy()
    order = np.random.default_rng(1).permutation(52)
    core.deal(s, [2], order[None, :], dealer=[1])
    np.testing.assert_array_equal(s.hands[[0, 1, 3]], before[[0, 1, 3]])
    assert s.dealer[2] == 1 and s.current_player[2] == 0 and s.pile[2, 0] == order[20]
    assert s.legal_action_mask[2].any()


def test_deal_rejects_bad_input():
    s = core.init(2, "hollywood", seed=3)
    good = np.stack([np.arange(52), np.arange(52)[::-1]])
    with pytest.raises(ValueError, match="shape"):
        core.deal(s, [0, 1], good[:1])
    with pytest.raises(ValueError, match="permutation"):
        core.deal(s, [0], np.zeros((1, 52), dtype=int))
    with pytest.raises(ValueError, match="dealer must be 0 or 1"):
        core.deal(s, [0], good[:1], dealer=[2])
    core.step(s, random_legal_actions(s.legal_action_mask, np.random.default_rng(0)))
    core.step(s, random_legal_actions(s.legal_action_mask, np.random.default_rng(0)))
    with pytest.raises(ValueError, match="not at the start of a hand"):
        core.deal(s, [0, 1], good)
