"""agents/search/posterior.py (measured by experiments/research/belief_posterior.py): the opponent's
earlier hands rebuilt backwards, and the worlds the posterior draws, stay consistent with what the
viewer saw at every step."""

import numpy as np

from agents.registry import make_agent
from agents.search import posterior as bp
from hollywood_env.actions import DISCARD, DRAW_STOCK, KNOCK
from hollywood_env.cards import CARD_BITS
from hollywood_env.melds import popcount
from hollywood_env.rules import resolve_rules


def _pile_bits(state, g):
    return np.bitwise_or.reduce(CARD_BITS[state.pile[g, :state.pile_size[g]].astype(np.int64)]) \
        if state.pile_size[g] else np.uint64(0)


def test_rebuilt_hands_are_possible_hands_at_every_earlier_step():
    rules = resolve_rules("hollywood")
    rng = np.random.default_rng(3)
    bots = [make_agent("simple", rules, seed=1), make_agent("simple", rules, seed=2)]
    snaps, acts, records, opp_seat, agreement = bp.play(bots[0], "simple", bots[1], "simple", bots[1], rules,
                                                        games=16, keep=0.5, rng=rng, seed=11)
    assert agreement == 1.0  # a deterministic bot makes its own moves
    assert len(records) > 20
    checked = 0
    for (T, g) in records:
        o = int(opp_seat[g])
        history = bp.rebuild_histories(np.repeat(snaps[T].hands[[g], o], 6), snaps, acts, T, g, o, rng)
        for (t, hands, a) in history:
            st = snaps[t]
            assert np.all(popcount(hands) == (11 if a < DRAW_STOCK else 10))
            # what the opponent is known to hold then, it holds; what the viewer held or saw in
            # the pile then, it does not
            assert np.all(hands & np.uint64(st.known[g, o]) == np.uint64(st.known[g, o]))
            assert np.all(hands & (np.uint64(st.hands[g, 1 - o]) | _pile_bits(st, g)) == 0)
            if a < DRAW_STOCK:
                card = a - DISCARD if a < KNOCK else a - KNOCK
                assert np.all(hands & CARD_BITS[card])
            checked += 1
    assert checked > 50


def test_learned_proposals_hold_the_right_number_of_unseen_cards():
    rng = np.random.default_rng(0)
    unseen = np.zeros(52, dtype=bool)
    unseen[5:40] = True
    p = np.where(unseen, 8 / 35, 0.0)
    for kind in ("uniform", "learned"):
        chosen, logq = bp.draw_worlds(kind, p, unseen, 8, 300, rng)
        assert chosen.shape == (300, 52) and logq.shape == (300,)
        assert np.all(chosen.sum(axis=1) == 8)
        assert not np.any(chosen[:, ~unseen])
        # every unseen card turns up: the proposal covers the prior's support
        assert chosen.any(axis=0)[unseen].all()
