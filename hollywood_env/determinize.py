"""Determinization: what one player knows of a game, and full games consistent with it.

A player of Gin Rummy sees its own hand, the discard pile (in order), the cards the opponent took
from the pile and still holds, the cards each side discarded this hand, the stock's size, the
phase, who dealt, the knock limit and the scoresheet. It does not see the opponent's other cards
nor the order of the stock. A *world* is a full game state that agrees with everything the player
saw: the same public cards, the same own hand, and some assignment of the unseen cards to the
opponent's hand and the stock. Planners (``agents.search.search``) sample worlds, play candidate moves in
each and average: this module is the only place that decides what a player may know.

=====================================  =========================================================
function                               what it does
=====================================  =========================================================
:meth:`InfoSet.from_state`             the information of ``viewer`` in games of a State (the
                                       true state; only what ``viewer`` may see is read)
:meth:`InfoSet.from_observation`       the same from observations and legal masks, as an agent
                                       receives them (:mod:`hollywood_env.observation`)
:func:`sample_worlds`                  ``W`` worlds for each of ``n`` information sets in one
                                       call: a State of ``n * W`` games, world ``j`` of set ``i``
                                       at index ``i * W + j``
:func:`consistent`                     whether the games of a State agree with information sets
                                       (the property the sampler guarantees; for tests)
=====================================  =========================================================

The sampler is exactly uniform over the worlds consistent with an information set: the opponent's
unseen cards are a uniformly random subset of the unseen cards (of the size its hand must have),
and the stock a uniformly random order of the rest. Whatever the opponent's past choices suggest
about its hand is *not* used here: that needs a model of the opponent, which belongs to the agent
(``agents.search.search`` filters the sampled worlds with its opponent model).

What a world knows of the future: each world gets fresh random match and slot seeds (from the
caller's generator), so the hands dealt after the current one are unrelated to the real game's
(which a shared seed would give away). A world's ``known`` cards for the viewer (cards the viewer
took from the pile and still holds, which its opponent sees) are exact from a State and empty from
an observation (the observation does not carry them); ``hand_number`` from an observation is
capped at 100 (the observation's cap); neither changes what the rules allow.

Seats: a world keeps the viewer's seat from a State; from observations, the viewer sits in seat
``0`` (the observation is relative to the viewer, so any seat is equivalent).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import core
from . import observation as O
from .actions import NUM_ACTIONS, PHASE_DISCARD, PHASE_DRAW, PHASE_FIRST_UPCARD
from .cards import CARD_BITS, NUM_CARDS, bools_to_masks, masks_to_bools
from .melds import popcount
from .rules import Rules, check_positive_int, resolve_rules

__all__ = ["InfoSet", "sample_worlds", "consistent", "unseen_cards", "opponent_hand_size"]

_ALL = np.uint64((1 << NUM_CARDS) - 1)


@dataclass(eq=False)
class InfoSet:
    """What ``n`` viewers know, one per row. Card sets are 52-bit ``uint64`` masks.

    ``viewer (n,)``: the viewer's seat; ``to_act (n,)``: the seat to act; ``hand``: the viewer's
    cards; ``own_known``: cards the viewer took from the pile and still holds (what its opponent
    knows of it); ``opp_known``: the same for the opponent; ``discarded (n, 2)``: cards discarded
    this hand by [viewer, opponent]; ``pile (n, 52) int8`` / ``pile_size``: the discard pile,
    bottom first; ``stock_size``; ``phase``; ``dealer`` (a seat); ``taken_card``: the card just
    taken from the pile by the player in its discard phase, -1 if none; ``knock_limit``;
    ``multiplier``; ``hand_number``; the scoresheet arrays by seat (``columns``, ``hands_scored``,
    ``opened``: ``(n, 2, C)``; ``game_winner``: ``(n, C)``, a seat or -1).
    """

    rules: Rules
    viewer: np.ndarray
    to_act: np.ndarray
    hand: np.ndarray
    own_known: np.ndarray
    opp_known: np.ndarray
    discarded: np.ndarray
    pile: np.ndarray
    pile_size: np.ndarray
    stock_size: np.ndarray
    phase: np.ndarray
    dealer: np.ndarray
    taken_card: np.ndarray
    knock_limit: np.ndarray
    multiplier: np.ndarray
    hand_number: np.ndarray
    columns: np.ndarray
    hands_scored: np.ndarray
    opened: np.ndarray
    game_winner: np.ndarray

    def __len__(self) -> int:
        return self.hand.shape[0]

    @classmethod
    def from_state(cls, state: core.State, games: np.ndarray | None = None,
                   viewer: int | np.ndarray | None = None) -> InfoSet:
        """The information of ``viewer`` (a seat, or ``(n,)`` seats; default the player to act)
        in the games ``games`` (indices; default all) of ``state``. Reads the viewer's hand and
        public fields only: never the opponent's hand beyond its known cards, nor the stock."""
        g = np.arange(state.batch_size) if games is None else np.asarray(games, dtype=np.int64).reshape(-1)
        if np.any(state.done[g]):
            raise ValueError(f"games {g[state.done[g]].tolist()} are over: a finished match has nothing to plan")
        me = state.current_player[g].astype(np.int64) if viewer is None else \
            np.broadcast_to(np.asarray(viewer, dtype=np.int64), g.shape).copy()
        if not np.isin(me, (0, 1)).all():
            raise ValueError(f"viewer must be 0 or 1, got {np.unique(me).tolist()}")
        opp = 1 - me
        sheet = state.sheet
        return cls(
            rules=state.rules, viewer=me, to_act=state.current_player[g].astype(np.int64),
            hand=state.hands[g, me], own_known=state.known[g, me], opp_known=state.known[g, opp],
            discarded=np.stack([state.discarded[g, me], state.discarded[g, opp]], axis=1),
            pile=state.pile[g].copy(), pile_size=state.pile_size[g].copy(), stock_size=(NUM_CARDS - state.stock_pos[g]),
            phase=state.phase[g].copy(), dealer=state.dealer[g].astype(np.int64),
            taken_card=state.taken_card[g].copy(), knock_limit=state.knock_limit[g].copy(),
            multiplier=state.multiplier[g].copy(), hand_number=state.hand_number[g].copy(),
            columns=sheet.columns[g].copy(), hands_scored=sheet.hands_scored[g].copy(), opened=sheet.opened[g].copy(),
            game_winner=sheet.game_winner[g].astype(np.int64),
        )

    @classmethod
    def from_observation(cls, obs: np.ndarray, masks: np.ndarray, rules: Rules | str | None = None) -> InfoSet:
        """The information in observations ``(n, D)`` and legal masks ``(n, A)`` of the player to
        act (as every agent receives them), with the viewer in seat 0. Rows must be live (some
        legal action). ``own_known`` is empty (not in the observation); the card just taken
        from the pile is read from the mask when the rules forbid discarding it."""
        rules = resolve_rules(rules)
        obs = np.asarray(obs, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if obs.ndim != 2 or obs.shape[1] != O.observation_size(rules):
            raise ValueError(f"observations must have shape (n, {O.observation_size(rules)}) for these rules, "
                             f"got {obs.shape}")
        n = obs.shape[0]
        if masks.shape != (n, NUM_ACTIONS):
            raise ValueError(f"masks must have shape ({n}, {NUM_ACTIONS}), got {masks.shape}")
        if not masks.any(axis=1).all():
            raise ValueError("every row must have a legal action (a live game)")
        planes = bools_to_masks((obs[:, :O.STOCK] > 0).reshape(n * 6, NUM_CARDS)).reshape(n, 6)
        hand, opp_known, opp_disc, own_disc = planes[:, 0], planes[:, 3], planes[:, 4], planes[:, 5]
        depth = obs[:, O.PILE]
        pile_size = (depth > 0).sum(axis=1).astype(np.int64)
        pile = np.zeros((n, NUM_CARDS), dtype=np.int8)
        order = np.argsort(np.where(depth > 0, depth, 2.0), axis=1, kind="stable")  # bottom first
        live = np.arange(NUM_CARDS)[None, :] < pile_size[:, None]
        pile[live] = order[live]
        phase_oh = obs[:, O.PHASE] > 0
        phase = np.select([phase_oh[:, 0], phase_oh[:, 1], phase_oh[:, 2]],
                          [PHASE_FIRST_UPCARD, PHASE_DRAW, PHASE_DISCARD], PHASE_DISCARD).astype(np.int8)
        me = np.zeros(n, dtype=np.int64)
        dealer = np.where(obs[:, O.IS_DEALER] > 0, 0, 1).astype(np.int64)
        taken = np.full(n, -1, dtype=np.int64)
        if rules.forbid_discard_of_taken_card:
            legal_discards = bools_to_masks(masks[:, :NUM_CARDS])
            held_not_legal = hand & ~legal_discards
            disc = (phase == PHASE_DISCARD) & (held_not_legal != 0)
            if disc.any():
                taken[disc] = masks_to_bools(held_not_legal[disc]).argmax(axis=1)
        c, target = rules.columns, rules.target
        f = obs[:, O.sheet_slice(rules)].reshape(n, c, O.SHEET_FEATURES).astype(np.float64)
        columns = np.rint(np.stack([f[:, :, 0], f[:, :, 1]], axis=1) * target).astype(np.int64)
        opened = np.stack([f[:, :, 2], f[:, :, 3]], axis=1) > 0
        hands_scored = np.rint(np.stack([f[:, :, 7], f[:, :, 8]], axis=1) * 10).astype(np.int64)
        game_winner = np.where(f[:, :, 4] > 0, np.where(f[:, :, 5] > 0, 0, 1), -1).astype(np.int64)
        return cls(
            rules=rules, viewer=me, to_act=me.copy(), hand=hand, own_known=np.zeros(n, dtype=np.uint64),
            opp_known=opp_known, discarded=np.stack([own_disc, opp_disc], axis=1), pile=pile, pile_size=pile_size,
            stock_size=np.rint(obs[:, O.STOCK] * 31).astype(np.int64), phase=phase, dealer=dealer, taken_card=taken,
            knock_limit=np.rint(obs[:, O.KNOCK_LIMIT] * 10).astype(np.int64),
            multiplier=np.where(obs[:, O.DOUBLED] > 0, 2, 1).astype(np.int64),
            hand_number=np.rint(obs[:, O.HAND_NUMBER] * 100).astype(np.int64),
            columns=columns, hands_scored=hands_scored, opened=opened, game_winner=game_winner,
        )

    def pile_cards(self) -> np.ndarray:
        """``(n,)`` uint64: the cards in the discard pile."""
        live = np.arange(NUM_CARDS)[None, :] < self.pile_size[:, None]
        bits = np.where(live, CARD_BITS[self.pile.astype(np.int64)], np.uint64(0))
        return np.bitwise_or.reduce(bits, axis=1)


def unseen_cards(info: InfoSet) -> np.ndarray:
    """``(n,)`` uint64: the cards the viewer cannot place: the opponent's unknown cards and the
    stock (everything but the viewer's hand, the pile and the opponent's known cards)."""
    return _ALL & ~(info.hand | info.pile_cards() | info.opp_known)


def opponent_hand_size(info: InfoSet) -> np.ndarray:
    """``(n,)``: the opponent's hand size, which is public: 11 while it is in its discard phase,
    10 otherwise."""
    return np.where((info.to_act != info.viewer) & (info.phase == PHASE_DISCARD), 11, 10)


def sample_worlds(info: InfoSet, worlds: int, rng: np.random.Generator, max_steps: int | None = None,
                  weights: np.ndarray | None = None) -> core.State:
    """``worlds`` random worlds per information set, as one State of ``n * worlds`` games (world
    ``j`` of set ``i`` at index ``i * worlds + j``), ready to step: legal masks computed, no
    events, no rewards. See the module docstring for what is random.

    ``weights``: ``None`` for uniform worlds, or ``(n, 52)`` non-negative card weights (a belief:
    for example the odds ``p / (1 - p)`` of each card being in the opponent's hand). The
    opponent's unknown cards are then drawn one after another without replacement, each time a
    card with probability proportional to its weight among the unseen cards left (successive
    sampling; cards of weight 0 only when the positive ones run out); the stock is a uniformly
    random order of the rest. Only unseen cards are ever dealt to the opponent, so every world is
    consistent whatever the weights."""
    check_positive_int("worlds", worlds)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    n, w = len(info), int(worlds)
    m = n * w
    rules = info.rules
    rep = lambda a: np.repeat(a, w, axis=0)  # noqa: E731
    unseen = rep(unseen_cards(info))
    opp_size = rep(opponent_hand_size(info))
    stock_size = rep(info.stock_size)
    known = rep(info.opp_known)
    need = opp_size - popcount(known).astype(np.int64)
    n_unseen = popcount(unseen).astype(np.int64)
    if np.any(need < 0) or np.any(n_unseen != need + stock_size):
        bad = int(np.flatnonzero((need < 0) | (n_unseen != need + stock_size))[0] // w)
        raise ValueError(f"information set {bad} is inconsistent: {int(n_unseen[bad * w])} unseen cards for "
                         f"{int(need[bad * w])} unknown opponent cards and a stock of {int(stock_size[bad * w])}")

    # a uniformly random order of each world's unseen cards: the first `need` go to the opponent,
    # the rest, in that order, are the stock (a uniform subset and a uniform order of the rest)
    unseen_b = masks_to_bools(unseen)
    keys = rng.random((m, NUM_CARDS))
    rank = np.arange(NUM_CARDS)[None, :]
    if weights is not None:
        wts = np.asarray(weights, dtype=np.float64)
        if wts.shape != (n, NUM_CARDS) or not np.all(wts >= 0):
            raise ValueError(f"weights must be ({n}, {NUM_CARDS}) non-negative card weights, got shape {wts.shape}")
        wts = np.repeat(wts, w, axis=0)
        # successive sampling in one sort: exponential race times E / w, the smallest first
        race = rng.standard_exponential((m, NUM_CARDS)) / np.maximum(wts, 1e-300)
        race = np.where(wts > 0, race, 1e300 + keys)  # weight 0: after every positive weight
        race[~unseen_b] = np.inf
        first = np.argsort(race, axis=1, kind="stable")
        chosen = np.zeros((m, NUM_CARDS), dtype=bool)
        np.put_along_axis(chosen, first, rank < need[:, None], axis=1)
        keys = np.where(chosen, keys - 1.0, keys)  # the opponent's cards first, then the stock in random order
    keys[~unseen_b] = 2.0  # unseen cards first, in random order
    order = np.argsort(keys, axis=1, kind="stable")
    to_opp = (rank < need[:, None])
    opp_cards = np.bitwise_or.reduce(np.where(to_opp, CARD_BITS[order], np.uint64(0)), axis=1)

    me = rep(info.viewer)
    opp = 1 - me
    rows = np.arange(m)
    state = core.init(m, rules, seed=rng.integers(0, 2**63, size=m, dtype=np.uint64), max_steps=max_steps)
    state.hands[rows, me] = rep(info.hand)
    state.hands[rows, opp] = known | opp_cards
    state.known[rows, me] = rep(info.own_known)
    state.known[rows, opp] = known
    disc = rep(info.discarded)
    state.discarded[rows, me] = disc[:, 0]
    state.discarded[rows, opp] = disc[:, 1]
    state.pile[:] = rep(info.pile)
    state.pile_size[:] = rep(info.pile_size)
    # the deck: the stock (positions 52 - stock_size ..) in the sampled order; the dealt part
    # before it holds the other cards (never read again in this hand)
    stock_pos = NUM_CARDS - stock_size
    deck = np.empty((m, NUM_CARDS), dtype=np.int8)
    # order[:, need : need + stock_size] is the stock, drawn in that order from position
    # stock_pos on; the other entries of `order` fill positions 0 .. stock_pos - 1
    stock_slot = (rank >= need[:, None]) & (rank < (need + stock_size)[:, None])
    front_pos = np.cumsum(~stock_slot, axis=1) - 1
    target = np.where(stock_slot, rank - need[:, None] + stock_pos[:, None], front_pos)
    np.put_along_axis(deck, target, order.astype(np.int8), axis=1)
    state.deck[:] = deck
    state.stock_pos[:] = stock_pos
    state.phase[:] = rep(info.phase)
    state.current_player[:] = rep(info.to_act)
    state.dealer[:] = rep(info.dealer)
    state.taken_card[:] = rep(info.taken_card)
    state.knock_limit[:] = rep(info.knock_limit)
    state.multiplier[:] = rep(info.multiplier)
    state.hand_number[:] = rep(info.hand_number)
    sheet = state.sheet
    sheet.columns[:] = rep(info.columns)
    sheet.hands_scored[:] = rep(info.hands_scored)
    sheet.opened[:] = rep(info.opened)
    sheet.game_winner[:] = rep(info.game_winner)
    sheet.version += 1
    state.legal_action_mask[:] = core.legal_action_mask(state)
    return state


def consistent(state: core.State, info: InfoSet, worlds: int = 1) -> np.ndarray:
    """``(n * worlds,)`` bool: game ``i * worlds + j`` of ``state`` agrees with information set
    ``i``: the viewer's hand and known cards, the opponent's known cards (and a hand of the right
    size that holds them), the pile in order, the discards, the stock size, the phase, the seats,
    the knock limit, multiplier and the scoresheet, and all 52 cards accounted for once."""
    w = int(worlds)
    rep = lambda a: np.repeat(a, w, axis=0)  # noqa: E731
    m = state.batch_size
    if m != len(info) * w:
        raise ValueError(f"state has {m} games, expected {len(info)} x {w}")
    rows = np.arange(m)
    me = rep(info.viewer)
    opp = 1 - me
    ok = state.hands[rows, me] == rep(info.hand)
    ok &= state.known[rows, me] == rep(info.own_known)
    ok &= state.known[rows, opp] == rep(info.opp_known)
    ok &= (state.hands[rows, opp] & rep(info.opp_known)) == rep(info.opp_known)
    ok &= popcount(state.hands[rows, opp]).astype(np.int64) == rep(opponent_hand_size(info))
    ok &= state.discarded[rows, me] == rep(info.discarded[:, 0])
    ok &= state.discarded[rows, opp] == rep(info.discarded[:, 1])
    ok &= state.pile_size == rep(info.pile_size)
    live = np.arange(NUM_CARDS)[None, :] < state.pile_size[:, None]
    ok &= np.all((state.pile == rep(info.pile)) | ~live, axis=1)
    ok &= (NUM_CARDS - state.stock_pos) == rep(info.stock_size)
    for name, mine in (("phase", info.phase), ("current_player", info.to_act), ("dealer", info.dealer),
                       ("taken_card", info.taken_card), ("knock_limit", info.knock_limit),
                       ("multiplier", info.multiplier)):
        ok &= getattr(state, name).astype(np.int64) == rep(mine).astype(np.int64)
    sheet = state.sheet
    ok &= np.all(sheet.columns == rep(info.columns), axis=(1, 2))
    ok &= np.all(sheet.hands_scored == rep(info.hands_scored), axis=(1, 2))
    ok &= np.all(sheet.opened == rep(info.opened), axis=(1, 2))
    ok &= np.all(sheet.game_winner.astype(np.int64) == rep(info.game_winner), axis=1)
    # every card exactly once: the two hands, the pile and the stock
    stock = np.zeros(m, dtype=np.uint64)
    for i in range(NUM_CARDS):
        in_stock = state.stock_pos <= i
        stock |= np.where(in_stock, CARD_BITS[state.deck[:, i].astype(np.int64)], np.uint64(0))
    pile = np.bitwise_or.reduce(np.where(live, CARD_BITS[state.pile.astype(np.int64)], np.uint64(0)), axis=1)
    parts = [state.hands[:, 0], state.hands[:, 1], pile, stock]
    union = parts[0] | parts[1] | parts[2] | parts[3]
    total = sum(popcount(p).astype(np.int64) for p in parts)
    ok &= (union == _ALL) & (total == NUM_CARDS)
    return ok
