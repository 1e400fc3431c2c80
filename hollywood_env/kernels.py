"""Compiled single-game kernels: one game's simple moves and legal mask in one call.

With one game (the AEC env, a planner stepping one position) numpy's per-call overhead is most
of a step's cost, and Python-int code is what :func:`hollywood_env.core.step` runs there by
default. With `numba <https://numba.pydata.org>`_ (a dependency of the package) the functions
of this module are compiled to machine code on first use and cached on disk (the first process
prints :data:`COMPILE_NOTICE` on stderr as it starts compiling; later ones load the cache), and
the core calls them instead:

=========================  =================================================================
function                   what it computes, for one game
=========================  =================================================================
:func:`min_deadwood`       ``melds.min_deadwood_one``: the minimum deadwood of a hand mask
:func:`min_deadwood_loose` the same, and the cards some minimum arrangement leaves loose
:func:`min_deadwood_many`  ``melds.min_deadwood_batched``: the same for an array of hands (the
                           one kernel here that serves batches: bots and planners call it on
                           thousands of candidate hands per step)
:func:`knock_discards`     ``melds.knock_discards_one``: the discards that leave a knock
:func:`is_big_gin`         ``melds.is_big_gin_one``: 11 cards all melded
:func:`deal_deck`          ``cards.deal_decks``: the card order of a seeded deal
:func:`deal_packed`        ``core._deal`` of a packed one-game State: the deal laid out
:func:`step_packed`        :func:`step_simple` on a packed one-game State (below)
:func:`step_fields`        the same on its fields (:func:`packed_fields`), for compiled callers
:func:`step_simple`        a move that cannot end a hand (take the discard, pass, draw, a
                           discard short of the wall) and the legal mask after it, in place
                           on the arrays of a one-game ``State``; returns False, with nothing
                           changed, for every other move (the batched path takes those)
=========================  =================================================================

:func:`jit` compiles a function the same way, for the modules that own a compiled kernel of
their own (the observation's ``encode_one``).

A packed one-game State (:func:`hollywood_env.core.init` makes every one-game State packed when
the kernels are available) has the arrays of :data:`PACKED_FIELDS` as views into one ``uint8``
buffer, followed by four ``int64`` rule slots (:data:`PACKED_RULES`): compiled code then takes
the whole game as one argument, which saves numba the unboxing of some twenty arrays per call.
:func:`packed_fields` gives the arrays back inside compiled code, as the fields of the buffer seen
as one record of :data:`PACKED_DTYPE`: numba reads those at fixed offsets, where twenty views
made with ``view`` and ``reshape`` would cost more than the move itself.

Each is the same rule written a second time, for speed. The readable definitions stay where
they are (:mod:`hollywood_env.melds`, the batched :func:`hollywood_env.core.step`,
:func:`hollywood_env.observation.encode`), and the tests compare the compiled code with them
over random matches of every preset, field by field and bit for bit.

numba caches each compiled function on disk (``__pycache__/*.nbi``, ``*.nbc``) and recompiles it
when its own source file changes, but not when a function it calls from another module does:
the compiled code of :mod:`hollywood_env.observation` holds copies of :func:`packed_fields`.
After changing the packed layout or a kernel that another module's compiled code calls, delete
those cache files (a fresh install has none).

``AVAILABLE`` is False when numba is missing or the environment variable
``HOLLYWOOD_GIN_NUMBA=0`` is set; then nothing here is called and the Python-int and numpy
paths run instead (the same results, slower). Hand masks are 52-bit ints; inside the kernels
they are ``int64`` (the bits of the ``uint64`` State arrays, never negative).
"""

from __future__ import annotations

import os
import sys
from collections import namedtuple
from collections.abc import Callable

import numpy as np

from .actions import BIG_GIN, DRAW_STOCK, KNOCK, NUM_ACTIONS, PASS, PHASE_DISCARD, PHASE_DRAW, PHASE_FIRST_UPCARD, TAKE_DISCARD
from .cards import CARD_VALUES, NUM_CARDS, RANK_VALUES, STOCK_START, UPCARD_POS
from .history import EVENT_DECLINE, EVENT_DISCARD, EVENT_TAKE, LOG_CAPACITY, NUM_EVENT_KINDS
from .suit_tables import RUN_BITS, RUN_VALUE, SUIT_VALUE

