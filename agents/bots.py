"""Baseline bots, batched: each is a policy ``(observations (n, D) float32, masks (n, 108) bool)
-> actions (n,) int64`` with no Python loop over the rows.

A bot knows the rules it plays (``Bot(rules=..., seed=...)``) and reads everything from the
observation layout of :mod:`hollywood_env.observation` (its hand, the discard pile, the cards the
opponent took and discarded, the stock size, the knock limit in force, the scoresheet) and from
the legal-action mask (the phase, which discards and knocks are legal, hence the card just taken
from the pile when its discard is forbidden). They never see the state itself, so they plug into
the PettingZoo / Gymnasium layers as they are.

============  =================================================================================
name          play
============  =================================================================================
``random``    uniform over the legal actions
``simple``    OpenSpiel's simple Gin Rummy bot (:class:`SimpleBot`)
``neller``    the EAAI Gin Rummy challenge's ``SimpleGinRummyPlayer`` (:class:`NellerBot`)
``hollywood`` our scoresheet-aware heuristic (:class:`HollywoodBot`)
============  =================================================================================

Rows whose mask has no legal action (a finished game) get action 0; callers ignore it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from hollywood_env import melds as M
from hollywood_env import observation as O
from hollywood_env.actions import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, NUM_ACTIONS, PASS, TAKE_DISCARD
from hollywood_env.cards import CARD_BITS, CARD_VALUES, NUM_CARDS, bools_to_masks, masks_to_bools
from hollywood_env.rules import Rules, resolve_rules
from hollywood_env.sampling import SeedLike, as_generator, random_legal_actions

__all__ = ["Bot", "PhaseBot", "RandomBot", "SimpleBot", "NellerBot", "HollywoodBot", "HollywoodParams", "View", "decode",
           "highest_card", "meldable_with", "best_knock"]

U64 = np.uint64
RANK = np.arange(NUM_CARDS) % 13
SUIT = np.arange(NUM_CARDS) // 13
VALUE = CARD_VALUES.astype(np.int64)
_SUIT_BITS = U64(0x1FFF)
_SHIFTS = [U64(13 * s) for s in range(4)]
_RANK_ROWS = np.array([(np.uint64(1) << np.uint64(r)) * U64(1 + (1 << 13) + (1 << 26) + (1 << 39)) for r in range(13)],
                      dtype=np.uint64)  # all four cards of each rank


def _bits(masks: np.ndarray) -> np.ndarray:
    """(n,) uint64 -> (n, 52) bool."""
    return masks_to_bools(masks)


def _pc(masks: np.ndarray) -> np.ndarray:
    return M.popcount(masks)


# --- reading the observation ----------------------------------------------------------------


@dataclass
class View:
    """What a bot reads from ``(obs, mask)``, as arrays over the n rows.

    Card sets are uint64 52-bit masks. ``pile`` includes ``top``; ``top`` is -1 on an empty pile.
    ``take_phase``: taking the pile's top card is legal (first-upcard or draw phase);
    ``first_upcard``: the first-upcard ritual (pass is legal); ``discard_phase``: discards legal.
    """

    hand: np.ndarray
    top: np.ndarray
    pile: np.ndarray
    opp_known: np.ndarray
    opp_discarded: np.ndarray
    own_discarded: np.ndarray
    stock: np.ndarray
    knock_limit: np.ndarray
    take_phase: np.ndarray
    first_upcard: np.ndarray
    discard_phase: np.ndarray
    legal_discards: np.ndarray  # uint64: cards whose plain discard is legal
    legal_knocks: np.ndarray  # uint64: cards whose knock-discard is legal


def decode(obs: np.ndarray, mask: np.ndarray, full: bool = True) -> View:
    """Decode the rows of ``obs`` / ``mask`` (see :mod:`hollywood_env.observation`).

    ``full=False`` reads only the hand and the pile's top card (the other card sets are left 0).
    """
    n = obs.shape[0]
    stop = O.OWN_DISCARDED.stop if full else O.PILE_TOP.stop
    planes = obs[:, :stop] > 0  # the 52-card planes in layout order
    k = stop // NUM_CARDS
    m = bools_to_masks(planes.reshape(n * k, NUM_CARDS)).reshape(n, k)
    if not full:
        m = np.concatenate([m, np.zeros((n, 6 - k), dtype=np.uint64)], axis=1)
    acts = bools_to_masks(mask[:, : 2 * NUM_CARDS].reshape(n * 2, NUM_CARDS)).reshape(n, 2)
    top_plane = planes[:, O.PILE_TOP]
    has_top = top_plane.any(axis=1)
    top = np.where(has_top, top_plane.argmax(axis=1), -1)
    return View(
        hand=m[:, 0], top=top, pile=m[:, 2], opp_known=m[:, 3], opp_discarded=m[:, 4], own_discarded=m[:, 5],
        stock=np.rint(obs[:, O.STOCK] * 31).astype(np.int64),
        knock_limit=np.rint(obs[:, O.KNOCK_LIMIT] * 10).astype(np.int64),
        take_phase=mask[:, TAKE_DISCARD].copy(), first_upcard=mask[:, PASS].copy(),
        discard_phase=mask[:, :KNOCK].any(axis=1),
        legal_discards=acts[:, 0], legal_knocks=acts[:, 1],
    )


def _expand(masks: np.ndarray):
    """Every (row, card) with ``card`` in ``masks[row]``, rows ascending."""
    return np.nonzero(_bits(masks))


def _best_per_row(rows: np.ndarray, cards: np.ndarray, key: np.ndarray, n: int) -> np.ndarray:
    """Per row, the card of the smallest ``key`` (ties: the smaller card index); -1 for rows
    with no candidate."""
    out = np.full(n, -1, dtype=np.int64)
    if rows.size == 0:
        return out
    order = np.lexsort((cards, key, rows))
    r = rows[order]
    first = np.ones(r.shape[0], dtype=bool)
    first[1:] = r[1:] != r[:-1]
    out[r[first]] = cards[order][first]
    return out


_HIGH_BIT = np.full(8192, -1, dtype=np.int64)
_HIGH_BIT[1:] = np.array([p.bit_length() - 1 for p in range(1, 8192)])


#: OpenSpiel's card order (``suit * 13 + rank`` with suits s, c, d, h): the suits of our order
#: (c, d, h, s) from its lowest to its highest, and each card's place in OpenSpiel's rank-then-index
#: order (``CompareRanks``: rank, ties by the higher index, i.e. hearts > diamonds > clubs > spades)
OPENSPIEL_SUITS_LOW_TO_HIGH = (3, 0, 1, 2)
OPENSPIEL_RANK_ORDER = RANK * 4 + (SUIT + 1) % 4
#: each card's index in OpenSpiel
OPENSPIEL_INDEX = (SUIT + 1) % 4 * 13 + RANK
OUR_SUITS_LOW_TO_HIGH = (0, 1, 2, 3)


def highest_card(cands: np.ndarray, suits_low_to_high: tuple[int, ...] = OUR_SUITS_LOW_TO_HIGH) -> np.ndarray:
    """Per row of ``cands`` (uint64), the highest-ranked card, ties by the higher suit in the
    order ``suits_low_to_high`` (our default: spades high; the same order as the highest
    deadwood value, then rank, then suit); -1 if empty."""
    cands = np.asarray(cands, dtype=np.uint64)
    p = [((cands >> sh) & _SUIT_BITS).astype(np.int64) for sh in _SHIFTS]
    rank = _HIGH_BIT[p[0] | p[1] | p[2] | p[3]]
    r = np.maximum(rank, 0)
    suit = np.full(cands.shape, -1, dtype=np.int64)
    for s in suits_low_to_high:
        suit = np.where((p[s] >> r) & 1 == 1, s, suit)
    return np.where(rank >= 0, suit * 13 + r, -1)


def meldable_with(hand: np.ndarray) -> np.ndarray:
    """uint64: the cards (not in ``hand``) that would lie in some meld with cards of ``hand``:
    a third (or fourth) card of a rank held twice (or three times), or a card next to two cards of
    its suit in a row (either side or in between)."""
    hand = np.asarray(hand, dtype=np.uint64)
    out = np.zeros(hand.shape, dtype=np.uint64)
    p = [((hand >> sh) & _SUIT_BITS).astype(np.int64) for sh in _SHIFTS]
    two = (p[0] & p[1]) | (p[0] & p[2]) | (p[0] & p[3]) | (p[1] & p[2]) | (p[1] & p[3]) | (p[2] & p[3])
    for s in range(4):
        q = p[s]
        up1, up2, dn1, dn2 = q >> 1, q >> 2, q << 1, q << 2  # bit r set: holds r+1, r+2, r-1, r-2
        run = ((dn1 & dn2) | (dn1 & up1) | (up1 & up2)) & 0x1FFF
        out |= ((run | two) & 0x1FFF).astype(np.uint64) << _SHIFTS[s]
    return out & ~hand


def melds_with(hand: np.ndarray, card: np.ndarray) -> np.ndarray:
    """bool: ``card`` (int, -1 = none) would lie in some meld with cards of ``hand``."""
    card = np.asarray(card)
    bit = np.where(card >= 0, CARD_BITS[np.maximum(card, 0)], U64(0))
    return (meldable_with(hand) & bit) != 0


# --- OpenSpiel's choice among equally good arrangements ---------------------------------------
# OpenSpiel's ``BestMeldGroup`` returns the first meld group of greatest melded value in the
# depth-first order of ``AllMeldGroups``: melds are listed as ``AllMelds`` lists them (four-card
# sets by rank, each followed by two of its three-card subsets; then the three-card sets by rank;
# then runs of five, four and three cards, by suit s, c, d, h and rank), so the group chosen is
# the one whose melds, sorted in that order, come first lexicographically. Only the deadwood left
# matters to the bot, and that differs only between set choices of equal deadwood.

_NO_MELD = 511  # sorts after every meld key (< 5 * 52)


def _run_pieces(start: int, length: int) -> list[tuple[int, int]]:
    """The split of a run into melds of 3-5 cards that comes first in OpenSpiel's order."""
    if length <= 5:
        return [(start, length)]
    if length == 6:
        return [(start, 3), (start + 3, 3)]
    if length == 7:
        return [(start, 4), (start + 4, 3)]
    return [(start, 5)] + _run_pieces(start + 5, length - 5)


