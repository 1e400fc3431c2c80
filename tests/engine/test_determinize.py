"""hollywood_env.determinize: information sets and the worlds sampled from them.

* Property: over many random positions of every kind (each phase, both seats, several presets),
  every sampled world agrees with the viewer's information (``consistent``), the true state does
  too, and the information read from an observation equals the information read from the state.
* Uniformity: on a small information set (four unseen cards: two for the opponent, two in the
  stock) the sampler hits each of the 12 consistent worlds equally often (chi-square).
* No leak: the information set does not change when the opponent's unknown cards and the stock are
  shuffled among themselves.
* Recorded deals: a game started from a recorded deal (core.deal) replays a recorded match.
"""

import numpy as np
import pytest

from hollywood_env import core
from hollywood_env import observation as O
from hollywood_env.actions import PHASE_DRAW
from hollywood_env.cards import CARD_BITS, NUM_CARDS
from hollywood_env.determinize import InfoSet, consistent, opponent_hand_size, sample_worlds, unseen_cards
from hollywood_env.melds import popcount
from hollywood_env.sampling import random_legal_actions


def _positions(preset, batch=128, steps=120, seed=0, every=7):
    """Yield (state, live games) at many points of random matches."""
    rng = np.random.default_rng(seed)
    state = core.init(batch, preset, seed=seed)
    for t in range(steps):
        live = np.flatnonzero(~state.done)
        if live.size == 0:
            return
        if t % every == 0:
            yield state, live
        core.step(state, random_legal_actions(state.legal_action_mask, rng))


def _chi2_sf(x, k):
    """Survival function of the chi-square distribution with k degrees of freedom (Wilson-Hilferty)."""
    from math import erf, sqrt
    z = ((x / k) ** (1 / 3) - (1 - 2 / (9 * k))) / sqrt(2 / (9 * k))
    return 0.5 * (1 - erf(z / sqrt(2)))


@pytest.mark.parametrize("preset", ["hollywood", "gin-rummy", "oklahoma"])
def test_sampled_worlds_never_contradict_the_viewer(preset):
    rng = np.random.default_rng(1)
    checked = 0
    for state, live in _positions(preset, seed=3):
        for viewer in (None, 0, 1):  # the player to act, and each seat (also while the other acts)
            info = InfoSet.from_state(state, live, viewer=viewer)
            truth = core.take(state, live)
            assert consistent(truth, info).all()
            worlds = sample_worlds(info, 3, rng)
            assert consistent(worlds, info, 3).all()
            # worlds drawn from a belief (card weights, some zero) are consistent too
            weights = rng.random((len(info), 52)) * (rng.random((len(info), 52)) < 0.7)
            assert consistent(sample_worlds(info, 3, rng, weights=weights), info, 3).all()
            # the opponent's hand always holds its known cards and has the public size
            rows = np.arange(worlds.batch_size)
            me = np.repeat(info.viewer, 3)
            opp_hand = worlds.hands[rows, 1 - me]
            assert np.all(opp_hand & np.repeat(info.opp_known, 3) == np.repeat(info.opp_known, 3))
            assert np.array_equal(popcount(opp_hand), np.repeat(opponent_hand_size(info), 3))
            # the viewer's own observation is the same in every world as in the real game
            view = O.encode(truth, viewer=info.viewer)
            np.testing.assert_array_equal(O.encode(worlds, viewer=me), np.repeat(view, 3, axis=0))
            checked += worlds.batch_size
    assert checked > 10_000


@pytest.mark.parametrize("preset", ["hollywood", "gin-rummy", "oklahoma", "gin-rummy-simple"])
def test_information_from_an_observation_equals_information_from_the_state(preset):
    fields = ("hand", "opp_known", "discarded", "pile_size", "stock_size", "phase", "taken_card", "knock_limit",
              "multiplier")
    n = 0
    for state, live in _positions(preset, seed=5, every=3):
        obs = O.encode(state, games=live)
        a = InfoSet.from_state(state, live)
        b = InfoSet.from_observation(obs, state.legal_action_mask[live], preset)
        for f in fields:
            if f == "taken_card" and not state.rules.forbid_discard_of_taken_card:
                continue
            np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)
        alive = np.arange(NUM_CARDS)[None, :] < a.pile_size[:, None]
        np.testing.assert_array_equal(np.where(alive, a.pile, 0), np.where(alive, b.pile, 0))
        # seats are relative in an observation: seat 0 is the viewer
        np.testing.assert_array_equal(a.dealer == a.viewer, b.dealer == 0)
        me = a.viewer
        rows = np.arange(len(a))
        for f in ("columns", "hands_scored", "opened"):
            np.testing.assert_array_equal(getattr(a, f)[rows, me], getattr(b, f)[:, 0], err_msg=f)
            np.testing.assert_array_equal(getattr(a, f)[rows, 1 - me], getattr(b, f)[:, 1], err_msg=f)
        gw = np.where(a.game_winner < 0, -1, (a.game_winner != me[:, None]).astype(np.int64))
        np.testing.assert_array_equal(gw, b.game_winner)
        # worlds built from the observation give back the observation
        worlds = sample_worlds(b, 2, np.random.default_rng(0))
        np.testing.assert_allclose(O.encode(worlds)[::2], obs, atol=1e-6)
        n += len(a)
    assert n > 1000


