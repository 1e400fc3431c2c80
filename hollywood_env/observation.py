"""The observation of the player to act (or any viewer), batched, from public information only.

A flat ``float32`` vector; ``C`` = ``rules.columns``:

=========================  ========  =============================================================
slice                      size      content
=========================  ========  =============================================================
``HAND``                   52        1 for each card in the viewer's hand
``PILE_TOP``               52        one-hot top card of the discard pile (all 0 if empty)
``PILE``                   52        cards in the discard pile, valued by depth: ``(i + 1) / n``
                                     for the ``i``-th card from the bottom of a pile of ``n``
                                     (the top card is 1.0): membership and order in one plane
``OPP_KNOWN``              52        cards the opponent took from the pile and still holds
``OPP_DISCARDED``          52        cards the opponent discarded this hand
``OWN_DISCARDED``          52        cards the viewer discarded this hand
``STOCK``                  1         cards left in the stock / 31
``PHASE``                  3         one-hot: first upcard, draw, discard
``IS_DEALER``              1         1 if the viewer dealt this hand
``KNOCK_LIMIT``            1         knock limit in force / 10 (0: gin only)
``DOUBLED``                1         1 if this hand's score is doubled (Oklahoma spade)
``HAND_NUMBER``            1         deals so far in this match / 100 (capped at 1)
``SHEET``                  9 * C     per column k: own points / target, opponent's / target,
                                     own opened, opponent opened, game ended, won by viewer,
                                     won by opponent, own hands credited / 10, opponent's / 10
=========================  ========  =============================================================

Nothing here depends on the opponent's unseen cards or the order of the stock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import kernels
from .actions import NUM_ACTIONS, PHASE_DISCARD, PHASE_DRAW, PHASE_FIRST_UPCARD
from .cards import CARD_BITS, NUM_CARDS
from .rules import Rules

if TYPE_CHECKING:  # annotations only: the core does not depend on this module
    from .core import Games, State

#: the table of the module docstring (the env modules include it in their documentation)
OBSERVATION_TABLE = __doc__[__doc__.index("=" * 25):__doc__.rindex("=" * 61) + 61] if __doc__ else ""

HAND = slice(0, 52)
PILE_TOP = slice(52, 104)
PILE = slice(104, 156)
OPP_KNOWN = slice(156, 208)
OPP_DISCARDED = slice(208, 260)
OWN_DISCARDED = slice(260, 312)
STOCK = 312
PHASE = slice(313, 316)
IS_DEALER = 316
KNOCK_LIMIT = 317
DOUBLED = 318
HAND_NUMBER = 319
SHEET_START = 320
SHEET_FEATURES = 9


def observation_size(rules: Rules) -> int:
    return SHEET_START + SHEET_FEATURES * rules.columns


def sheet_slice(rules: Rules) -> slice:
    return slice(SHEET_START, observation_size(rules))


_CARD_BIT_OR_ZERO = np.concatenate([CARD_BITS, np.zeros(1, dtype=np.uint64)])  # index -1 -> 0
#: _DEPTH[n, i] = (i + 1) / n as float32 (the PILE value of the i-th card of a pile of n)
_DEPTH = ((np.arange(NUM_CARDS)[None, :] + 1) / np.maximum(np.arange(NUM_CARDS + 1), 1)[:, None]).astype(np.float32)


#: _PAST_PILE[n, i]: slot i is past the end of a pile of n cards
_PAST_PILE = np.arange(NUM_CARDS)[None, :] >= np.arange(NUM_CARDS + 1)[:, None]

_UNPACK_SHAPE = (6, 64)


def encode_one(state: State, game: int = 0, viewer: int | None = None,
               sheet_cache: SheetCache | None = None) -> np.ndarray:
    """The observation ``(D,)`` of one game seen by ``viewer`` (default: the player to act).
    Equal to ``encode(state, viewer, [game])[0]``, with less overhead for a single game.
    ``sheet_cache``: as for :func:`encode`."""
    b = state.phase.shape[0]
    g = int(game)
    if not -b <= g < b:
        raise IndexError(f"game {game} is out of range for a State of {b} games")
    g %= b  # the compiled code does not check its indices
    me = int(state.current_player[g]) if viewer is None else int(viewer)
    if me not in (0, 1):
        raise ValueError(f"viewer must be 0 or 1 (or None: the player to act), got {viewer!r}")
    out = np.empty(observation_size(state.rules), dtype=np.float32)
    sheet = sheet_features_one(state, g, me) if sheet_cache is None else sheet_cache.features_one(state, g, me)
    if kernels.AVAILABLE:  # the same values, in one compiled call
        sheet = np.asarray(sheet, dtype=np.float32)
        packed = state.packed
        if packed is not None:  # a packed one-game State: the whole game as one argument
            _encode_packed(out, me, sheet, packed)
        else:
            _encode_compiled(out, g, me, sheet, *state.derived("encode", _encode_args))
        return out
    opp = 1 - me
    size = int(state.pile_size[g])
    hands, known, discarded = state.hands[g], state.known[g], state.discarded[g]
    planes = np.array([hands[me], _CARD_BIT_OR_ZERO[state.pile[g, size - 1] if size > 0 else NUM_CARDS], 0,
                       known[opp], discarded[opp], discarded[me]], dtype="<u8")
    bits = np.unpackbits(planes.view(np.uint8), bitorder="little").reshape(_UNPACK_SHAPE)
    out[:STOCK].reshape(6, NUM_CARDS)[...] = bits[:, :NUM_CARDS]  # the six 52-card planes
    if size > 0:
        out[PILE.start + state.pile[g, :size].astype(np.intp)] = _DEPTH[size, :size]
    phase = int(state.phase[g])
    out[STOCK:SHEET_START] = (
        (NUM_CARDS - int(state.stock_pos[g])) / 31.0,
        phase == PHASE_FIRST_UPCARD, phase == PHASE_DRAW, phase == PHASE_DISCARD,
        int(state.dealer[g]) == me, int(state.knock_limit[g]) / 10.0, int(state.multiplier[g]) > 1,
        min(int(state.hand_number[g]), 100) / 100.0,
    )
    out[SHEET_START:] = sheet
    return out


def sheet_features_one(state: State, game: int, viewer: int) -> list[float]:
    """The ``SHEET`` part (``9 * C`` values) of :func:`encode_one`'s observation."""
    sheet, target = state.sheet, state.rules.target
    me, opp = int(viewer), 1 - int(viewer)
    cols, opened, scored = sheet.columns[game].tolist(), sheet.opened[game].tolist(), sheet.hands_scored[game].tolist()
    out = []
    for k, gw in enumerate(sheet.game_winner[game].tolist()):
        out += (cols[me][k] / target, cols[opp][k] / target, opened[me][k], opened[opp][k], gw >= 0, gw == me,
                gw == opp, scored[me][k] / 10.0, scored[opp][k] / 10.0)
    return out