def _run_piece_table() -> np.ndarray:
    """(8192, 3): per pattern of maximal runs in one suit, the keys ``block * 52 + rank`` of its
    pieces (block 2, 3, 4: runs of 5, 4, 3 cards), padded with ``_NO_MELD``."""
    tbl = np.full((8192, 3), _NO_MELD, dtype=np.int64)
    for pat in range(1, 8192):
        pieces, r = [], 0
        while r < 13:
            if (pat >> r) & 1:
                e = r
                while e + 1 < 13 and (pat >> (e + 1)) & 1:
                    e += 1
                if e - r + 1 >= 3:
                    pieces += _run_pieces(r, e - r + 1)
                r = e + 1
            else:
                r += 1
        keys = sorted((7 - n) * 52 + st for st, n in pieces)[:3]
        tbl[pat, : len(keys)] = keys
    return tbl


def _set_key_table() -> np.ndarray:
    """(16, 16): key of the set taking the OpenSpiel suits ``set`` (4-bit) out of a rank held in
    the suits ``held``, as ``block * 52 + index`` (block 0: four-card sets and the two subsets
    listed with them, 3 per rank; block 1: the other three-card sets, 2 per rank), without the
    rank (added by the caller: ``rank * 3`` or ``rank * 2``); ``_NO_MELD`` where no set."""
    tbl = np.full((16, 16), _NO_MELD, dtype=np.int64)
    for held in range(16):
        for st in range(16):
            if st & ~held or bin(st).count("1") < 3:
                continue
            if st == 15:
                tbl[held, st] = 0
            elif held != 15:
                tbl[held, st] = 52  # the only set of three
            else:
                missing = (15 & ~st).bit_length() - 1  # OpenSpiel suit left out
                tbl[held, st] = {3: 52, 0: 52 + 1, 2: 1, 1: 2}[missing]
    return tbl