def test_the_sampler_is_uniform_over_the_consistent_worlds():
    """A synthetic late position with 4 unseen cards: the opponent holds 8 known cards and needs
    2 of the 4, the stock is the other 2 in some order: C(4, 2) * 2! = 12 equally likely worlds."""
    rules = core.resolve_rules("hollywood")
    cards = np.arange(NUM_CARDS)
    hand = cards[:10]
    opp_known = cards[10:18]
    unseen = cards[18:22]
    pile = cards[22:]  # 30 cards
    bits = lambda cs: np.bitwise_or.reduce(CARD_BITS[cs])  # noqa: E731
    c = rules.columns
    info = InfoSet(
        rules=rules, viewer=np.array([0]), to_act=np.array([0]), hand=np.array([bits(hand)]),
        own_known=np.zeros(1, np.uint64), opp_known=np.array([bits(opp_known)]),
        discarded=np.zeros((1, 2), np.uint64), pile=np.concatenate([pile, np.zeros(22, int)])[None].astype(np.int8),
        pile_size=np.array([30]), stock_size=np.array([2]), phase=np.array([PHASE_DRAW], np.int8),
        dealer=np.array([1]), taken_card=np.array([-1]), knock_limit=np.array([10]), multiplier=np.array([1]),
        hand_number=np.array([0]), columns=np.zeros((1, 2, c), np.int64), hands_scored=np.zeros((1, 2, c), np.int64),
        opened=np.zeros((1, 2, c), bool), game_winner=np.full((1, c), -1),
    )
    assert unseen_cards(info)[0] == bits(unseen)
    n = 24_000
    worlds = sample_worlds(info, n, np.random.default_rng(7))
    assert consistent(worlds, info, n).all()
    pos = worlds.stock_pos
    key = [(int(h & bits(unseen)), int(worlds.deck[i, pos[i]]), int(worlds.deck[i, pos[i] + 1]))
           for i, h in enumerate(worlds.hands[:, 1])]
    counts = {}
    for k in key:
        counts[k] = counts.get(k, 0) + 1
    assert len(counts) == 12
    expected = n / 12
    chi2 = sum((v - expected) ** 2 / expected for v in counts.values())
    assert _chi2_sf(chi2, 11) > 0.001, (chi2, counts)


def test_information_ignores_the_opponents_unknown_cards_and_the_stock_order():
    rng = np.random.default_rng(2)
    for state, live in _positions("hollywood", seed=9, every=11):
        info = InfoSet.from_state(state, live)
        other = core.take(state, live)
        rows = np.arange(other.batch_size)
        opp = 1 - other.current_player.astype(np.int64)
        for i in rows:  # shuffle the opponent's unknown cards with the stock
            hidden_opp = [c for c in range(NUM_CARDS)
                          if (int(other.hands[i, opp[i]]) >> c) & 1 and not (int(other.known[i, opp[i]]) >> c) & 1]
            pos = int(other.stock_pos[i])
            pool = np.array(hidden_opp + other.deck[i, pos:].tolist())
            rng.shuffle(pool)
            k = len(hidden_opp)
            other.hands[i, opp[i]] = int(other.known[i, opp[i]]) | int(np.bitwise_or.reduce(CARD_BITS[pool[:k]]))
            other.deck[i, pos:] = pool[k:]
        again = InfoSet.from_state(other)
        for f in ("hand", "own_known", "opp_known", "discarded", "pile", "pile_size", "stock_size", "phase",
                  "taken_card", "columns", "opened"):
            np.testing.assert_array_equal(getattr(info, f), getattr(again, f), err_msg=f)


def test_a_game_started_from_a_recorded_deal_replays_a_recorded_match():
    """Record a whole match (every deal and every action), then replay it in another game whose
    every hand is started from the recorded deck with core.deal: same events, same scoresheet."""
    rng = np.random.default_rng(4)
    rec = core.init(1, "hollywood", seed=21)
    decks, dealers, actions, results = [rec.deck[0].copy()], [int(rec.dealer[0])], [], []
    while not rec.done[0]:
        a = random_legal_actions(rec.legal_action_mask, rng)
        actions.append(int(a[0]))
        core.step(rec, a)
        if rec.hand_ended[0]:
            results.append((int(rec.hand_kind[0]), int(rec.hand_winner[0]), int(rec.hand_points[0])))
            if not rec.done[0]:
                decks.append(rec.deck[0].copy())
                dealers.append(int(rec.dealer[0]))
    assert len(results) >= 3
    rep = core.init(1, "hollywood", seed=999)
    hand = 0
    core.deal(rep, [0], decks[0][None], [dealers[0]])
    replayed = []
    for a in actions:
        core.step(rep, np.array([a]))
        if rep.hand_ended[0]:
            replayed.append((int(rep.hand_kind[0]), int(rep.hand_winner[0]), int(rep.hand_points[0])))
            hand += 1
            if not rep.done[0]:
                core.deal(rep, [0], decks[hand][None], [dealers[hand]])
    assert replayed == results
    assert rep.done[0]
    np.testing.assert_array_equal(rep.sheet.columns, rec.sheet.columns)
    np.testing.assert_array_equal(rep.sheet.game_winner, rec.sheet.game_winner)


def test_bad_input_is_reported():
    state = core.init(2, "hollywood", seed=0)
    info = InfoSet.from_state(state)
    with pytest.raises(ValueError, match="worlds must be a positive int"):
        sample_worlds(info, 0, np.random.default_rng(0))
    with pytest.raises(TypeError, match="numpy Generator"):
        sample_worlds(info, 2, 0)
    with pytest.raises(ValueError, match="viewer must be 0 or 1"):
        InfoSet.from_state(state, viewer=2)
    with pytest.raises(ValueError, match="observations must have shape"):
        InfoSet.from_observation(np.zeros((2, 5), np.float32), state.legal_action_mask, "hollywood")
    with pytest.raises(ValueError, match="masks must have shape"):
        InfoSet.from_observation(O.encode(state), state.legal_action_mask[:, :50], "hollywood")