def encode(state: State, viewer: int | np.ndarray | None = None, games: Games | None = None,
           sheet_cache: SheetCache | None = None) -> np.ndarray:
    """Observations ``(n, D)`` of the games ``games`` (default all) seen by ``viewer``
    (``(n,)`` players or one player; default: the player to act). ``sheet_cache``: a
    :class:`SheetCache` kept with this State, which saves recomputing the scoresheet part."""
    b = state.batch_size
    if games is None:
        sel, n = slice(None), b
        cur = state.current_player
        game = np.arange(b)
    else:
        sel = np.asarray(games, dtype=np.int64).reshape(-1)
        n = sel.shape[0]
        cur = state.current_player[sel]
        game = sel
    me = (cur if viewer is None else np.broadcast_to(np.asarray(viewer), (n,))).astype(np.int64)
    rules = state.rules
    d = observation_size(rules)
    # one spare element at the end absorbs the scatter of the pile's unused slots
    buf = np.empty(n * d + 1, dtype=np.float32)
    out = buf[:n * d].reshape(n, d)
    if n == 0:
        return out

    # the six 52-card planes: five bit planes, the PILE plane (index 2) written below; flat
    # indices: 2 g + p is player p of game g, NUM_CARDS g + i slot i of game g's pile
    own, other = 2 * game + me, 2 * game + (1 - me)
    hands, known, discarded = state.hands.reshape(-1), state.known.reshape(-1), state.discarded.reshape(-1)
    size = state.pile_size[sel]
    pile_flat = state.pile.reshape(-1)
    top = pile_flat[NUM_CARDS * game + np.maximum(size - 1, 0)].astype(np.int64)
    top[size <= 0] = NUM_CARDS
    planes = np.empty((n, 6), dtype=np.uint64)
    planes[:, 0] = hands[own]
    planes[:, 1] = _CARD_BIT_OR_ZERO[top]
    planes[:, 2] = 0
    planes[:, 3] = known[other]
    planes[:, 4] = discarded[other]
    planes[:, 5] = discarded[own]
    bits = np.unpackbits(planes.view(np.uint8), bitorder="little").reshape(n, 6, 64)  # one flat unpack
    out[:, :PILE_TOP.start + 5 * NUM_CARDS].reshape(n, 6, NUM_CARDS)[...] = bits[:, :, :NUM_CARDS]

    # PILE: scatter (i + 1) / n to the card at depth i; the slots past the pile go to the spare
    # element at the end of the buffer
    m = int(size.max())
    if m > 0:
        flat = state.pile[sel, :m] + (np.arange(0, n * d, d) + PILE.start)[:, None]
        flat[_PAST_PILE[size, :m]] = n * d
        buf[flat] = _DEPTH[size, :m]

    # the eight scalars (columns STOCK..HAND_NUMBER), built in a small array and copied once
    scalars = np.empty((n, HAND_NUMBER + 1 - STOCK), dtype=np.float32)
    scalars[:, 0] = (NUM_CARDS - state.stock_pos[sel]) / 31.0
    phase = state.phase[sel]
    scalars[:, 1] = phase == PHASE_FIRST_UPCARD
    scalars[:, 2] = phase == PHASE_DRAW
    scalars[:, 3] = phase == PHASE_DISCARD
    scalars[:, IS_DEALER - STOCK] = state.dealer[sel] == me
    scalars[:, KNOCK_LIMIT - STOCK] = state.knock_limit[sel] / 10.0
    scalars[:, DOUBLED - STOCK] = state.multiplier[sel] > 1
    scalars[:, HAND_NUMBER - STOCK] = np.minimum(state.hand_number[sel], 100) / 100.0
    out[:, STOCK:HAND_NUMBER + 1] = scalars

    if sheet_cache is None:
        out[:, SHEET_START:] = sheet_features(state, sel, me)
    else:
        out[:, SHEET_START:] = sheet_cache.features(state, sel, me)
    return out


