"""agents.bots.marjj: the MARJJ reference bot (EAAI-2021 Gin Rummy winner's strategy).

* Legal moves in matches of every preset (``agents.matches.play_pairing`` checks every action)
  and with rule options; the same seed plays the same moves and matches.
* Hand-made positions: it knocks early but not late (gin, a deadwood knock only on its first
  turns, or at the wall), takes an upcard only when it melds and lowers the deadwood, and does
  not feed the cards the opponent picked up.
* It never uses hidden information: its moves are unchanged when the opponent's unknown cards and
  the stock are shuffled among themselves (same seed).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import scripted_position

from agents.bots.marjj import MarjjBot, MarjjParams
from agents.matches import play_pairing
from agents.registry import make_agent
from hollywood_env import core
from hollywood_env import melds as M
from hollywood_env import observation as O
from hollywood_env.actions import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD
from hollywood_env.cards import NUM_CARDS, cards_to_mask, mask_to_cards, parse_card, parse_cards
from hollywood_env.rules import PRESETS, Rules
from hollywood_env.sampling import random_legal_actions


def _position(hand, **kw):
    """One observation row and its mask, of a real State set up by hand (helpers.scripted_position)."""
    return scripted_position(hand, **kw)


def _act(obs, mask, rules=None, **kw):
    return int(MarjjBot(rules or Rules(), seed=0, **kw)(obs, mask)[0])


# --- legality and seeding ----------------------------------------------------------------------------


@pytest.mark.parametrize("preset, opp", [(p, ("random", "simple", "marjj")[i % 3]) for i, p in enumerate(PRESETS)])
def test_legal_in_matches_of_every_preset(preset, opp):
    """play_pairing raises on any illegal action; both seats, many games and hand ends."""
    r = play_pairing("marjj", opp, preset, n_pairs=32, seed=len(preset), max_steps=70)
    assert r.a_decisions > 1500 and r.hands.sum() > 40


def test_legal_with_rule_options():
    rules = Rules(big_gin=True, forbid_discard_of_taken_card=False, knock_limit=5, columns=2, target=60,
                  wall_stock_size=6)
    r = play_pairing("marjj", "random", rules, n_pairs=16, seed=4, max_steps=70)
    assert r.a_decisions > 500
    for knock_limit in (0, 3):  # gin only; a low (Oklahoma-like) limit
        r = play_pairing("marjj", "simple", Rules.preset("gin-rummy").replace(knock_limit=knock_limit, target=40),
                         n_pairs=16, seed=5, max_steps=70)
        assert r.a_decisions > 500


def _positions(n=64, steps=40, seed=0, preset="hollywood"):
    """A State of n games after `steps` decisions (marjj in both seats, a fifth of them random)."""
    rng = np.random.default_rng(seed)
    state = core.init(n, preset, seed=seed)
    bot = MarjjBot(preset, seed=seed)
    for _ in range(steps):
        mask = state.legal_action_mask
        a = bot(O.encode(state), mask)
        core.step(state, np.where(rng.random(n) < 0.2, random_legal_actions(mask, rng), a))
    return state


def test_same_seed_same_moves_and_matches():
    state = _positions(seed=1)
    obs, mask = O.encode(state), state.legal_action_mask
    a = MarjjBot("hollywood", seed=7)(obs, mask)
    np.testing.assert_array_equal(a, MarjjBot("hollywood", seed=7)(obs, mask))
    bot = make_agent("marjj", "hollywood", seed=3)
    bot.seed(7)
    np.testing.assert_array_equal(bot(obs, mask), a)
    assert mask[np.arange(a.size), a][mask.any(axis=1)].all()
    r1 = play_pairing("marjj", "neller", "gin-rummy", n_pairs=8, seed=9, max_steps=100)
    r2 = play_pairing("marjj", "neller", "gin-rummy", n_pairs=8, seed=9, max_steps=100)
    for key in ("match_winner", "a_points", "b_points", "hands"):
        np.testing.assert_array_equal(getattr(r1, key), getattr(r2, key))


def test_params_and_single_rows():
    assert MarjjBot(early_turns=1).params == MarjjParams(early_turns=1)
    with pytest.raises(ValueError, match="unknown MarjjBot parameter"):
        MarjjBot(nonsense=1)
    state = core.init(3, "straight-gin", seed=0)
    obs, mask = O.encode(state), state.legal_action_mask.copy()
    mask[1] = False
    a = MarjjBot("straight-gin", seed=0)(obs, mask)
    assert a[1] == 0 and mask[0, a[0]] and mask[2, a[2]]
    assert mask[0, int(MarjjBot("straight-gin", seed=0)(obs[0], mask[0]))]


# --- the strategy on hand-made positions -------------------------------------------------------------

KNOCKABLE = "Ac 2c 3c 5h 6h 7h 9s 9d 9h Kd 2d"  # discard Kd: deadwood 2
LATE = "Qc Jd 8s 4h Ts"  # five discards of its own: its sixth turn


def test_knocks_early_but_not_late_with_deadwood():
    obs, mask = _position(KNOCKABLE, phase="discard")
    assert _act(obs, mask) == KNOCK + parse_card("Kd")  # first turn: knock
    obs, mask = _position(KNOCKABLE, phase="discard", own_discarded="Qc Jd")
    assert _act(obs, mask) == KNOCK + parse_card("Kd")  # third turn: still early
    obs, mask = _position(KNOCKABLE, phase="discard", own_discarded=LATE)
    a = _act(obs, mask)
    assert DISCARD <= a < KNOCK  # later: waits for gin
    assert a == DISCARD + parse_card("Kd")
    # with more latitude (a tuning knob) it knocks with deadwood 2
    assert _act(obs, mask, late_deadwood=2) == KNOCK + parse_card("Kd")
    # at the wall (a plain discard would end the hand unscored) it knocks
    obs, mask = _position(KNOCKABLE, phase="discard", own_discarded=LATE, stock=2)
    assert _act(obs, mask) == KNOCK + parse_card("Kd")
    assert DISCARD <= _act(obs, mask, wall_knock=False) < KNOCK


def test_takes_gin_late_and_big_gin():
    obs, mask = _position("Ac 2c 3c 4c 5h 6h 7h 9s 9d 9h Kd", phase="discard", own_discarded=LATE)
    assert _act(obs, mask) == KNOCK + parse_card("Kd")
    rules = Rules.preset("straight-gin")
    obs, mask = _position("Ac 2c 3c 4c 5h 6h 7h 9s 9d 9h Kd", phase="discard", rules=rules, knock_limit=0)
    assert _act(obs, mask, rules) == KNOCK + parse_card("Kd")
    rules = Rules(big_gin=True)
    obs, mask = _position("Ac 2c 3c 4c 5h 6h 7h 9s 9d 9h 9c", phase="discard", rules=rules)
    assert mask[0, BIG_GIN]  # the engine offers big gin with these eleven cards
    assert _act(obs, mask, rules) == BIG_GIN


def test_upcard_taken_only_when_it_melds_and_improves():
    hand = "Ac 2c 3c 5h 6h 7h 9s 9d 9h Kd"
    assert _act(*_position(hand, top="4c", own_discarded=LATE)) == TAKE_DISCARD  # gin
    assert _act(*_position(hand, top="Ks")) == DRAW_STOCK  # melds with nothing
    assert _act(*_position(hand, top="Ks", first_upcard=True)) == PASS
    # Ad would let simple knock (deadwood 1 after Kd), but it melds with nothing
    assert _act(*_position(hand, top="Ad")) == DRAW_STOCK
    # 4c melds, but a gin hand cannot improve
    assert _act(*_position("Ac 2c 3c 5h 6h 7h 9s 9d 9h 9c", top="4c")) == DRAW_STOCK
    # early_take: an upcard that lets it knock on an early turn
    assert _act(*_position(hand, top="Ad"), early_take=True) == TAKE_DISCARD
    assert _act(*_position(hand, top="Ad", own_discarded=LATE), early_take=True) == DRAW_STOCK


def test_does_not_feed_the_cards_the_opponent_picked_up():
    # deadwood Qd and Qs, otherwise alike (no knock: limit 0)
    hand = "Ac 2c 3c 5h 6h 7h 9s 9d 9h Qd Qs"
    for known, safe in (("Jd Kd", "Qs"), ("Js Ks", "Qd"), ("Jd", "Qs"), ("Ks", "Qd"), ("Qc Qh", None)):
        obs, mask = _position(hand, phase="discard", knock_limit=0, opp_known=known)
        a = _act(obs, mask)
        if safe is None:  # both complete the opponent's set of queens: either
            assert a - DISCARD in parse_cards("Qd Qs")
        else:
            assert a == DISCARD + parse_card(safe), known
    # a card the opponent discarded makes its neighbours safe: Ts dead, Js dead
    obs, mask = _position(hand, phase="discard", knock_limit=0, opp_discarded="Js Ks", pile="Js Ks")
    assert _act(obs, mask) == DISCARD + parse_card("Qs")


def test_discards_by_the_future_of_the_hand_kept():
    # 8c 9c (an open two-way run draw) against Kd Qh (nothing): both 10-point discards are free
    # of danger; it throws a king or queen, never breaks the 8c 9c draw
    obs, mask = _position("Ac 2c 3c 5h 6h 7h 8c 9c Kd Qh Qs", phase="discard", knock_limit=0)
    assert _act(obs, mask) - DISCARD in parse_cards("Kd Qh Qs")


# --- hidden information --------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["hollywood", "oklahoma"])
def test_never_uses_hidden_information(preset, reshuffle_hidden):
    """Same seed, same observations: the same moves, whatever the opponent holds beyond its known
    cards and whatever the stock order (both reshuffled among the unseen cards)."""
    rng = np.random.default_rng(0)
    for steps in (12, 40):
        state = _positions(n=48, steps=steps, seed=8, preset=preset)
        live = np.flatnonzero(~state.done)
        other = reshuffle_hidden(state, live, rng)
        assert not np.array_equal(other.hands, state.hands[live])  # the hidden cards did change
        a = MarjjBot(preset, seed=11)(O.encode(state, games=live), state.legal_action_mask[live])
        b = MarjjBot(preset, seed=11)(O.encode(other), other.legal_action_mask)
        np.testing.assert_array_equal(a, b)


def test_least_after_discard_equals_trying_every_discard():
    from agents.bots.marjj import least_after_discard, least_after_discard_batched

    rng = np.random.default_rng(0)
    hands = []
    for i in range(600):
        k = 10 + i % 2
        if i % 3 == 0:  # meld-rich: cards of five ranks
            ranks = rng.choice(13, 5, replace=False)
            cards = rng.choice([s * 13 + r for r in ranks for s in range(4)], k, replace=False)
        else:
            cards = rng.choice(NUM_CARDS, k, replace=False)
        hands.append(cards_to_mask([int(c) for c in cards]))
    h = np.array(hands + [cards_to_mask(parse_cards("Ac 2c 3c 4c 5h 6h 7h 9s 9d 9h 9c"))], dtype=np.uint64)
    want = [min(M.min_deadwood_one(x & ~(1 << c)) for c in mask_to_cards(x)) for x in h.tolist()]
    assert least_after_discard(h).tolist() == want  # compiled with numba
    assert least_after_discard_batched(h).tolist() == want
    empty = np.zeros(3, dtype=np.uint64)
    assert least_after_discard(empty).tolist() == least_after_discard_batched(empty).tolist() == [10**6] * 3