_RUN_PIECES = _run_piece_table()
_SET_KEYS = _set_key_table()
#: our suit -> OpenSpiel's (c d h s -> s c d h order: s=0, c=1, d=2, h=3)
_OS_SUIT = np.array([1, 2, 3, 0])


_RANKS13 = np.arange(13)


def _openspiel_group_keys(hand: np.ndarray, set_mask: np.ndarray, run_mask: np.ndarray) -> np.ndarray:
    """Per arrangement, its three smallest meld keys in OpenSpiel's meld order, packed into one
    int64 (smaller: listed first by ``BestMeldGroup``)."""
    hp = M.suit_patterns(hand)
    sp = M.suit_patterns(set_mask)
    rp = M.suit_patterns(run_mask)
    held = sum(((hp[s][:, None] >> _RANKS13) & 1) << _OS_SUIT[s] for s in range(4))
    taken = sum(((sp[s][:, None] >> _RANKS13) & 1) << _OS_SUIT[s] for s in range(4))
    k = _SET_KEYS[held, taken]
    sets = np.where(k == _NO_MELD, k, k + np.where(k < 52, 3 * _RANKS13, 2 * _RANKS13))
    runs = [np.where(_RUN_PIECES[rp[s]] < _NO_MELD, _RUN_PIECES[rp[s]] + 13 * _OS_SUIT[s], _NO_MELD) for s in range(4)]
    keys = np.sort(np.concatenate([sets] + runs, axis=1), axis=1)[:, :3]
    return (keys[:, 0] << 18) | (keys[:, 1] << 9) | keys[:, 2]