def sheet_features(state: State, games: Games, viewer: np.ndarray) -> np.ndarray:
    """The ``SHEET`` part ``(n, 9 * C)`` of the observations of ``games`` (indices or a slice)
    seen by ``viewer`` (``(n,)`` players)."""
    sheet, rules = state.sheet, state.rules
    c = rules.columns
    me = np.asarray(viewer, dtype=np.int64)
    n = me.shape[0]
    sh = np.empty((n, c, SHEET_FEATURES), dtype=np.float32)
    cols, opened, scored = sheet.columns[games], sheet.opened[games], sheet.hands_scored[games]
    gw = sheet.game_winner[games]
    swap = (me == 1)[:, None, None]  # the (n, 2, C) sheet arrays, reordered viewer first

    def viewer_first(x):  # -> (n, C, 2): [..., 0] the viewer's, [..., 1] the opponent's
        return np.swapaxes(np.where(swap, x[:, ::-1], x), 1, 2)

    sh[:, :, 0:2] = viewer_first(cols) / rules.target
    sh[:, :, 2:4] = viewer_first(opened)
    sh[:, :, 4] = gw >= 0
    sh[:, :, 5] = gw == me[:, None]
    sh[:, :, 6] = gw == (1 - me)[:, None]
    sh[:, :, 7:9] = viewer_first(scored) / 10.0
    return sh.reshape(n, c * SHEET_FEATURES)


class SheetCache:
    """The ``SHEET`` features of every game of one State for both viewers, kept between steps.

    A scoresheet changes only when a hand is won or a match starts, so most steps need none of
    this recomputed: a game's rows are recomputed when its ``BatchScoresheet.version`` moved
    (every change goes through ``record`` or ``clear``). Pass one to :func:`encode` per State;
    a cache given another State starts over.
    """

    def __init__(self):
        self._sheet = None

    def _follow(self, state: State) -> None:
        """Start over when given another State than last time."""
        if self._sheet is not state.sheet:
            b = state.batch_size
            self._sheet = state.sheet
            self._rows = np.arange(b)
            self._version = np.full(b, -1, dtype=np.int64)
            self._features = np.empty((b, 2, state.rules.columns * SHEET_FEATURES), dtype=np.float32)
            self._one: dict = {}  # (game, viewer) -> (version, features_one list)

    def features_one(self, state: State, game: int, viewer: int) -> np.ndarray:
        """``sheet_features_one(state, game, viewer)`` as a float32 array, from the cache (for
        :func:`encode_one`); read-only: copy it to change it."""
        self._follow(state)
        version = int(state.sheet.version[game])
        hit = self._one.get((game, viewer))
        if hit is None or hit[0] != version:
            values = np.asarray(sheet_features_one(state, game, viewer), dtype=np.float32)
            values.flags.writeable = False
            hit = self._one[game, viewer] = (version, values)
        return hit[1]

    def features(self, state: State, games: Games, viewer: np.ndarray | int) -> np.ndarray:
        """``sheet_features(state, games, viewer)``, from the cache."""
        self._follow(state)
        sheet = state.sheet
        stale = np.flatnonzero(self._version != sheet.version)
        if stale.size:  # both viewers in one call
            both = sheet_features(state, np.concatenate([stale, stale]), np.repeat(np.arange(2), stale.size))
            self._features[stale] = both.reshape(2, stale.size, -1).swapaxes(0, 1)
            self._version[stale] = sheet.version[stale]
        if isinstance(games, slice) and games == slice(None):  # all games: one flat gather
            b = self._features.shape[0]
            return self._features.reshape(2 * b, -1)[2 * self._rows + viewer]
        return self._features[self._rows[games], viewer]


