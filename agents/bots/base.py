"""What the baseline bots share: the :class:`View` decoded from an observation and its mask, the
batched card helpers (melds, OpenSpiel's card order and tie-breaks, the upcard and knock rules
that more than one bot uses), :class:`Bot`, :class:`PhaseBot` and ``random``
(:class:`RandomBot`). The bots themselves and the table of names: :mod:`agents.bots`.

Rows whose mask has no legal action (a finished game) get action 0; callers ignore it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

import numpy as np

from hollywood_env import melds as M
from hollywood_env import observation as O
from hollywood_env.actions import KNOCK, NUM_ACTIONS, PASS, TAKE_DISCARD
from hollywood_env.cards import CARD_BITS, CARD_VALUES, NUM_CARDS, bools_to_masks, masks_to_bools
from hollywood_env.rules import Rules, resolve_rules
from hollywood_env.sampling import SeedLike, as_generator, random_legal_actions

__all__ = ["Bot", "PhaseBot", "RandomBot", "View", "decode", "highest_card", "meldable_with", "melds_with",
           "openspiel_melded", "take_upcard", "best_knock", "bot_params"]

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


_Params = TypeVar("_Params")


def bot_params(params_cls: type[_Params], params: _Params | None, kw: Mapping[str, Any], bot: str) -> _Params:
    """The knobs of a bot: ``params`` (None: ``params_cls()``) with the fields named in ``kw``
    replaced; ValueError, naming the class ``bot``, for a name that is not a field of ``params_cls``."""
    params = params or params_cls()
    if kw:
        names = {f.name for f in fields(params_cls)}
        bad = sorted(set(kw) - names)
        if bad:
            raise ValueError(f"unknown {bot} parameter(s) {bad}; valid: {sorted(names)}")
        params = replace(params, **kw)
    return params


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