def openspiel_melded(hand: np.ndarray) -> np.ndarray:
    """uint64: the cards melded in OpenSpiel's ``BestMeldGroup`` of each hand (a minimum-deadwood
    arrangement; among equal ones, the one OpenSpiel lists first, see above)."""
    hand = np.asarray(hand, dtype=np.uint64).reshape(-1)
    if hand.shape[0] < _SMALL_BATCH:  # a few hands: Python ints, numpy only where arrangements tie
        quick = [_melded_if_unique(x) for x in hand.tolist()]
        out = np.array([0 if q is None else q for q in quick], dtype=np.uint64)
        tie = [i for i, q in enumerate(quick) if q is None]
        if tie:
            out[tie] = _openspiel_tied(hand[tie])
        return out
    p = M.suit_patterns(hand)
    three = M.ranks_held_3plus(*p)
    run = [M.RUN_BITS[q] for q in p]  # cards in 3+ stretches of their suit
    # No card both in a set and in a run: every set and every run is melded, one arrangement.
    out = np.zeros(hand.shape, dtype=np.uint64)
    for s in range(4):
        out |= ((three & p[s]) | run[s]).astype(np.uint64) << np.uint64(13 * s)
    maybe = np.flatnonzero(three & (run[0] | run[1] | run[2] | run[3]))
    if maybe.size:
        out[maybe] = _openspiel_tied(hand[maybe])
    return out


_SMALL_BATCH = 16
_RUN_BITS_L = M.RUN_BITS.tolist()


def _melded_if_unique(x: int) -> int | None:
    """:func:`openspiel_melded` of one hand (a Python int) when no card can go both in a set and
    in a run (then there is one best arrangement: every set and every run); else None."""
    p0, p1, p2, p3 = x & 0x1FFF, (x >> 13) & 0x1FFF, (x >> 26) & 0x1FFF, x >> 39
    three = M.ranks_held_3plus(p0, p1, p2, p3)
    r0, r1, r2, r3 = _RUN_BITS_L[p0], _RUN_BITS_L[p1], _RUN_BITS_L[p2], _RUN_BITS_L[p3]
    if three & (r0 | r1 | r2 | r3):
        return None
    return (((three & p0) | r0) | (((three & p1) | r1) << 13) | (((three & p2) | r2) << 26)
            | (((three & p3) | r3) << 39))


def _openspiel_tied(hand: np.ndarray) -> np.ndarray:
    """The melded cards of OpenSpiel's choice among the least-deadwood arrangements of each hand."""
    row, set_mask, run_mask, _ = M.min_arrangement_rows(hand)
    key = _openspiel_group_keys(hand[row], set_mask, run_mask)
    order = np.lexsort((key, row))
    r = row[order]
    first = np.ones(r.shape[0], dtype=bool)
    first[1:] = r[1:] != r[:-1]
    out = np.zeros(hand.shape[0], dtype=np.uint64)
    out[r[first]] = (set_mask | run_mask)[order][first]
    return out


# --- the bots ---------------------------------------------------------------------------------


class Bot:
    """Base class: a batched policy that knows its rules. Subclasses implement :meth:`act`.

    ``seed``: an int, None, or a ``np.random.Generator`` (shared, not copied) for the bot's
    randomness; the same seed and the same sequence of calls give the same actions.
    :meth:`seed` reseeds it.
    """

    name = "bot"

    def __init__(self, rules: Rules | str | None = None, seed: SeedLike = None):
        self.rules = resolve_rules(rules)
        self.rng = as_generator(seed)
        self.obs_size = O.observation_size(self.rules)

    def seed(self, seed: SeedLike = None) -> None:
        """Reseed the bot's randomness (an int, None or a ``np.random.Generator``, as for the
        constructor); the environments call it on every seeded reset. A bot that draws no random
        numbers (``simple``, ``hollywood``) plays the same whatever the seed."""
        self.rng = as_generator(seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rules={self.rules.preset_name or 'custom'})"

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs, dtype=np.float32)
        mask = np.asarray(mask, dtype=bool)
        if obs.ndim == 1:
            return self(obs[None], np.asarray(mask)[None])[0]
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(
                f"{self.name}: observations must have shape (n, {self.obs_size}) for rules with "
                f"{self.rules.columns} column(s), got {obs.shape}; was the bot built with the game's rules?")
        if mask.shape != (obs.shape[0], NUM_ACTIONS):
            raise ValueError(f"{self.name}: masks must have shape ({obs.shape[0]}, {NUM_ACTIONS}), got {mask.shape}")
        out = np.zeros(obs.shape[0], dtype=np.int64)
        live = mask.any(axis=1)
        if live.all():
            return self.act(obs, mask)
        rows = np.flatnonzero(live)
        if rows.size:
            out[rows] = self.act(obs[rows], mask[rows])
        return out

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


