"""hollywood_env.history: the public log of a hand and its encoding.

* The engine's log equals a slow reference that reads each decision from the state before it
  (who moved, what was on top of the pile, which action) over many random matches of every
  preset, on the batched path; the one-game path is checked field by field against the batched
  one in tests/engine/test_core_single.py.
* The log never holds a hidden card: a stock draw records the declined top of the pile.
* The encoding's planes say what the module docstring says, from either seat.
"""

import numpy as np
import pytest

from hollywood_env import core
from hollywood_env.actions import DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD
from hollywood_env.history import (
    EVENT_DECLINE,
    EVENT_DISCARD,
    EVENT_TAKE,
    GIVEN,
    HISTORY_SIZE,
    LOG_CAPACITY,
    OPP_DECLINED,
    OPP_DISCARD,
    OPP_DISCARD_TURN,
    OPP_LAST_DISCARD,
    OPP_THREW_AFTER,
    OPP_TOOK,
    OWN_DISCARD,
    decode_events,
    encode_history,
    event_code,
)
from hollywood_env.rules import PRESETS
from hollywood_env.sampling import random_legal_actions


def _reference_event(state, g, action):
    """The event a decision adds to the log, read from the state before it (None: no event)."""
    p = int(state.current_player[g])
    size = int(state.pile_size[g])
    top = int(state.pile[g, size - 1]) if size else -1
    if action == TAKE_DISCARD:
        return (p, EVENT_TAKE, top)
    if action in (PASS, DRAW_STOCK):
        return (p, EVENT_DECLINE, top) if top >= 0 else None
    if action < DRAW_STOCK:
        return (p, EVENT_DISCARD, action % KNOCK)
    return None  # big gin: the hand ends without a discard


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_log_equals_a_reference_read_from_each_decision(preset):
    rng = np.random.default_rng(7)
    n = 12
    state = core.init(n, preset, seed=11, max_steps=250)
    logs = [[] for _ in range(n)]
    checked = 0
    for _ in range(250):
        live = ~state.done
        if not live.any():
            break
        a = random_legal_actions(state.legal_action_mask, rng)
        events = [_reference_event(state, g, int(a[g])) if live[g] else None for g in range(n)]
        core.step(state, a)
        for g in range(n):
            if not live[g]:
                continue
            if state.hand_ended[g]:
                logs[g] = []  # a new hand was dealt: its log starts empty
            elif events[g] is not None:
                logs[g].append(events[g])
            size = int(state.log_size[g])
            want = logs[g][:LOG_CAPACITY]
            assert size == len(want)
            got = list(zip(*(x.tolist() for x in decode_events(state.log[g, :size])), strict=True)) if size else []
            assert got == want
            assert (state.log[g, size:] == -1).all()
            checked += 1
    assert checked > 1500


def test_a_stock_draw_records_the_declined_upcard_not_the_drawn_card():
    state = core.init(1, "hollywood", seed=3)
    # the first upcard: the non-dealer passes, the dealer passes, the non-dealer draws from the stock
    upcard = int(state.pile[0, 0])
    core.step(state, np.array([PASS]))
    core.step(state, np.array([PASS]))
    actor, kind, card = decode_events(state.log[0, :state.log_size[0]])
    assert kind.tolist() == [EVENT_DECLINE, EVENT_DECLINE] and card.tolist() == [upcard, upcard]
    drawn = int(state.deck[0, 21])
    assert drawn not in card.tolist()
    assert actor.tolist()[0] != actor.tolist()[1]


def test_the_encoding_planes_from_both_seats():
    # a scripted log: seat 1 takes card 5, discards 40; seat 0 declines 40, discards 7; seat 1 discards 9
    state = core.init(2, "hollywood", seed=0)
    log = [event_code(1, EVENT_TAKE, 5), event_code(1, EVENT_DISCARD, 40), event_code(0, EVENT_DECLINE, 40),
           event_code(0, EVENT_DISCARD, 7), event_code(1, EVENT_DISCARD, 9)]
    state.log[:, :5] = np.array(log, dtype=np.int16)
    state.log_size[:] = 5
    h = encode_history(state, viewer=np.array([0, 1]))
    assert h.shape == (2, HISTORY_SIZE) and (h[:, GIVEN] == 1).all()
    planes = h[:, :GIVEN].reshape(2, -1, 52)
    seen_by_0, seen_by_1 = planes[0], planes[1]
    # viewer 0: the opponent (seat 1) took 5, threw 40 right after, then discarded 9 on its turn 1
    assert seen_by_0[OPP_TOOK, 5] == 1 and seen_by_0[OPP_TOOK].sum() == 1
    assert seen_by_0[OPP_THREW_AFTER, 40] == 1 and seen_by_0[OPP_THREW_AFTER].sum() == 1
    assert seen_by_0[OPP_DISCARD, [40, 9]].tolist() == [1, 1]
    assert seen_by_0[OPP_DISCARD_TURN, 9] == pytest.approx(1 / 20) and seen_by_0[OPP_DISCARD_TURN, 40] == 0
    assert seen_by_0[OPP_LAST_DISCARD].argmax() == 9 and seen_by_0[OPP_LAST_DISCARD].sum() == 1
    assert seen_by_0[OWN_DISCARD, 7] == 1
    # viewer 1: the opponent (seat 0) declined 40 and discarded 7
    assert seen_by_1[OPP_DECLINED, 40] == 1 and seen_by_1[OPP_DISCARD, 7] == 1 and seen_by_1[OPP_TOOK].sum() == 0


def test_the_log_is_cleared_at_each_deal():
    rng = np.random.default_rng(2)
    state = core.init(64, "hollywood", seed=5)
    for _ in range(300):
        before = state.hand_number.copy()
        core.step(state, random_legal_actions(state.legal_action_mask, rng))
        new = (state.hand_number != before) & ~state.done
        # a fresh deal: nothing logged yet (the first upcard decision is next)
        assert (state.log_size[new] == 0).all()