__all__ = ["AVAILABLE", "jit", "min_deadwood", "min_deadwood_loose", "min_deadwood_many", "knock_discards",
           "is_big_gin", "deal_deck", "step_simple", "step_packed", "step_fields", "deal_packed", "packed_fields",
           "PACKED_FIELDS", "PACKED_RULES", "PACKED_DTYPE", "packed_layout"]


#: printed on stderr when this process is about to compile a kernel that numba's disk cache lacks
COMPILE_NOTICE = "hollywood_env: compiling the engine's kernels (about 20 s, once; cached afterwards)"
#: the same without a writable cache folder: every process compiles again
COMPILE_NOTICE_UNCACHED = ("hollywood_env: compiling the engine's kernels (about 20 s; numba found no writable folder "
                           "to cache them in: set NUMBA_CACHE_DIR to one)")
#: set in the environment once the notice is printed, so worker processes do not repeat it
_NOTICE_GIVEN = "HOLLYWOOD_GIN_COMPILE_NOTICE_GIVEN"
_COMPILED: set = set()  # the Python functions compiled by jit(), to tell our compiles from others'


def _numba_njit():
    """numba's ``njit(cache=True)`` (``cache=False`` when no folder for the cache is writable:
    numba tries ``NUMBA_CACHE_DIR``, then the package's ``__pycache__``, then the user's cache
    folder), or None without numba or with ``HOLLYWOOD_GIN_NUMBA=0``."""
    if os.environ.get("HOLLYWOOD_GIN_NUMBA", "1").strip() == "0":
        return None
    try:
        import numba
    except ImportError:
        return None
    try:  # finds a writable cache folder for this file (without compiling), or raises
        numba.njit(cache=True)(_cache_probe)
        cache = True
    except RuntimeError:
        cache = False
    _listen_for_compiles(cache)
    njit = numba.njit(cache=cache, nogil=True)

    def compile_lazily(f):
        _COMPILED.add(f)
        return njit(f)
    return compile_lazily


def _cache_probe():  # pragma: no cover - never called, only located
    return 0


def _listen_for_compiles(cache: bool) -> None:
    """Print :data:`COMPILE_NOTICE` once (per process tree) when numba starts compiling one of
    our functions: numba's ``numba:compile`` event fires on a real compile, never on a load
    from the disk cache, so a warm cache prints nothing."""
    from numba.core import event

    class Notice(event.Listener):
        def on_start(self, ev):
            dispatcher = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
            if getattr(dispatcher, "py_func", None) not in _COMPILED or os.environ.get(_NOTICE_GIVEN):
                return
            os.environ[_NOTICE_GIVEN] = "1"
            print(COMPILE_NOTICE if cache else COMPILE_NOTICE_UNCACHED, file=sys.stderr, flush=True)

        def on_end(self, ev):
            pass

    event.register("numba:compile", Notice())


_njit = _numba_njit()
#: whether the kernels are compiled (numba installed and not switched off)
AVAILABLE = _njit is not None
if _njit is None:
    def _njit(f):  # the plain Python functions: correct, only slow (never used by the core then)
        return f


def jit(f: Callable) -> Callable:
    """Compile ``f`` as this module's kernels are (numba ``njit``, cached on disk), or return it
    unchanged without numba; callers check :data:`AVAILABLE` before choosing it over their
    numpy code."""
    return _njit(f)


# tables, frozen into the compiled code as constants
_SV = SUIT_VALUE.astype(np.int64)
_RV = RUN_VALUE.astype(np.int64)
_RB = RUN_BITS.astype(np.int64)
_RANK_V = RANK_VALUES.astype(np.int64)
_CARD_V = CARD_VALUES.astype(np.int64)
_SUIT = 0x1FFF