class PhaseBot(Bot):
    """A bot with one rule for the upcard (first upcard or draw phase), :meth:`_draw`, and one
    for the discard phase, :meth:`_discard`; ``full_view``: decode the whole observation.

    :meth:`act_on_view` plays from a :class:`View` built by the caller (the search's rollouts
    build it from the engine's state, without encoding an observation)."""

    full_view = False

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.act_on_view(decode(obs, mask, full=self.full_view), mask, obs)

    def act_on_view(self, v: View, mask: np.ndarray, obs: np.ndarray | None = None) -> np.ndarray:
        """The bot's actions ``(n,)`` from the view ``v`` of ``n`` rows and their legal masks
        ``(n, 108)``: the upcard rule on the rows of ``v.take_phase``, the discard rule on those of
        ``v.discard_phase``, 0 elsewhere. ``obs``: the observations the view was decoded from
        (read by bots that look at the scoresheet, ``hollywood``; the others accept None)."""
        out = np.zeros(v.hand.shape[0], dtype=np.int64)
        rows = np.flatnonzero(v.take_phase)
        if rows.size:
            out[rows] = self._draw(v, rows)
        rows = np.flatnonzero(v.discard_phase)
        if rows.size:
            out[rows] = self._discard(obs, v, rows, mask)
        return out

    def _draw(self, v: View, rows: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _discard(self, obs: np.ndarray | None, v: View, rows: np.ndarray,
                 mask: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


class RandomBot(Bot):
    """Uniform over the legal actions."""

    name = "random"

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return random_legal_actions(mask, self.rng)


class SimpleBot(PhaseBot):
    """The classic simple Gin Rummy bot: OpenSpiel's ``SimpleGinRummyBot``
    (``open_spiel/bots/gin_rummy/simple_gin_rummy_bot.cc``), with OpenSpiel's tie-breaks.

    * Upcard (first upcard or draw): take it if the minimum deadwood of hand + upcard (after the
      best legal discard) is within the knock limit, or if the upcard lies in a meld of the
      best arrangement of the 11 cards; otherwise draw from the stock (pass the first upcard).
    * Discard phase: big gin if legal; else knock (or gin) as soon as any knock is legal,
      discarding the highest-ranked deadwood card of the best arrangement of the 11 cards (with
      11 melded cards: the first card in OpenSpiel's order whose discard keeps gin); else discard
      the highest-ranked card among the deadwood of the best arrangement of the 11 cards that is
      a legal discard; if none is, the highest-ranked legal discard.

    Ties are broken as OpenSpiel breaks them: between cards of one rank, the higher suit in
    OpenSpiel's card order (hearts > diamonds > clubs > spades; its cards are ``suit * 13 +
    rank`` with suits s, c, d, h); between arrangements of equal deadwood, the meld group
    OpenSpiel's ``BestMeldGroup`` lists first (:func:`openspiel_melded`).

    On positions of replayed OpenSpiel games it picks OpenSpiel's move at 100% of 25,321
    decisions in 1,000 games (95.0% with our own tie-breaks before): ``python
    benchmarks/openspiel_agreement.py`` (tested in ``tests/test_bots.py`` where OpenSpiel is
    installed). What can still differ, outside those games or not seen in them:

    * "taking the upcard lets us knock" is the least deadwood over the legal discards, where
      OpenSpiel counts the deadwood of its chosen arrangement less its highest card: the two
      differ only when arrangements tie and a melded card would be the better discard;
    * our rule sets may forbid discarding the card just taken from the pile (OpenSpiel allows
      it): the bot then counts only legal discards and never picks an illegal one;
    * OpenSpiel's bot decides at the wall (two cards left in the stock: knock if it can) and
      never lays off; our hands end at the wall, and lay-offs are made by the engine.
    """

    name = "simple"

    def _draw(self, v: View, rows):
        return np.where(take_upcard(v, rows, self.rules, melded=openspiel_melded), TAKE_DISCARD,
                        np.where(v.first_upcard[rows], PASS, DRAW_STOCK))

    def _discard(self, obs, v: View, rows, mask):
        out = np.zeros(rows.size, dtype=np.int64)
        big = mask[rows, BIG_GIN]
        out[big] = BIG_GIN
        hand = v.hand[rows]
        deadwood = hand & ~openspiel_melded(hand)
        knock = (v.legal_knocks[rows] != 0) & ~big
        k = np.flatnonzero(knock)
        if k.size:
            card = highest_card(deadwood[k] & v.legal_knocks[rows[k]], OPENSPIEL_SUITS_LOW_TO_HIGH)
            gin = np.flatnonzero(card < 0)  # all 11 melded (or that card forbidden)
            if gin.size:
                card[gin] = best_knock(hand[k[gin]], v.legal_knocks[rows[k[gin]]], openspiel_ties=True)
            out[k] = KNOCK + card
        plain = np.flatnonzero(~knock & ~big)
        if plain.size:
            out[plain] = DISCARD + simple_discard(deadwood[plain], v.legal_discards[rows[plain]])
        return out


def simple_discard(deadwood: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """``simple``'s plain discard (a card index per row): the highest-ranked card of ``deadwood``
    (the hand less OpenSpiel's best arrangement, ``hand & ~openspiel_melded(hand)``) that is in
    ``legal``; if none is, the highest-ranked card of ``legal`` (OpenSpiel's tie-breaks)."""
    card = highest_card(deadwood & legal, OPENSPIEL_SUITS_LOW_TO_HIGH)
    none = card < 0
    if none.any():  # every deadwood card is forbidden: the highest legal discard
        card[none] = highest_card(legal[none], OPENSPIEL_SUITS_LOW_TO_HIGH)
    return card


def take_upcard(v: View, rows: np.ndarray, rules: Rules,
                melded: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """The simple bot's upcard rule for the rows ``rows``: the upcard lies in a meld of the best
    arrangement of hand + upcard, or taking it lets us knock (with a legal discard).
    ``melded``: the function giving the melded cards of the best arrangement (default: ours,
    :func:`hollywood_env.melds.best_arrangement_masks`; :func:`openspiel_melded`: OpenSpiel's)."""
    up = v.top[rows]
    upbit = CARD_BITS[up]
    h11 = v.hand[rows] | upbit
    if melded is None:
        _, sets, runs = M.best_arrangement_masks(h11)
        take = ((sets | runs) & upbit) != 0
    else:
        take = (melded(h11) & upbit) != 0
    rest = np.flatnonzero(~take)
    if rest.size:
        h = h11[rest]
        allowed = h & ~upbit[rest] if rules.forbid_discard_of_taken_card else h
        take[rest] = M.knock_discards(h, v.knock_limit[rows[rest]], allowed) != 0
    return take


def best_knock(hand: np.ndarray, knocks: np.ndarray, openspiel_ties: bool = False) -> np.ndarray:
    """Per row, the knock card (in ``knocks``) that leaves the least deadwood; ties: the higher
    deadwood value, then the higher card index. ``openspiel_ties``: ties by the higher rank,
    then the higher suit in OpenSpiel's order (hearts > diamonds > clubs > spades), and at gin
    (nothing left) the lowest card in OpenSpiel's order (its 11-card gin discard)."""
    r, c = _expand(knocks)
    dw = M.min_deadwood_masks(hand[r] & ~CARD_BITS[c])
    if openspiel_ties:
        key = dw * 64 + np.where(dw == 0, OPENSPIEL_INDEX[c], 63 - OPENSPIEL_RANK_ORDER[c])
    else:
        key = _knock_key(dw, c)
    return _best_per_row(r, c, key, hand.shape[0])


def _knock_key(dw: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (dw * 16 + 15 - VALUE[c]) * 64 + 63 - c


class NellerBot(PhaseBot):
    """The EAAI Gin Rummy challenge's ``SimpleGinRummyPlayer`` (Todd Neller).

    * Upcard: take it only if it can be part of some meld with the hand; otherwise draw from
      the stock (pass the first upcard).
    * Discard: among the legal discards whose removal leaves the minimum deadwood, one at random
      (the card just taken from the pile is never a legal discard when that is forbidden); knock
      with that discard whenever its deadwood is within the knock limit (gin at 0); big gin if legal.

    The original also refuses to repeat a draw-and-discard pair within a hand; bots here keep
    no memory between calls, so that rule is left out.
    """

    name = "neller"

    def _draw(self, v: View, rows):
        take = melds_with(v.hand[rows], v.top[rows])
        return np.where(take, TAKE_DISCARD, np.where(v.first_upcard[rows], PASS, DRAW_STOCK))

    def _discard(self, obs, v: View, rows, mask):
        r, c = _expand(v.legal_discards[rows])
        dw = M.min_deadwood_masks(v.hand[rows][r] & ~CARD_BITS[c])
        # random tie-break: a random key below 1 added to the integer deadwood
        key = dw + self.rng.random(dw.shape[0])
        card = _best_per_row(r, c, key, rows.size)
        knock = (v.legal_knocks[rows] & CARD_BITS[card]) != 0
        return np.where(mask[rows, BIG_GIN], BIG_GIN, np.where(knock, KNOCK, DISCARD) + card)


@dataclass(frozen=True)
class HollywoodParams:
    """Knobs of :class:`HollywoodBot` (see its docstring).

    The defaults were tuned against ``simple`` in ``hollywood`` matches (3,000 duplicate pairs per
    setting): the outs and danger terms are worth about 4 points of match win rate together
    (without them, min-deadwood discards lose to ``simple``); ``take_gain`` below 8 hurts;
    holding out for gin and the close margin change little either way. Tried and not kept (no
    better than these defaults): a one-step lookahead (expected deadwood after the next stock
    draw), counting only outs next to deadwood, an outs weight falling with the stock, and
    declining high-deadwood knocks when the opponent holds cards taken from the pile.
    """

    #: weight of a live "out" (an unseen card that would meld with the hand) in discard choice
    outs_weight: float = 1.0
    #: weight of feeding the opponent's known melds / taking its discards' safety into account
    danger_weight: float = 3.0
    safety_weight: float = 1.0
    #: take the upcard (besides meld / knock) when it lowers the deadwood by at least this much
    #: (100: never)
    take_gain: int = 100
    #: hold out for gin: when ahead in open columns, with deadwood <= hold_deadwood and at
    #: least hold_stock cards in the stock, do not knock (0 disables)
    hold_deadwood: int = 3
    hold_stock: int = 20
    #: "close to ending a game": the opponent is this many points or fewer from the target
    close_margin: int = 25


class HollywoodBot(PhaseBot):
    """A heuristic of our own that reads the Hollywood scoresheet and tracks the cards.

    * Stance from the sheet (in-progress games only): *urgent* when the opponent has more
      columns open than we do, or is within ``close_margin`` points of the target in a game:
      knock at the first chance. *Patient* when we have more columns open: it may hold out for
      gin when its knock deadwood is already at most ``hold_deadwood`` with at least
      ``hold_stock`` cards left in the stock. Otherwise knock as soon as it is legal.
    * Knock with the discard that leaves the least deadwood (big gin / gin first).
    * Upcard: take it when it melds in the best arrangement of hand + upcard, or lets us knock,
      or lowers the deadwood after the best discard by ``take_gain`` or more.
    * Discard: minimise ``deadwood after the discard - outs_weight * live outs of the hand kept
      + danger_weight * danger - safety_weight * safety``, where the outs are the unseen cards
      (not in our hand, the discard pile or the cards the opponent took) that would meld with
      the hand kept; danger counts the opponent's known cards (taken from the pile) the discard
      would meld with; safety marks a discard of a rank the opponent threw, or next to a card
      of its suit it threw.
    """

    name = "hollywood"
    full_view = True  # reads the discards and the opponent's known cards too

    def __init__(self, rules: Rules | str | None = None, seed: SeedLike = None, params: HollywoodParams | None = None,
                 **kw: Any):
        super().__init__(rules, seed)
        params = params or HollywoodParams()
        if kw:
            names = {f.name for f in fields(HollywoodParams)}
            bad = sorted(set(kw) - names)
            if bad:
                raise ValueError(f"unknown HollywoodBot parameter(s) {bad}; valid: {sorted(names)}")
            params = replace(params, **kw)
        self.params = params
        self._sheet = O.sheet_slice(self.rules)

    # --- the sheet ----------------------------------------------------------------------------
    def stance(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(urgent, patient)`` bool arrays from the scoresheet features."""
        c = self.rules.columns
        f = obs[:, self._sheet].reshape(obs.shape[0], c, O.SHEET_FEATURES)
        opp_pts = f[:, :, 1] * self.rules.target
        own_open, opp_open, live = f[:, :, 2] > 0, f[:, :, 3] > 0, f[:, :, 4] == 0
        n_own = (own_open & live).sum(axis=1)
        n_opp = (opp_open & live).sum(axis=1)
        close = (live & (opp_pts >= self.rules.target - self.params.close_margin - 0.5)).any(axis=1)
        urgent = (n_opp > n_own) | close
        patient = (n_own > n_opp) & ~close
        return urgent, patient

    def _draw(self, v: View, rows):
        p = self.params
        take = take_upcard(v, rows, self.rules)
        if p.take_gain < 100:
            up = v.top[rows]
            upbit = CARD_BITS[up]
            hand = v.hand[rows]
            h11 = hand | upbit
            allowed = h11 & ~upbit if self.rules.forbid_discard_of_taken_card else h11
            maybe = np.flatnonzero(~take & (VALUE[up] < 10))
            if maybe.size:
                before = M.min_deadwood_masks(hand[maybe])
                r, c = _expand(allowed[maybe])
                after = np.full(maybe.size, 10**6, dtype=np.int64)
                np.minimum.at(after, r, M.min_deadwood_masks(h11[maybe][r] & ~CARD_BITS[c]))
                take[maybe] = before - after >= p.take_gain
        return np.where(take, TAKE_DISCARD, np.where(v.first_upcard[rows], PASS, DRAW_STOCK))

    def _discard(self, obs, v: View, rows, mask):
        p = self.params
        m = rows.size
        out = np.zeros(m, dtype=np.int64)
        hand = v.hand[rows]
        knocks = v.legal_knocks[rows]
        can_knock = knocks != 0
        knock_card = np.full(m, -1, dtype=np.int64)
        k = np.flatnonzero(can_knock)
        hold = np.zeros(m, dtype=bool)
        if k.size:
            r, c = _expand(knocks[k])
            dw = M.min_deadwood_masks(hand[k][r] & ~CARD_BITS[c])
            knock_card[k] = _best_per_row(r, c, _knock_key(dw, c), k.size)
            if p.hold_deadwood > 0:
                best_dw = np.full(k.size, 10**6, dtype=np.int64)
                np.minimum.at(best_dw, r, dw)
                _, patient = self.stance(obs[rows[k]])
                hold[k] = (patient & (best_dw > 0) & (best_dw <= p.hold_deadwood)
                           & (v.stock[rows[k]] >= p.hold_stock))
        go = can_knock & ~hold
        out[go] = KNOCK + knock_card[go]
        plain = np.flatnonzero(~go)
        if plain.size:
            g = rows[plain]
            out[plain] = DISCARD + self._choose_discard(v, g)
        big = mask[rows, BIG_GIN]
        out[big] = BIG_GIN
        return out

    def _choose_discard(self, v: View, g):
        p = self.params
        hand = v.hand[g]
        r, c = _expand(v.legal_discards[g])
        kept = hand[r] & ~CARD_BITS[c]
        dw = M.min_deadwood_masks(kept).astype(np.float64)
        unseen = ~(hand | v.pile[g] | v.opp_known[g])
        outs = _pc(meldable_with(kept) & unseen[r])
        known = v.opp_known[g][r]
        # danger: cards the opponent took that this discard would meld with
        same_rank = known & _RANK_ROWS[RANK[c]]
        suit_shift = U64(13) * SUIT[c].astype(np.uint64)
        suit_k = ((known >> suit_shift) & _SUIT_BITS).astype(np.int64)
        rk = RANK[c]
        near1 = ((suit_k >> np.maximum(rk - 1, 0)) & 1) * (rk >= 1) + ((suit_k >> (rk + 1)) & 1)
        near2 = ((suit_k >> np.maximum(rk - 2, 0)) & 1) * (rk >= 2) + ((suit_k >> (rk + 2)) & 1)
        danger = _pc(same_rank) + near1 + 0.5 * near2
        od = v.opp_discarded[g][r]
        suit_d = ((od >> suit_shift) & _SUIT_BITS).astype(np.int64)
        safe = ((od & _RANK_ROWS[RANK[c]]) != 0).astype(np.float64)
        safe += 0.5 * ((((suit_d >> np.maximum(rk - 1, 0)) & 1) * (rk >= 1) + ((suit_d >> (rk + 1)) & 1)) > 0)
        key = dw - p.outs_weight * outs + p.danger_weight * danger - p.safety_weight * safe - 0.01 * VALUE[c]
        return _best_per_row(r, c, key, g.size)