# --- the compiled encode_one ------------------------------------------------------------------
# (these compiled functions hold copies of kernels.packed_fields: see hollywood_env.kernels on
# numba's on-disk cache after a change of the packed layout)
# the slices as start offsets (numba reads int constants, not slices)
_HAND, _PILE_TOP, _PILE, _PHASE = HAND.start, PILE_TOP.start, PILE.start, PHASE.start
_OPP_KNOWN, _OPP_DISCARDED, _OWN_DISCARDED = OPP_KNOWN.start, OPP_DISCARDED.start, OWN_DISCARDED.start


@kernels.jit
def _plane(out, start, cards):
    """Set ``out[start + c] = 1`` for each card ``c`` of the mask ``cards``."""
    for c in range(NUM_CARDS):
        if (cards >> c) & 1:
            out[start + c] = 1.0


@kernels.jit
def _encode_compiled(out, g, me, sheet, hands, known, discarded, pile, pile_size, stock_pos, phase, dealer,
                     knock_limit, multiplier, hand_number):
    """:func:`encode_one` compiled: write the observation of game ``g`` seen by seat ``me`` into
    ``out`` (float32, ``D``); ``sheet`` is its ``SHEET`` part, already computed. The arrays are
    the State's fields themselves."""
    opp = 1 - me
    out[:STOCK] = 0.0
    _plane(out, _HAND, np.int64(hands[g, me]))
    size = pile_size[g]
    if size > 0:
        out[_PILE_TOP + np.int64(pile[g, size - 1])] = 1.0
        for i in range(size):
            out[_PILE + np.int64(pile[g, i])] = np.float32((i + 1) / size)
    _plane(out, _OPP_KNOWN, np.int64(known[g, opp]))
    _plane(out, _OPP_DISCARDED, np.int64(discarded[g, opp]))
    _plane(out, _OWN_DISCARDED, np.int64(discarded[g, me]))
    ph = phase[g]
    out[STOCK] = np.float32((NUM_CARDS - stock_pos[g]) / 31.0)
    out[_PHASE] = 1.0 if ph == PHASE_FIRST_UPCARD else 0.0
    out[_PHASE + 1] = 1.0 if ph == PHASE_DRAW else 0.0
    out[_PHASE + 2] = 1.0 if ph == PHASE_DISCARD else 0.0
    out[IS_DEALER] = 1.0 if dealer[g] == me else 0.0
    out[KNOCK_LIMIT] = np.float32(knock_limit[g] / 10.0)
    out[DOUBLED] = 1.0 if multiplier[g] > 1 else 0.0
    out[HAND_NUMBER] = np.float32(min(hand_number[g], 100) / 100.0)
    out[SHEET_START:] = sheet


def _encode_args(state: State) -> tuple:
    """The State's arrays that :func:`_encode_compiled` reads, in its order."""
    return (state.hands, state.known, state.discarded, state.pile, state.pile_size, state.stock_pos, state.phase,
            state.dealer, state.knock_limit, state.multiplier, state.hand_number)


@kernels.jit
def _encode_fields(out, me, sheet, f):
    """:func:`_encode_compiled` of the fields ``f`` of a packed one-game State (:func:`kernels.packed_fields`)."""
    _encode_compiled(out, 0, me, sheet, f.hands, f.known, f.discarded, f.pile, f.pile_size, f.stock_pos, f.phase,
                     f.dealer, f.knock_limit, f.multiplier, f.hand_number)


@kernels.jit
def _encode_packed(out, me, sheet, buf):
    """:func:`_encode_compiled` of a packed one-game State."""
    _encode_fields(out, me, sheet, kernels.packed_fields(buf))