@_njit
def _set_choice(p0, p1, p2, p3, low, value, four, c):
    """Choice ``c`` for the rank ``low`` (held 3+ times): the cards it takes out of suits 0..3
    as a set, and their value. 0: no set; 1: all the suits holding it; 2..5 (held 4 times): the
    three suits other than suit ``c - 2``."""
    if c == 0:
        return 0, 0, 0, 0, 0
    if c == 1:
        if four:
            return low, low, low, low, 4 * value
        return p0 & low, p1 & low, p2 & low, p3 & low, 3 * value
    s = c - 2
    return (0 if s == 0 else low), (0 if s == 1 else low), (0 if s == 2 else low), (0 if s == 3 else low), 3 * value


@_njit
def _set_slots(three, four):
    """The ranks held 3+ times (``three``, at most three of them), lowest first, as three slots:
    ``(low0, low1, low2, n0, n1, n2, value0, value1, value2)``, each slot's rank bit, number of set
    choices (2, or 6 for a rank held 4 times, :func:`_set_choice`) and rank value; a missing rank
    has one choice (no set)."""
    lows = [0, 0, 0]
    counts = [1, 1, 1]
    values = [0, 0, 0]
    n = 0
    rest = three
    while rest != 0 and n < 3:
        low = rest & -rest
        lows[n] = low
        r = 0
        while (low >> r) != 1:
            r += 1
        values[n] = _RANK_V[r]
        counts[n] = 6 if four & low else 2
        n += 1
        rest ^= low
    return lows[0], lows[1], lows[2], counts[0], counts[1], counts[2], values[0], values[1], values[2]