# --- the observation of the player to act, written ahead (the AEC env) ---------------------------
#: bytes before the observation in a :class:`PackedObserver` buffer: the int8 mask, padded to 8
_MASK_BYTES = -(-NUM_ACTIONS // 8) * 8
#: :func:`step_observe_packed`'s results other than the seat to act
NOT_LEGAL, NOT_SIMPLE, TRUNCATED = -1, -2, -3


@kernels.jit
def _observer_views(buffer):
    """``(observation, mask, sheets)``: the views of a :class:`PackedObserver` buffer (``uint8``:
    the ``int8`` mask in ``_MASK_BYTES`` bytes, then ``float32`` values: the observation, ``D``,
    and the ``SHEET`` part for seat 0 and seat 1, ``9 C`` each; ``C`` follows from the size)."""
    floats = buffer[_MASK_BYTES:].view(np.float32)
    s = (floats.shape[0] - SHEET_START) // 3
    return floats[:SHEET_START + s], buffer[:NUM_ACTIONS].view(np.int8), floats[SHEET_START + s:].reshape((2, s))


@kernels.jit
def _observe_fields(f, out, me):
    """Write the observation of seat ``me`` of a packed one-game State (its fields ``f``), and the
    State's legal mask as ``int8``, into the :class:`PackedObserver` buffer ``out``."""
    obs, mask, sheets = _observer_views(out)
    _encode_fields(obs, me, sheets[me], f)
    row = f.legal_action_mask[0]
    for i in range(NUM_ACTIONS):
        mask[i] = 1 if row[i] else 0


@kernels.jit
def _observe_packed(buf, out, me):
    """:func:`_observe_fields` of the packed one-game State ``buf``."""
    _observe_fields(kernels.packed_fields(buf), out, me)


@kernels.jit
def step_observe_packed(a: int, buf: np.ndarray, out: np.ndarray) -> int:
    """Apply the action ``a`` to a packed one-game State if it is a simple move
    (:func:`hollywood_env.kernels.step_packed`), then write the observation and ``int8`` mask of
    the player to act into the :class:`PackedObserver` buffer ``out``, in one compiled call, and
    return that player's seat. Otherwise nothing is written, and it returns ``NOT_LEGAL`` (an
    action the legal mask forbids, or a finished game: nothing changed), ``NOT_SIMPLE`` (a move
    the batched path takes: nothing changed) or ``TRUNCATED`` (a simple move that reached
    ``max_steps``: the game is truncated). Like ``step_packed`` it leaves the events of a hand's
    end as they are: call it while ``state.hand_ended[0]`` is False (``core.step_one`` clears them)."""
    f = kernels.packed_fields(buf)
    if a < 0 or a >= NUM_ACTIONS or f.terminated[0] or f.truncated[0] or not f.legal_action_mask[0, a]:
        return NOT_LEGAL
    if not kernels.step_fields(a, f, buf):
        return NOT_SIMPLE
    if f.truncated[0]:
        return TRUNCATED
    me = np.int64(f.current_player[0])
    _observe_fields(f, out, me)
    return me


class PackedObserver:
    """The observation (``float32``) and action mask (``int8``) of one seat of a packed one-game
    State (:mod:`hollywood_env.kernels`), written by compiled code into one buffer it owns, with
    the ``SHEET`` part of both seats: what the AEC env hands out for the agent to act, prepared
    at the step that made it the agent to act (:func:`step_observe_packed`: the move and the
    observation in one call). ``observation``, ``mask`` and ``sheets`` are views of ``buffer``
    that the next call overwrites: copy them to keep them. Needs the compiled kernels
    (``kernels.AVAILABLE``); a copy (``copy.deepcopy``, pickle) has a buffer of its own."""

    def __init__(self, rules: Rules):
        floats = observation_size(rules) + 2 * SHEET_FEATURES * rules.columns
        self._use(np.zeros(_MASK_BYTES + 4 * floats, dtype=np.uint8))

    def _use(self, buffer: np.ndarray) -> None:
        self.buffer = buffer
        self.observation, self.mask, self.sheets = getattr(_observer_views, "py_func", _observer_views)(buffer)

    def __getstate__(self) -> dict:
        return {"buffer": self.buffer}

    def __setstate__(self, state: dict) -> None:
        self._use(state["buffer"])

    def set_sheets(self, state: State, sheet_cache: SheetCache) -> None:
        """Take the ``SHEET`` part of both seats of the one-game ``state`` (again after any change
        of its scoresheet: a simple move makes none)."""
        for me in (0, 1):
            self.sheets[me] = sheet_cache.features_one(state, 0, me)

    def observe(self, packed: np.ndarray, viewer: int) -> None:
        """Write the observation of seat ``viewer`` of the packed State ``packed`` (``state.packed``)
        and its legal mask as ``int8``; the ``SHEET`` part is the one :meth:`set_sheets` took."""
        _observe_packed(packed, self.buffer, viewer)