@_njit
def _set_combination(p0, p1, p2, p3, four, slots, k):
    """Combination ``k`` (``0 <= k < n0 * n1 * n2``) of the slots' set choices: the cards it takes
    out of suits 0..3 as sets, and their value."""
    l0, l1, l2, n0, n1, n2, v0, v1, v2 = slots
    c0 = k % n0
    k //= n0
    a0, a1, a2, a3, av = _set_choice(p0, p1, p2, p3, l0, v0, (four & l0) != 0, c0)
    b0, b1, b2, b3, bv = _set_choice(p0, p1, p2, p3, l1, v1, (four & l1) != 0, k % n1)
    d0, d1, d2, d3, dv = _set_choice(p0, p1, p2, p3, l2, v2, (four & l2) != 0, k // n1)
    return a0 | b0 | d0, a1 | b1 | d1, a2 | b2 | d2, a3 | b3 | d3, av + bv + dv


@_njit
def min_deadwood(mask: int) -> int:
    """The minimum deadwood of the hand ``mask`` (up to 11 cards): every combination of set
    choices for the ranks held 3+ times (at most three such ranks), the rest of each suit melded
    in runs as far as it goes."""
    p0, p1, p2, p3 = mask & _SUIT, (mask >> 13) & _SUIT, (mask >> 26) & _SUIT, (mask >> 39) & _SUIT
    total = _SV[p0] + _SV[p1] + _SV[p2] + _SV[p3]
    three = (p0 & p1 & (p2 | p3)) | (p2 & p3 & (p0 | p1))
    if three == 0:
        return total - _RV[p0] - _RV[p1] - _RV[p2] - _RV[p3]
    four = p0 & p1 & p2 & p3
    slots = _set_slots(three, four)
    best = total
    for k in range(slots[3] * slots[4] * slots[5]):
        r0, r1, r2, r3, v = _set_combination(p0, p1, p2, p3, four, slots, k)
        dw = total - v - _RV[p0 ^ r0] - _RV[p1 ^ r1] - _RV[p2 ^ r2] - _RV[p3 ^ r3]
        if dw < best:
            best = dw
    return best


@_njit
def min_deadwood_loose(mask: int) -> tuple[int, int]:
    """``(deadwood, loose)``: the minimum deadwood of the hand ``mask`` (as :func:`min_deadwood`)
    and the cards left as deadwood by at least one arrangement that reaches it (the union over
    ``melds.min_arrangement_rows``' arrangements)."""
    p0, p1, p2, p3 = mask & _SUIT, (mask >> 13) & _SUIT, (mask >> 26) & _SUIT, (mask >> 39) & _SUIT
    total = _SV[p0] + _SV[p1] + _SV[p2] + _SV[p3]
    four = p0 & p1 & p2 & p3
    slots = _set_slots((p0 & p1 & (p2 | p3)) | (p2 & p3 & (p0 | p1)), four)
    best = total + 1
    loose = 0
    for k in range(slots[3] * slots[4] * slots[5]):
        r0, r1, r2, r3, v = _set_combination(p0, p1, p2, p3, four, slots, k)
        q0, q1, q2, q3 = p0 ^ r0, p1 ^ r1, p2 ^ r2, p3 ^ r3
        dw = total - v - _RV[q0] - _RV[q1] - _RV[q2] - _RV[q3]
        if dw <= best:
            left = (q0 & ~_RB[q0]) | ((q1 & ~_RB[q1]) << 13) | ((q2 & ~_RB[q2]) << 26) | ((q3 & ~_RB[q3]) << 39)
            loose = left if dw < best else loose | left
            best = dw
    return best, loose


@_njit
def min_deadwood_many(masks: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = min_deadwood(masks[i])`` for every hand of the ``int64`` array ``masks``."""
    for i in range(masks.shape[0]):
        out[i] = min_deadwood(masks[i])


@_njit
def _loose(mask):
    """``(loose cards, their value)``: the cards in no stretch of 3+ ranks of their suit and of
    no rank held 3+ times (they are deadwood in every arrangement)."""
    total_loose = 0
    value = 0
    p0, p1, p2, p3 = mask & _SUIT, (mask >> 13) & _SUIT, (mask >> 26) & _SUIT, (mask >> 39) & _SUIT
    three = (p0 & p1 & (p2 | p3)) | (p2 & p3 & (p0 | p1))
    for s in range(4):
        p = (mask >> (13 * s)) & _SUIT
        loose = p & ~(_RB[p] | three)
        total_loose |= loose << (13 * s)
        value += _SV[loose]
    return total_loose, value


@_njit
def knock_discards(mask: int, limit: int, allowed: int) -> int:
    """The cards of ``allowed`` (held in ``mask``) whose discard leaves deadwood <= ``limit``."""
    loose, loose_value = _loose(mask)
    if loose_value > limit + 10:  # discarding a card lowers this lower bound by at most 10
        return 0
    out = 0
    rest = allowed & mask
    for c in range(NUM_CARDS):
        bit = 1 << c
        if rest & bit == 0:
            continue
        bound = loose_value - _CARD_V[c] if loose & bit else loose_value
        if bound <= limit and min_deadwood(mask ^ bit) <= limit:
            out |= bit
    return out


@_njit
def is_big_gin(mask: int) -> bool:
    """True when all the cards of ``mask`` (11 for a big gin) fit in melds."""
    loose, _ = _loose(mask)
    return loose == 0 and min_deadwood(mask) == 0


@_njit
def _legal_mask(row, phase, hand, taken, knock_limit, forbid_taken, big_gin):
    """The legal mask of a running game, written into ``row`` (108 bools)."""
    row[:] = False
    if phase == PHASE_DRAW:
        row[DRAW_STOCK] = True
        row[TAKE_DISCARD] = True
    elif phase == PHASE_FIRST_UPCARD:
        row[TAKE_DISCARD] = True
        row[PASS] = True
    elif phase == PHASE_DISCARD:
        allowed = hand
        if forbid_taken and taken >= 0:
            allowed &= ~(1 << taken)
        for c in range(NUM_CARDS):
            if (allowed >> c) & 1:
                row[c] = True
        knock = knock_discards(hand, knock_limit, allowed)
        if knock != 0:
            for c in range(NUM_CARDS):
                if (knock >> c) & 1:
                    row[KNOCK + c] = True
        if big_gin and is_big_gin(hand):
            row[BIG_GIN] = True


@_njit
def _splitmix64(x):
    """``cards.splitmix64`` of one uint64 (wrapping arithmetic)."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@_njit
def deal_deck(match_seed: np.uint64, hand_number: int, out: np.ndarray) -> None:
    """Write the card order of deal ``hand_number`` of the match ``match_seed`` into ``out``
    (52 int8): ``cards.deal_decks`` for one deal, the same sort keys and the same stable sort."""
    s = np.uint64(match_seed)
    base = _splitmix64(_splitmix64(s) ^ (np.uint64(hand_number) * np.uint64(0xD6E8FEB86659FD93) + np.uint64(1)))
    keys = np.empty(NUM_CARDS, dtype=np.uint64)
    for i in range(NUM_CARDS):
        keys[i] = _splitmix64(base ^ (np.uint64(i) * np.uint64(0x9E3779B97F4A7C15)))
    order = np.argsort(keys, kind="mergesort")
    for i in range(NUM_CARDS):
        out[i] = order[i]


@_njit
def _log(log, log_size, actor, kind, card):
    """Append an event to the log of game 0 (a full log keeps its first events; no card, no event)."""
    pos = log_size[0]
    if pos < LOG_CAPACITY and card >= 0:
        log[0, pos] = (actor * NUM_EVENT_KINDS + kind) * NUM_CARDS + card
        log_size[0] = pos + 1


@_njit
def _draw(hands, deck, stock_pos, taken_card, phase, p):
    """Player ``p`` of game 0 draws the top card of the stock."""
    pos = stock_pos[0]
    hands[0, p] = np.uint64(np.int64(hands[0, p]) | (np.int64(1) << np.int64(deck[0, pos])))
    stock_pos[0] = pos + 1
    taken_card[0] = -1
    phase[0] = PHASE_DISCARD


@_njit
def step_simple(a: int, hands: np.ndarray, known: np.ndarray, discarded: np.ndarray, pile: np.ndarray,
                pile_size: np.ndarray, deck: np.ndarray, stock_pos: np.ndarray, taken_card: np.ndarray,
                current_player: np.ndarray, phase: np.ndarray, dealer: np.ndarray, knock_limit: np.ndarray,
                log: np.ndarray, log_size: np.ndarray, step_count: np.ndarray, terminated: np.ndarray,
                truncated: np.ndarray, legal_action_mask: np.ndarray, wall_stock_size: int, max_steps: int,
                forbid_taken: bool, big_gin: bool) -> bool:
    """Apply action ``a`` to the only game of a one-game State if it is a simple move (see the
    module docstring) and write the legal mask after it; return False, with nothing changed,
    otherwise (a knock, a big gin, a discard that ends the hand in a wall, an illegal action, a
    finished game).

    The arrays are the State's fields themselves (batch size 1); the rules' fields follow, and
    ``max_steps`` is -1 for no limit. Events and rewards are the caller's.
    """
    if terminated[0] or truncated[0] or a < 0 or a >= legal_action_mask.shape[1] or not legal_action_mask[0, a]:
        return False
    if (KNOCK <= a < DRAW_STOCK) or a == BIG_GIN:
        return False
    if a < KNOCK and NUM_CARDS - stock_pos[0] == wall_stock_size:
        return False  # this discard ends the hand in a wall
    p = np.int64(current_player[0])
    if a < KNOCK:  # a plain discard
        _log(log, log_size, p, EVENT_DISCARD, a)
        bit = np.int64(1) << a
        hands[0, p] = np.uint64(np.int64(hands[0, p]) ^ bit)
        known[0, p] = np.uint64(np.int64(known[0, p]) & ~bit)
        discarded[0, p] = np.uint64(np.int64(discarded[0, p]) | bit)
        size = pile_size[0]
        pile[0, size] = a
        pile_size[0] = size + 1
        taken_card[0] = -1
        current_player[0] = 1 - p
        phase[0] = PHASE_DRAW
    elif a == TAKE_DISCARD:
        size = pile_size[0] - 1
        top = np.int64(pile[0, size])
        _log(log, log_size, p, EVENT_TAKE, top)
        pile_size[0] = size
        bit = np.int64(1) << top
        hands[0, p] = np.uint64(np.int64(hands[0, p]) | bit)
        known[0, p] = np.uint64(np.int64(known[0, p]) | bit)
        taken_card[0] = top
        phase[0] = PHASE_DISCARD
    else:  # PASS or DRAW_STOCK: the top card is declined
        top = np.int64(pile[0, pile_size[0] - 1]) if pile_size[0] > 0 else -1
        _log(log, log_size, p, EVENT_DECLINE, top)
        if a == DRAW_STOCK:
            _draw(hands, deck, stock_pos, taken_card, phase, p)
        else:
            d = np.int64(dealer[0])
            if p != d:
                current_player[0] = d
            else:  # the dealer passed too: the non-dealer draws from the stock
                current_player[0] = 1 - d
                _draw(hands, deck, stock_pos, taken_card, phase, 1 - d)
    step_count[0] += 1
    row = legal_action_mask[0]
    if max_steps >= 0 and step_count[0] >= max_steps:
        truncated[0] = True  # a simple move never ends the match, so it is not terminated
        row[:] = False
        return True
    cur = np.int64(current_player[0])
    _legal_mask(row, np.int64(phase[0]), np.int64(hands[0, cur]), np.int64(taken_card[0]), np.int64(knock_limit[0]),
                forbid_taken, big_gin)
    return True


# --- the packed one-game State -----------------------------------------------------------------
#: the State fields of a packed one-game State, in buffer order: (name, dtype, shape)
PACKED_FIELDS = (
    ("hands", np.uint64, (1, 2)), ("known", np.uint64, (1, 2)), ("discarded", np.uint64, (1, 2)),
    ("match_seed", np.uint64, (1,)),
    ("pile_size", np.int64, (1,)), ("stock_pos", np.int64, (1,)), ("taken_card", np.int64, (1,)),
    ("knock_limit", np.int64, (1,)), ("step_count", np.int64, (1,)), ("multiplier", np.int64, (1,)),
    ("hand_number", np.int64, (1,)), ("log", np.int16, (1, LOG_CAPACITY)), ("log_size", np.int16, (1,)),
    ("pile", np.int8, (1, NUM_CARDS)), ("deck", np.int8, (1, NUM_CARDS)), ("current_player", np.int8, (1,)),
    ("phase", np.int8, (1,)), ("dealer", np.int8, (1,)), ("terminated", np.bool_, (1,)),
    ("truncated", np.bool_, (1,)), ("legal_action_mask", np.bool_, (1, NUM_ACTIONS)),
)
#: the rule slots after the fields (int64): the fields of ``Rules`` of these names, and the
#: State's ``max_steps`` (-1: none)
PACKED_RULES = ("wall_stock_size", "max_steps", "forbid_discard_of_taken_card", "big_gin", "straight_gin", "oklahoma",
                "knock_limit", "oklahoma_spade_doubles")
(_WALL_STOCK_SIZE, _MAX_STEPS, _FORBID_TAKEN, _BIG_GIN, _STRAIGHT_GIN, _OKLAHOMA, _KNOCK_LIMIT,
 _SPADE_DOUBLES) = range(len(PACKED_RULES))


def packed_layout() -> tuple[dict[str, tuple[int, int]], int, int]:
    """``({field: (start byte, end byte)}, start of the rule slots, buffer size)``; every field
    starts on an 8-byte boundary."""
    offsets, pos = {}, 0
    for name, dtype, shape in PACKED_FIELDS:
        size = int(np.dtype(dtype).itemsize * np.prod(shape))
        offsets[name] = (pos, pos + size)
        pos += -(-size // 8) * 8
    return offsets, pos, pos + 8 * len(PACKED_RULES)


def _packed_dtype() -> np.dtype:
    offsets, rules_at, size = packed_layout()
    names = [name for name, _, _ in PACKED_FIELDS]
    formats = [(np.uint8 if dtype is np.bool_ else dtype, shape) for _, dtype, shape in PACKED_FIELDS]
    return np.dtype({"names": names + ["rules"], "formats": formats + [(np.int64, (len(PACKED_RULES),))],
                     "offsets": [offsets[name][0] for name in names] + [rules_at], "itemsize": size})


#: the packed buffer as one record, ``buf.view(PACKED_DTYPE)`` (shape ``(1,)``): the fields of
#: :data:`PACKED_FIELDS` and ``rules`` (the rule slots) at their offsets, which numba reads as
#: arrays with no work per call (the bool fields are ``uint8`` there: numba has no nested bool
#: arrays). The compiled code takes the ``uint8`` buffer, which numba types faster, and views it so.
PACKED_DTYPE = _packed_dtype()

#: the views of a packed buffer, by State field name
PackedFields = namedtuple("PackedFields", [name for name, _, _ in PACKED_FIELDS])


@_njit
def packed_fields(buf: np.ndarray) -> PackedFields:
    """The State arrays a packed buffer holds, as views (a :data:`PackedFields` namedtuple)."""
    r = buf.view(PACKED_DTYPE)[0]
    return PackedFields(r.hands, r.known, r.discarded, r.match_seed, r.pile_size, r.stock_pos, r.taken_card, r.knock_limit,
                        r.step_count, r.multiplier, r.hand_number, r.log, r.log_size, r.pile, r.deck,
                        r.current_player, r.phase, r.dealer, r.terminated, r.truncated, r.legal_action_mask)


@_njit
def step_fields(a: int, f: PackedFields, buf: np.ndarray) -> bool:
    """:func:`step_simple` on the fields ``f`` of the packed one-game State ``buf``
    (``packed_fields(buf)``, for compiled callers that read the fields themselves)."""
    rules = buf.view(PACKED_DTYPE)[0].rules
    return step_simple(a, f.hands, f.known, f.discarded, f.pile, f.pile_size, f.deck, f.stock_pos, f.taken_card,
                       f.current_player, f.phase, f.dealer, f.knock_limit, f.log, f.log_size, f.step_count,
                       f.terminated, f.truncated, f.legal_action_mask, rules[_WALL_STOCK_SIZE], rules[_MAX_STEPS],
                       rules[_FORBID_TAKEN] != 0, rules[_BIG_GIN] != 0)


@_njit
def step_packed(a: int, buf: np.ndarray) -> bool:
    """:func:`step_simple` on a packed one-game State (its buffer and rule slots)."""
    return step_fields(a, packed_fields(buf), buf)


@_njit
def deal_packed(buf: np.ndarray) -> None:
    """``core._deal`` of the only game of a packed one-game State (its dealer and hand number
    set): the card order of deal ``hand_number`` of the match ``match_seed`` (:func:`deal_deck`)
    laid out as ``core._lay_out`` does: 10 cards to the non-dealer, 10 to the dealer, the
    upcard, the stock, the knock limit and the multiplier the upcard sets."""
    f = packed_fields(buf)
    rules = buf.view(PACKED_DTYPE)[0].rules
    deck = f.deck[0]
    deal_deck(f.match_seed[0], f.hand_number[0], deck)
    d = np.int64(f.dealer[0])
    non_dealer, dealer = np.int64(0), np.int64(0)
    for i in range(10):
        non_dealer |= np.int64(1) << np.int64(deck[i])
        dealer |= np.int64(1) << np.int64(deck[10 + i])
    f.hands[0, 1 - d] = np.uint64(non_dealer)
    f.hands[0, d] = np.uint64(dealer)
    upcard = np.int64(deck[UPCARD_POS])
    f.pile[0, 0] = upcard
    f.pile_size[0] = 1
    f.stock_pos[0] = STOCK_START
    f.known[0, :] = 0
    f.discarded[0, :] = 0
    f.log[0, :] = -1
    f.log_size[0] = 0
    f.phase[0] = PHASE_FIRST_UPCARD
    f.current_player[0] = 1 - d
    f.taken_card[0] = -1
    if rules[_STRAIGHT_GIN]:
        limit = 0
    elif rules[_OKLAHOMA]:
        value = _CARD_V[upcard]
        limit = 0 if value == 1 else value
    else:
        limit = rules[_KNOCK_LIMIT]
    f.knock_limit[0] = limit
    f.multiplier[0] = 2 if rules[_OKLAHOMA] and rules[_SPADE_DOUBLES] and upcard // 13 == 3 else 1
