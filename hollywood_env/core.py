"""The batched Hollywood Gin engine: B whole matches at once, as arrays, no loop over the batch.

Usage::

    from hollywood_env import core, Rules
    state = core.init(batch_size=1024, rules=Rules.preset("hollywood"), seed=0)
    while not state.done.all():
        actions = my_policy(state)            # (B,) ints, legal where the game is running
        state = core.step(state, actions)     # in place; returns the same State

Each game runs a whole match: deal, first-upcard ritual, draw, discard or knock, automatic
settlement with optimal lay-offs, the wall, the next dealer by the rules, the next deal, until the
scoresheet says the match is over (``terminated``) or ``max_steps`` decisions were made
(``truncated``). The action table, phases and hand-end kinds are in :mod:`hollywood_env.actions`.

Illegal actions: :func:`step` checks every running game first and raises ``IllegalActionError``
(a ``ValueError``) naming the game, the action and the legal actions, before changing anything,
so no game of the batch is corrupted. Games that are already done ignore their action (any
value); :func:`reset_games` starts new matches in chosen games (auto-reset in the env layers).

Randomness: game ``i`` of ``init(..., seed=s)`` has the slot seed ``cards.splitmix64(s + i)``
(or ``seed`` may be an array of B slot seeds); its ``e``-th match has a match seed derived from
the slot seed and ``e``; every deal of that match is :func:`cards.deal_decks` of the match seed
and the hand number, and the first dealer is :func:`cards.first_dealer` of the match seed. So a
game's cards never depend on the rest of the batch.

Copies and rollouts: :func:`take` gathers games into a new State, in any order and with repeats
(``take(state, np.repeat(g, w))``: ``w`` copies of game ``g``, to roll one position out ``w``
times); :func:`hollywood_env.sampling.random_legal_actions` draws uniformly random legal actions
from ``state.legal_action_mask``, from its bits.

Rewards: ``state.rewards[:, p]`` is the change, this step, of player ``p``'s scoresheet total
(column points plus the bonuses of ended games, summed over the columns) — raw and not zero-sum.
Reward shaping (zero-sum, scaling, modes) belongs to :mod:`hollywood_env.rewards`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import kernels
from . import melds as M
from .actions import (
    BIG_GIN,
    DRAW_STOCK,
    KIND_NONE,
    KIND_WALL,
    KNOCK,
    NUM_ACTIONS,
    PASS,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_FIRST_UPCARD,
    PHASE_GAME_OVER,
    TAKE_DISCARD,
    action_name,
)
from .cards import CARD_BITS, CARD_VALUES, NUM_CARDS, STOCK_START, UPCARD_POS, deal_decks, first_dealer, splitmix64
from .history import EVENT_DECLINE, EVENT_DISCARD, EVENT_TAKE, LOG_CAPACITY, event_code
from .rules import Rules, check_positive_int, resolve_rules
from .scoring import BatchScoresheet, settle_hands

#: games of a State: indices, or a bool mask ``(B,)``
Games = np.ndarray | list | slice | int
#: a seed: an int, or an array of per-game slot seeds (``init``), or None (fresh entropy)
SeedOrSlots = int | np.integer | np.ndarray | None

_CARD_BIT_OR_ZERO = np.concatenate([CARD_BITS, np.zeros(1, dtype=np.uint64)])  # index -1 -> 0


class IllegalActionError(ValueError):
    """An action that is not legal in its game."""


#: who may see a State field (``dataclasses.fields(State)[i].metadata["seen_by"]``)
PUBLIC = "public"  # both players
TO_ACT = "to_act"  # the player to act (it follows from that player's hand)
OWN_ROW = "own_row"  # row p: player p only; hidden from the other player
SHOWN = "shown"  # both rows once a hand ends in a knock or gin; after a wall, row p to player p only
HIDDEN = "hidden"  # neither player: the deal's secrets


def _field(shape: str, dtype: str, seen_by: str, doc: str) -> Any:
    """A State field and its description: ``shape`` in the letters ``B`` (games), ``C``
    (``rules.columns``), ``A`` (``NUM_ACTIONS``) and ``L`` (``LOG_CAPACITY``), the numpy
    ``dtype``, who may see it (:data:`PUBLIC`, :data:`TO_ACT`, :data:`OWN_ROW`, :data:`SHOWN`,
    :data:`HIDDEN`) and what it holds."""
    return dataclasses.field(metadata={"shape": shape, "dtype": dtype, "seen_by": seen_by, "doc": doc})


@dataclass(eq=False)
class State:
    """The state of B matches. All array fields have the batch first.

    Each field's metadata (``dataclasses.fields(State)``) gives its ``shape``, ``dtype``, who
    may see it (``seen_by``) and what it holds (``doc``); the comments below repeat them. Hidden
    from both players (:data:`HIDDEN_FIELDS`): the order of the deck (so of the stock) and the
    seeds it is dealt from; hidden from the opponent: each player's hand, ``hands[:, p]``
    (:data:`OWN_ROW_FIELDS`). The observation encoders (:mod:`hollywood_env.observation`) and
    ``render`` for a player read neither (tests/engine/test_hidden_information.py checks it). The
    scoresheet (``sheet``, a :class:`hollywood_env.scoring.BatchScoresheet`) is public.
    """

    rules: Rules = _field("()", "Rules", PUBLIC, "the rules of every game of the batch")
    max_steps: int | None = _field("()", "int | None", PUBLIC, "decisions after which a match is truncated")
    slot_seed: np.ndarray = _field("(B,)", "uint64", HIDDEN, "the game slot's seed; every match seed derives from it")
    episode: np.ndarray = _field("(B,)", "int64", PUBLIC, "matches started in the slot before this one")
    match_seed: np.ndarray = _field("(B,)", "uint64", HIDDEN, "this match's seed; every deal derives from it")
    hand_number: np.ndarray = _field("(B,)", "int64", PUBLIC, "deals so far in this match")
    deck: np.ndarray = _field("(B, 52)", "int8", HIDDEN,
                              "this hand's card order: 0-9 non-dealer, 10-19 dealer, 20 upcard, 21+ the stock")
    stock_pos: np.ndarray = _field("(B,)", "int64", PUBLIC, "next stock card's index into deck (52 - cards left)")
    hands: np.ndarray = _field("(B, 2)", "uint64", OWN_ROW, "each player's hand, a 52-bit card mask")
    pile: np.ndarray = _field("(B, 52)", "int8", PUBLIC, "the discard pile, bottom first")
    pile_size: np.ndarray = _field("(B,)", "int64", PUBLIC, "cards in the discard pile")
    known: np.ndarray = _field("(B, 2)", "uint64", PUBLIC, "cards each player took from the pile and still holds")
    discarded: np.ndarray = _field("(B, 2)", "uint64", PUBLIC, "cards each player discarded this hand")
    phase: np.ndarray = _field("(B,)", "int8", PUBLIC, "PHASE_* of hollywood_env.actions")
    current_player: np.ndarray = _field("(B,)", "int8", PUBLIC, "the seat to act")
    dealer: np.ndarray = _field("(B,)", "int8", PUBLIC, "the seat that dealt this hand")
    taken_card: np.ndarray = _field("(B,)", "int64", PUBLIC, "the card just taken from the pile (not discardable), -1")
    knock_limit: np.ndarray = _field("(B,)", "int64", PUBLIC, "the most deadwood a knock may leave this hand (0: gin)")
    multiplier: np.ndarray = _field("(B,)", "int64", PUBLIC, "this hand's score multiplier (2: Oklahoma spade)")
    log: np.ndarray = _field("(B, L)", "int16", PUBLIC, "the public events of this hand (hollywood_env.history)")
    log_size: np.ndarray = _field("(B,)", "int16", PUBLIC, "events in log")
    sheet: BatchScoresheet = _field("(B, ...)", "BatchScoresheet", PUBLIC, "the scoresheets")
    step_count: np.ndarray = _field("(B,)", "int64", PUBLIC, "decisions made in this match")
    terminated: np.ndarray = _field("(B,)", "bool", PUBLIC, "the match is over")
    truncated: np.ndarray = _field("(B,)", "bool", PUBLIC, "the match reached max_steps")
    match_winner: np.ndarray = _field("(B,)", "int8", PUBLIC, "the seat that won the match, 2 a draw, -1 none yet")
    rewards: np.ndarray = _field("(B, 2)", "int64", PUBLIC, "this step's change of each seat's scoresheet total")
    legal_action_mask: np.ndarray = _field("(B, A)", "bool", TO_ACT, "the legal actions of the player to act")
    # events of the last step
    hand_ended: np.ndarray = _field("(B,)", "bool", PUBLIC, "a hand ended at the last step")
    hand_kind: np.ndarray = _field("(B,)", "int8", PUBLIC, "how it ended: KIND_* of hollywood_env.actions")
    hand_knocker: np.ndarray = _field("(B,)", "int8", PUBLIC, "the seat that knocked, -1")
    hand_winner: np.ndarray = _field("(B,)", "int8", PUBLIC, "the seat that won the hand, -1")
    hand_points: np.ndarray = _field("(B,)", "int64", PUBLIC, "the points the hand scored")
    knocker_deadwood: np.ndarray = _field("(B,)", "int64", PUBLIC, "the knocker's deadwood as laid down")
    defender_deadwood: np.ndarray = _field("(B,)", "int64", PUBLIC, "the defender's deadwood after lay-offs")
    columns_credited: np.ndarray = _field("(B, C)", "bool", PUBLIC, "the scoresheet columns the hand was credited to")
    games_ended: np.ndarray = _field("(B, C)", "bool", PUBLIC, "the columns whose game the hand ended")
    ended_hands: np.ndarray = _field("(B, 2)", "uint64", SHOWN, "both hands as the last hand ended")
    knocker_sets: np.ndarray = _field("(B,)", "uint64", PUBLIC, "the cards of the knocker's sets, laid down")
    knocker_runs: np.ndarray = _field("(B,)", "uint64", PUBLIC, "the cards of the knocker's runs, laid down")
    defender_sets: np.ndarray = _field("(B,)", "uint64", PUBLIC, "the cards of the defender's sets, laid down")
    defender_runs: np.ndarray = _field("(B,)", "uint64", PUBLIC, "the cards of the defender's runs, laid down")
    laid_off: np.ndarray = _field("(B,)", "uint64", PUBLIC, "the cards the defender laid off")
    ended_hand_dealer: np.ndarray = _field("(B,)", "int8", PUBLIC, "the dealer of the hand that ended")

    def __setattr__(self, name: str, value: object) -> None:
        # rebinding a field to another object drops what derived() keeps (made of this State's
        # arrays); an in-place operator (state.truncated |= cut) rebinds the same object
        d = self.__dict__
        if d.get(name) is not value:
            d.pop("_derived", None)
        object.__setattr__(self, name, value)

    def derived(self, key: str, build: Callable[[State], Any]) -> Any:
        """``build(self)``, computed once and kept until a field of this State is rebound: for
        values made of the State's arrays themselves (not their contents), such as the argument
        tuples of the compiled single-game kernels."""
        cache = self.__dict__.get("_derived")
        if cache is None:
            cache = self.__dict__["_derived"] = {}
        value = cache.get(key)
        if value is None:
            value = cache[key] = build(self)
        return value

    def __getstate__(self) -> dict:
        # a copy (pickle, copy.deepcopy) has arrays of its own: what derived() kept, such as the
        # packed buffer, does not describe them
        return {k: v for k, v in self.__dict__.items() if k != "_derived"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    @property
    def packed(self) -> np.ndarray | None:
        """The buffer that the arrays of a packed one-game State are views into
        (:mod:`hollywood_env.kernels`; compiled code takes the whole game as one argument), or
        None: a State of several games, no numba, or a field rebound since it was packed."""
        cache = self.__dict__.get("_derived")
        return None if cache is None else cache.get("packed")

    @property
    def batch_size(self) -> int:
        return self.phase.shape[0]

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated

    @property
    def stock_size(self) -> np.ndarray:
        return NUM_CARDS - self.stock_pos

    @property
    def pile_top(self) -> np.ndarray:
        """Top card of the discard pile, -1 where empty."""
        idx = np.maximum(self.pile_size - 1, 0)
        top = self.pile[np.arange(self.batch_size), idx].astype(np.int64)
        return np.where(self.pile_size > 0, top, -1)


#: the State fields a player may not read: those neither player may see (``seen_by`` HIDDEN: the
#: deck's order and the seeds it is dealt from) and the hands (``seen_by`` OWN_ROW), of which
#: player ``p`` may read its own row ``[:, p]`` only (:data:`OWN_ROW_FIELDS`). No observation
#: encoder and no rendering for a player reads the rest (tests/engine/test_hidden_information.py)
HIDDEN_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(State)
                                       if f.metadata["seen_by"] in (HIDDEN, OWN_ROW))
OWN_ROW_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(State) if f.metadata["seen_by"] == OWN_ROW)


def _slot_seeds(seed, batch_size: int) -> np.ndarray:
    if np.ndim(seed) == 0:
        base = np.uint64(np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0]) if seed is not None else np.uint64(
            np.random.SeedSequence().generate_state(1, np.uint64)[0])
        with np.errstate(over="ignore"):
            return splitmix64(base + np.arange(batch_size, dtype=np.uint64))
    arr = np.asarray(seed, dtype=np.uint64).reshape(-1)
    if arr.shape[0] != batch_size:
        raise ValueError(f"seed must be an int or an array of {batch_size} slot seeds, got shape {np.shape(seed)}")
    return arr.copy()


def slot_seeds(seed: SeedOrSlots, batch_size: int) -> np.ndarray:
    """The slot seeds ``init`` derives from an int seed (game ``i`` gets element ``i``)."""
    return _slot_seeds(seed, batch_size)


def init(batch_size: int, rules: Rules | str | None = None, seed: SeedOrSlots = None,
         max_steps: int | None = None) -> State:
    """Start ``batch_size`` matches. ``seed``: an int, or an array of per-game slot seeds."""
    check_positive_int("batch_size", batch_size)
    check_positive_int("max_steps", max_steps, allow_none=True)
    rules = resolve_rules(rules)
    b, c = int(batch_size), rules.columns
    z = lambda dt=np.int64: np.zeros(b, dtype=dt)  # noqa: E731
    state = State(
        rules=rules, max_steps=max_steps,
        slot_seed=_slot_seeds(seed, b), episode=z(), match_seed=z(np.uint64), hand_number=z(),
        deck=np.zeros((b, NUM_CARDS), dtype=np.int8), stock_pos=z(), hands=np.zeros((b, 2), dtype=np.uint64),
        pile=np.zeros((b, NUM_CARDS), dtype=np.int8), pile_size=z(), known=np.zeros((b, 2), dtype=np.uint64),
        discarded=np.zeros((b, 2), dtype=np.uint64),
        phase=z(np.int8), current_player=z(np.int8), dealer=z(np.int8), taken_card=np.full(b, -1, dtype=np.int64),
        knock_limit=z(), multiplier=np.ones(b, dtype=np.int64),
        log=np.full((b, LOG_CAPACITY), -1, dtype=np.int16), log_size=z(np.int16), sheet=BatchScoresheet(b, rules),
        step_count=z(), terminated=z(bool), truncated=z(bool), match_winner=np.full(b, -1, dtype=np.int8),
        rewards=np.zeros((b, 2), dtype=np.int64), legal_action_mask=np.zeros((b, NUM_ACTIONS), dtype=bool),
        hand_ended=z(bool), hand_kind=z(np.int8), hand_knocker=np.full(b, -1, dtype=np.int8),
        hand_winner=np.full(b, -1, dtype=np.int8), hand_points=z(), knocker_deadwood=z(), defender_deadwood=z(),
        columns_credited=np.zeros((b, c), dtype=bool), games_ended=np.zeros((b, c), dtype=bool),
        ended_hands=np.zeros((b, 2), dtype=np.uint64), knocker_sets=z(np.uint64), knocker_runs=z(np.uint64),
        defender_sets=z(np.uint64), defender_runs=z(np.uint64), laid_off=z(np.uint64), ended_hand_dealer=z(np.int8),
    )
    _start_matches(state, np.arange(b))
    state.legal_action_mask[:] = legal_action_mask(state)
    if b == 1:
        _pack(state)
    return state


def _pack(state: State) -> None:
    """Lay the arrays of a one-game State out in one buffer (:data:`kernels.PACKED_FIELDS`; the
    fields become views into it, with the same values) when the kernels are compiled."""
    if not kernels.AVAILABLE:
        return
    offsets, rules_at, size = kernels.packed_layout()
    buf = np.zeros(size, dtype=np.uint8)
    for name, dtype, shape in kernels.PACKED_FIELDS:
        start, end = offsets[name]
        view = buf[start:end].view(dtype).reshape(shape)
        view[...] = getattr(state, name)
        setattr(state, name, view)
    max_steps = -1 if state.max_steps is None else state.max_steps
    buf[rules_at:].view(np.int64)[:] = [max_steps if name == "max_steps" else int(getattr(state.rules, name))
                                        for name in kernels.PACKED_RULES]
    state.__dict__["_derived"] = {"packed": buf}


def take(state: State, games: Games) -> State:
    """A new State of the games ``games`` of ``state`` (indices, repeats allowed, or a bool mask
    ``(B,)``), in that order: game ``i`` of the result is a copy of game ``games[i]``.

    Everything is copied (the scoresheet too): stepping one State never changes the other, and a
    copy steps exactly as its original would for the same actions, through its later deals as
    well (a game's cards depend only on its slot seed, episode and hand number, all copied).
    ``take(state, np.repeat(g, w))`` gives ``w`` copies of game ``g``, for example to roll out
    one position ``w`` times with :func:`hollywood_env.sampling.random_legal_actions`.
    Note that the copies then share the hidden cards (the opponent's hand, the stock order).
    """
    g = np.asarray(games)
    idx = np.flatnonzero(g) if g.dtype == bool else g.astype(np.int64, copy=False).reshape(-1)
    if g.dtype == bool and g.shape != (state.batch_size,):
        raise ValueError(f"a bool games mask must have shape ({state.batch_size},), got {g.shape}")
    if idx.size == 0:
        raise ValueError("take needs at least one game")
    arrays = {f.name: getattr(state, f.name)[idx] for f in dataclasses.fields(State)
              if isinstance(getattr(state, f.name), np.ndarray)}
    sheet = BatchScoresheet(idx.size, state.rules)
    for name, value in vars(state.sheet).items():
        if isinstance(value, np.ndarray):
            setattr(sheet, name, value[idx])
    out = State(rules=state.rules, max_steps=state.max_steps, sheet=sheet, **arrays)
    if idx.size == 1:
        _pack(out)
    return out


def reset_games(state: State, games: Games) -> State:
    """Start new matches in the chosen games (bool mask (B,) or indices); the next match seed of
    each slot. Their events and rewards are cleared; the other games are untouched."""
    idx = np.flatnonzero(games) if np.asarray(games).dtype == bool else np.asarray(games, dtype=np.int64)
    if idx.size == 0:
        return state
    state.episode[idx] += 1
    _start_matches(state, idx)
    _clear_events(state, idx)
    state.rewards[idx] = 0
    state.legal_action_mask[idx] = legal_action_mask(state, idx)
    return state


def _start_matches(state: State, idx: np.ndarray) -> None:
    with np.errstate(over="ignore"):
        state.match_seed[idx] = splitmix64(state.slot_seed[idx]
                                           ^ (state.episode[idx].astype(np.uint64) * np.uint64(0xA24BAED4963EE407)))
    state.hand_number[idx] = 0
    state.sheet.clear(idx)
    state.step_count[idx] = 0
    state.terminated[idx] = False
    state.truncated[idx] = False
    state.match_winner[idx] = -1
    state.dealer[idx] = first_dealer(state.match_seed[idx])
    _deal(state, idx)


def deal(state: State, games: Games, decks: np.ndarray, dealer: np.ndarray | int | None = None) -> State:
    """Replace the deal of the hand about to start in ``games`` (indices) with ``decks``: one
    ``(52,)`` card order per game, laid out as every deal is (cards 0-9 to the non-dealer, 10-19
    to the dealer, 20 the upcard, the stock from 21 on, drawn in that order); ``dealer`` (0/1 per
    game; default: keep each game's) names the dealer. For tests and planners that set up a
    position: a game started from a recorded deal replays the recorded hand exactly. Only games
    where nothing of the hand has been played yet qualify (the first-upcard decision, nothing
    drawn); later hands are dealt from the game's seed as usual."""
    idx = np.asarray(games, dtype=np.int64).reshape(-1)
    decks = np.asarray(decks)
    if decks.shape != (idx.size, NUM_CARDS):
        raise ValueError(f"decks must have shape ({idx.size}, {NUM_CARDS}) (one card order per game), got {decks.shape}")
    if not (np.sort(decks, axis=1) == np.arange(NUM_CARDS)).all():
        raise ValueError("every deck must be a permutation of the 52 cards 0..51")
    fresh = (state.phase[idx] == PHASE_FIRST_UPCARD) & (state.pile_size[idx] == 1) & (state.stock_pos[idx] == STOCK_START)
    if not fresh.all():
        raise ValueError(f"games {idx[~fresh].tolist()} are not at the start of a hand: deal() sets up a hand before "
                         f"anything of it is played")
    if dealer is not None:
        d = np.broadcast_to(np.asarray(dealer), idx.shape)
        if not np.isin(d, (0, 1)).all():
            raise ValueError(f"dealer must be 0 or 1 per game, got {np.asarray(dealer).tolist()}")
        state.dealer[idx] = d
    _lay_out(state, idx, decks.astype(np.int8))
    state.legal_action_mask[idx] = legal_action_mask(state, idx)
    return state


def _deal(state: State, idx: np.ndarray) -> None:
    """Deal a new hand in the games ``idx`` (dealer and hand number already set)."""
    if idx.size == 1 and kernels.AVAILABLE:  # one game (the AEC env): one compiled call
        packed = state.packed
        if packed is not None:  # the deck laid out too
            kernels.deal_packed(packed)
            return
        deck = np.empty((1, NUM_CARDS), dtype=np.int8)
        g = idx[0]
        kernels.deal_deck(state.match_seed[g], state.hand_number[g], deck[0])
        _lay_out(state, idx, deck)
        return
    _lay_out(state, idx, deal_decks(state.match_seed[idx], state.hand_number[idx]))


def _lay_out(state: State, idx: np.ndarray, deck: np.ndarray) -> None:
    """Lay out the card orders ``deck`` as the hands, upcard and stock of the games ``idx``."""
    state.deck[idx] = deck
    dealer = state.dealer[idx].astype(np.int64)
    non_dealer_cards = np.bitwise_or.reduce(CARD_BITS[deck[:, 0:10]], axis=1)
    dealer_cards = np.bitwise_or.reduce(CARD_BITS[deck[:, 10:20]], axis=1)
    state.hands[idx, 1 - dealer] = non_dealer_cards
    state.hands[idx, dealer] = dealer_cards
    upcard = deck[:, UPCARD_POS].astype(np.int64)
    state.pile[idx, 0] = upcard
    state.pile_size[idx] = 1
    state.stock_pos[idx] = STOCK_START
    state.known[idx] = 0
    state.discarded[idx] = 0
    state.log[idx] = -1
    state.log_size[idx] = 0
    state.phase[idx] = PHASE_FIRST_UPCARD
    state.current_player[idx] = 1 - dealer
    state.taken_card[idx] = -1
    r = state.rules
    if r.straight_gin:
        limit = np.zeros(idx.size, dtype=np.int64)
    elif r.oklahoma:
        v = CARD_VALUES[upcard]
        limit = np.where(v == 1, 0, v)
    else:
        limit = np.full(idx.size, r.knock_limit, dtype=np.int64)
    state.knock_limit[idx] = limit
    spade = upcard // 13 == 3
    state.multiplier[idx] = np.where(r.oklahoma & r.oklahoma_spade_doubles & spade, 2, 1)


def _clear_events(state: State, idx) -> None:
    state.hand_ended[idx] = False
    state.hand_kind[idx] = KIND_NONE
    state.hand_knocker[idx] = -1
    state.hand_winner[idx] = -1
    state.hand_points[idx] = 0
    state.knocker_deadwood[idx] = 0
    state.defender_deadwood[idx] = 0
    state.columns_credited[idx] = False
    state.games_ended[idx] = False


def legal_action_mask(state: State, idx: Games | None = None) -> np.ndarray:
    """The legal-action mask of the games ``idx`` (default: all), computed from the state."""
    return _words_to_mask(_legal_words(state, idx))


# The legal mask is built as two 64-bit words per game (bit j of word w: action 64 w + j), from
# the hand masks, and unpacked once: discards in bits 0..51 of word 0, knocks in bits 52..103
# (straddling the words), the other actions in word 1 by phase.
_W1_BIT = {a: np.uint64(1 << (a - 64)) for a in (DRAW_STOCK, TAKE_DISCARD, PASS, BIG_GIN)}
_PHASE_WORD1 = np.zeros(4, dtype=np.uint64)  # indexed by phase
_PHASE_WORD1[PHASE_FIRST_UPCARD] = _W1_BIT[TAKE_DISCARD] | _W1_BIT[PASS]
_PHASE_WORD1[PHASE_DRAW] = _W1_BIT[DRAW_STOCK] | _W1_BIT[TAKE_DISCARD]
_U52, _U12 = np.uint64(52), np.uint64(12)


def _legal_words(state: State, idx=None) -> np.ndarray:
    """``(n, 2)`` uint64: the legal actions of the games ``idx`` (default all) as bits."""
    phase = state.phase if idx is None else state.phase[idx]
    n = phase.shape[0]
    words = np.empty((n, 2), dtype=np.uint64)
    lo = np.zeros(n, dtype=np.uint64)
    hi = _PHASE_WORD1[phase]
    disc = np.flatnonzero(phase == PHASE_DISCARD)
    if disc.size:
        g = disc if idx is None else idx[disc]
        hand = state.hands.reshape(-1)[2 * g + state.current_player[g]]
        allowed = hand
        if state.rules.forbid_discard_of_taken_card:
            allowed = hand & ~_CARD_BIT_OR_ZERO[state.taken_card[g]]
        knock, loose_value = M.knock_discards_loose(hand, state.knock_limit[g], allowed)
        lo[disc] = allowed | (knock << _U52)
        hi[disc] = knock >> _U12
        if state.rules.big_gin:
            maybe = np.flatnonzero(loose_value == 0)  # every card fits some meld
            if maybe.size:
                big = maybe[M.min_deadwood_masks(hand[maybe]) == 0]
                hi[disc[big]] |= _W1_BIT[BIG_GIN]
    words[:, 0] = lo
    words[:, 1] = hi
    return words


def _words_to_mask(words: np.ndarray) -> np.ndarray:
    """``(n, 2)`` uint64 words -> ``(n, NUM_ACTIONS)`` bool mask (one unpack)."""
    packed = np.ascontiguousarray(words, dtype="<u8").view(np.uint8).reshape(-1, 16)
    return np.unpackbits(packed, axis=1, count=NUM_ACTIONS, bitorder="little").view(bool)


def _raise_illegal(state: State, actions: np.ndarray, bad: np.ndarray) -> None:
    g = int(bad[0])
    a = int(actions[g])
    legal = np.flatnonzero(state.legal_action_mask[g])
    try:
        name = action_name(a)
    except ValueError:
        name = f"out of range 0..{NUM_ACTIONS - 1}"
    shown = ", ".join(f"{x} ({action_name(x)})" for x in legal[:20]) + (" ..." if legal.size > 20 else "")
    more = f" ({bad.size} games had illegal actions; first shown)" if bad.size > 1 else ""
    raise IllegalActionError(f"illegal action {a} ({name}) in game {g}{more}; legal actions: {shown}")


def step(state: State, actions: np.ndarray, games: Games | None = None) -> State:
    """Apply one action per game. In place; returns ``state``.

    ``games`` (optional, bool ``(B,)`` or indices) steps only those games; the others, and games
    that are done, ignore their action (any value) and keep their state and legal masks. After
    the call, ``rewards`` and the event fields describe this step: all zero for games that did
    not step.
    """
    b = state.batch_size
    actions = np.asarray(actions)
    if actions.shape != (b,):
        raise ValueError(f"actions must have shape ({b},) (one per game), got {actions.shape}")
    if actions.dtype.kind not in "iu":
        raise TypeError(f"actions must be integers, got dtype {actions.dtype}")
    if b == 1 and games is None and (_step_one(state, int(actions[0])) or _end_hand_one(state, int(actions[0]))):
        return state
    actions = actions.astype(np.int64)
    active = ~(state.terminated | state.truncated)
    if games is not None:
        sel = np.zeros(b, dtype=bool)
        sel[games] = True
        active &= sel
    in_range = (actions >= 0) & (actions < NUM_ACTIONS)
    legal = in_range & _flat(state.legal_action_mask)[np.arange(0, b * NUM_ACTIONS, NUM_ACTIONS) + np.where(in_range, actions, 0)]
    bad = np.flatnonzero(active & ~legal)
    if bad.size:
        _raise_illegal(state, actions, bad)

    # only a hand's end (or a reset) leaves events and rewards, in the games whose hand ended
    ended = np.flatnonzero(state.hand_ended)
    if ended.size:
        state.rewards[ended] = 0
        _clear_events(state, ended)
    a = np.where(active, actions, -1)
    # flat views: index 2 g + p is player p of game g, NUM_CARDS g + i slot i of game g
    hands, known = _flat(state.hands), _flat(state.known)
    mover = 2 * np.arange(b) + state.current_player  # the player to act's hand, flat
    to_deal = []  # games whose hand ended and go on: one deal for all of them at the end

    # --- take the top of the pile (first upcard or draw phase) --------------------------------
    g = np.flatnonzero(a == TAKE_DISCARD)
    if g.size:
        size = state.pile_size[g] - 1
        top = _flat(state.pile)[NUM_CARDS * g + size].astype(np.int64)
        _log(state, g, EVENT_TAKE, top)
        state.pile_size[g] = size
        bit = CARD_BITS[top]
        h = mover[g]
        hands[h] |= bit
        known[h] |= bit
        state.taken_card[g] = top
        state.phase[g] = PHASE_DISCARD

    # --- pass the first upcard ------------------------------------------------------------------
    g = np.flatnonzero(a == PASS)
    if g.size:
        _log(state, g, EVENT_DECLINE, _pile_top(state, g))
        non_dealer_passed = state.current_player[g] != state.dealer[g]
        state.current_player[g[non_dealer_passed]] = state.dealer[g[non_dealer_passed]]
        both = g[~non_dealer_passed]  # the dealer passed too: the non-dealer draws from the stock
        if both.size:
            nd = 1 - state.dealer[both].astype(np.int64)
            state.current_player[both] = nd
            _draw_stock(state, both, nd)

    # --- draw from the stock --------------------------------------------------------------------
    g = np.flatnonzero(a == DRAW_STOCK)
    if g.size:
        _log(state, g, EVENT_DECLINE, _pile_top(state, g))
        _draw_stock(state, g, state.current_player[g])

    # --- discard or knock -----------------------------------------------------------------------
    g = np.flatnonzero((a >= 0) & (a < DRAW_STOCK))
    if g.size:
        h = mover[g]
        card = a[g] % KNOCK
        _log(state, g, EVENT_DISCARD, card)
        bit = CARD_BITS[card]
        hands[h] &= ~bit
        known[h] &= ~bit
        _flat(state.discarded)[h] |= bit
        size = state.pile_size[g]
        _flat(state.pile)[NUM_CARDS * g + size] = card
        state.pile_size[g] = size + 1
        state.taken_card[g] = -1
        knocked = a[g] >= KNOCK
        plain = g[~knocked] if knocked.any() else g
        at_wall = state.stock_pos[plain] == NUM_CARDS - state.rules.wall_stock_size
        cont = plain[~at_wall] if at_wall.any() else plain
        state.current_player[cont] ^= 1
        state.phase[cont] = PHASE_DRAW
        if at_wall.any():
            to_deal.append(_end_in_wall(state, plain[at_wall]))
        if knocked.any():
            to_deal.append(_settle(state, g[knocked], big_gin=False))

    g = np.flatnonzero(a == BIG_GIN)
    if g.size:
        to_deal.append(_settle(state, g, big_gin=True))
    if to_deal:
        _deal(state, np.concatenate(to_deal))

    # --- step counting and truncation ------------------------------------------------------------
    state.step_count += active
    if state.max_steps is not None:
        cut = active & ~state.terminated & (state.step_count >= state.max_steps)
        state.truncated |= cut
    if games is None:
        words = _legal_words(state)
        done = state.terminated | state.truncated
        if done.any():
            words[done] = 0
        state.legal_action_mask[...] = _words_to_mask(words)
    else:
        stepped = np.flatnonzero(active)
        words = _legal_words(state, stepped)
        done = (state.terminated | state.truncated)[stepped]
        if done.any():
            words[done] = 0
        state.legal_action_mask[stepped] = _words_to_mask(words)
    return state


def step_one(state: State, action: int) -> bool:
    """:func:`step` for a one-game state and one action (a Python int), with less overhead (the
    AEC env's step). Returns True when the move was a simple one (take the discard, pass, draw,
    a discard that does not reach the wall): then no hand ended, and it left no rewards or
    events. Illegal actions raise ``IllegalActionError`` as :func:`step` does."""
    if state.phase.shape[0] != 1:
        raise ValueError(f"step_one steps a one-game state; this one has {state.batch_size} games (use step)")
    if type(action) is not int:
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            raise TypeError(f"an action must be one integer in 0..{NUM_ACTIONS - 1}, got {action!r}")
        action = int(action)
    if 0 <= action < NUM_ACTIONS:  # (step() names an action out of range)
        if _step_one(state, action):
            return True
        if _end_hand_one(state, action):
            return False
    if not -2**63 <= action < 2**63:  # no int64: out of range, whatever the game
        if state.terminated[0] or state.truncated[0]:
            return False  # a finished game ignores its action
        raise IllegalActionError(f"illegal action {action} (out of range 0..{NUM_ACTIONS - 1}) in game 0")
    step(state, np.array([action], dtype=np.int64))
    return False


def _pile_top(state: State, g: np.ndarray) -> np.ndarray:
    """The top card of the pile of games ``g``, -1 where it is empty."""
    size = state.pile_size[g]
    top = _flat(state.pile)[NUM_CARDS * g + np.maximum(size - 1, 0)].astype(np.int64)
    return np.where(size > 0, top, -1)


def _log(state: State, g: np.ndarray, kind: int, card: np.ndarray) -> None:
    """Append the public event ``kind`` of ``card`` by the player to act to the logs of games
    ``g`` (before the move changes the player to act). A full log keeps its first events; a card
    of -1 (an empty pile) records nothing."""
    pos = state.log_size[g].astype(np.int64)
    ok = (pos < LOG_CAPACITY) & (card >= 0)
    if not ok.all():
        g, pos, card = g[ok], pos[ok], card[ok]
    code = event_code(state.current_player[g].astype(np.int64), kind, card)
    _flat(state.log)[LOG_CAPACITY * g + pos] = code
    state.log_size[g] += 1


def _log_one(state: State, p: int, kind: int, card: int) -> None:
    """:func:`_log` for the only game of a one-game state."""
    pos = int(state.log_size[0])
    if pos < LOG_CAPACITY and card >= 0:
        state.log[0, pos] = event_code(p, kind, card)
        state.log_size[0] = pos + 1


def _flat(a: np.ndarray) -> np.ndarray:
    """A flat view of a State array (they are all C-contiguous), to index with one index."""
    if not a.flags.c_contiguous:
        raise ValueError("the arrays of a State must be C-contiguous")
    return a.reshape(-1)


# --- the single-game fast path ----------------------------------------------------------------
# With one game (the AEC env) numpy's per-call overhead is most of a step's cost. The moves that
# cannot end a hand (take the discard, pass, draw, a discard that does not reach the wall) and
# the legal mask after them are done in one compiled call (hollywood_env.kernels, with numba)
# or, without numba, here on Python scalars. The moves that end a hand (knocks, big gins, walls)
# go through the batched helpers of the settlement, the wall and the deal, called directly
# (_end_hand_one); illegal actions and finished games go through step() above.
# tests/engine/test_core_single.py checks, step by step over random matches of every preset, that each
# of these gives the batched path's state.


def _step_one(state: State, a: int) -> bool:
    """Apply action ``a`` to the only game of a one-game state if it is a simple move (see
    above); return False, with nothing changed, when the batched path must handle it. With
    numba (:mod:`hollywood_env.kernels`) the move and the mask are one compiled call."""
    if kernels.AVAILABLE:
        return _step_one_compiled(state, a)
    if state.terminated[0] or state.truncated[0] or not 0 <= a < NUM_ACTIONS or not state.legal_action_mask[0, a]:
        return False
    if KNOCK <= a < DRAW_STOCK or a == BIG_GIN:
        return False
    if a < KNOCK and NUM_CARDS - int(state.stock_pos[0]) == state.rules.wall_stock_size:
        return False  # this discard ends the hand in a wall
    if state.hand_ended[0]:  # only a hand's end leaves events and rewards to clear
        state.rewards[:] = 0
        _clear_events(state, slice(None))
    p = int(state.current_player[0])
    hands, known = state.hands[0], state.known[0]  # views
    if a < KNOCK:  # a plain discard
        _discard_one(state, p, a)
        state.current_player[0] = 1 - p
        state.phase[0] = PHASE_DRAW
    elif a == TAKE_DISCARD:
        size = int(state.pile_size[0]) - 1
        top = int(state.pile[0, size])
        _log_one(state, p, EVENT_TAKE, top)
        state.pile_size[0] = size
        hands[p] = int(hands[p]) | (1 << top)
        known[p] = int(known[p]) | (1 << top)
        state.taken_card[0] = top
        state.phase[0] = PHASE_DISCARD
    elif a == PASS:
        _log_one(state, p, EVENT_DECLINE, int(state.pile[0, int(state.pile_size[0]) - 1]) if state.pile_size[0] else -1)
        dealer = int(state.dealer[0])
        if p != dealer:
            state.current_player[0] = dealer
        else:  # the dealer passed too: the non-dealer draws from the stock
            state.current_player[0] = 1 - dealer
            _draw_one(state, 1 - dealer)
    else:  # DRAW_STOCK
        _log_one(state, p, EVENT_DECLINE, int(state.pile[0, int(state.pile_size[0]) - 1]) if state.pile_size[0] else -1)
        _draw_one(state, p)
    state.step_count[0] += 1
    if state.max_steps is not None and state.step_count[0] >= state.max_steps:
        state.truncated[0] = True  # a simple move never ends the match, so it is not terminated
    _legal_mask_one(state)
    return True


def _discard_one(state: State, p: int, card: int) -> None:
    """Player ``p`` of the only game of a one-game state discards ``card`` (plain or to knock)."""
    _log_one(state, p, EVENT_DISCARD, card)
    bit = 1 << card
    state.hands[0, p] = int(state.hands[0, p]) ^ bit
    state.known[0, p] = int(state.known[0, p]) & ~bit
    state.discarded[0, p] = int(state.discarded[0, p]) | bit
    size = int(state.pile_size[0])
    state.pile[0, size] = card
    state.pile_size[0] = size + 1
    state.taken_card[0] = -1


def _end_hand_one(state: State, a: int) -> bool:
    """Apply action ``a`` to the only game of a one-game state if it ends the hand (a knock, a
    big gin, a discard into the wall), with the batched code's helpers for the settlement, the
    wall and the next deal; return False, with nothing changed, for any other action (a simple
    move, an illegal action, a finished game)."""
    if state.terminated[0] or state.truncated[0] or not 0 <= a < NUM_ACTIONS or not state.legal_action_mask[0, a]:
        return False
    wall = a < KNOCK and NUM_CARDS - int(state.stock_pos[0]) == state.rules.wall_stock_size
    if not (wall or KNOCK <= a < DRAW_STOCK or a == BIG_GIN):
        return False
    if state.hand_ended[0]:  # the last step's events and rewards
        state.rewards[:] = 0
        _clear_events(state, slice(None))
    g = np.zeros(1, dtype=np.int64)  # the games argument of the batched helpers
    if a == BIG_GIN:
        going = _settle(state, g, big_gin=True)
    else:
        _discard_one(state, int(state.current_player[0]), a % KNOCK)
        going = _end_in_wall(state, g) if wall else _settle(state, g, big_gin=False)
    if going.size:
        _deal(state, going)
    state.step_count[0] += 1
    if state.max_steps is not None and not state.terminated[0] and state.step_count[0] >= state.max_steps:
        state.truncated[0] = True
    _legal_mask_one(state)
    return True


def _step_one_compiled(state: State, a: int) -> bool:
    """:func:`_step_one` as :func:`hollywood_env.kernels.step_simple`."""
    ended = state.hand_ended[0]
    packed = state.packed
    if packed is not None:
        if not kernels.step_packed(a, packed):
            return False
    elif not kernels.step_simple(a, *state.derived("step_simple", _step_simple_args)):
        return False
    if ended:  # only a hand's end leaves events and rewards to clear
        state.rewards[:] = 0
        _clear_events(state, slice(None))
    return True


def _step_simple_args(state: State) -> tuple:
    """The arguments of :func:`hollywood_env.kernels.step_simple` after the action."""
    rules = state.rules
    return (state.hands, state.known, state.discarded, state.pile, state.pile_size, state.deck, state.stock_pos,
            state.taken_card, state.current_player, state.phase, state.dealer, state.knock_limit, state.log,
            state.log_size, state.step_count, state.terminated, state.truncated, state.legal_action_mask,
            rules.wall_stock_size, -1 if state.max_steps is None else state.max_steps,
            rules.forbid_discard_of_taken_card, rules.big_gin)


def _draw_one(state: State, p: int) -> None:
    pos = int(state.stock_pos[0])
    state.hands[0, p] = int(state.hands[0, p]) | (1 << int(state.deck[0, pos]))
    state.stock_pos[0] = pos + 1
    state.taken_card[0] = -1
    state.phase[0] = PHASE_DISCARD


def _legal_mask_one(state: State) -> None:
    """:func:`legal_action_mask` of the only game of a one-game state, written in place."""
    row = state.legal_action_mask[0]
    row[:] = False
    if state.terminated[0] or state.truncated[0]:
        return
    phase = int(state.phase[0])
    if phase == PHASE_DRAW:
        row[DRAW_STOCK] = row[TAKE_DISCARD] = True
    elif phase == PHASE_FIRST_UPCARD:
        row[TAKE_DISCARD] = row[PASS] = True
    elif phase == PHASE_DISCARD:
        rules = state.rules
        hand = int(state.hands[0, int(state.current_player[0])])
        allowed = hand
        taken = int(state.taken_card[0])
        if rules.forbid_discard_of_taken_card and taken >= 0:
            allowed &= ~(1 << taken)
        rest = allowed
        while rest:
            low = rest & -rest
            row[low.bit_length() - 1] = True
            rest ^= low
        knock = M.knock_discards_one(hand, int(state.knock_limit[0]), allowed)
        while knock:
            low = knock & -knock
            row[KNOCK + low.bit_length() - 1] = True
            knock ^= low
        if rules.big_gin and M.is_big_gin_one(hand):
            row[BIG_GIN] = True


def _draw_stock(state: State, g: np.ndarray, p: np.ndarray) -> None:
    pos = state.stock_pos[g]
    card = _flat(state.deck)[NUM_CARDS * g + pos]
    state.stock_pos[g] = pos + 1
    _flat(state.hands)[2 * g + p] |= CARD_BITS[card]
    state.taken_card[g] = -1
    state.phase[g] = PHASE_DISCARD


def _record_ended_hand(state: State, g: np.ndarray) -> None:
    state.hand_ended[g] = True
    state.ended_hands[g] = state.hands[g]
    state.ended_hand_dealer[g] = state.dealer[g]


def _end_in_wall(state: State, g: np.ndarray) -> np.ndarray:
    """End the hands of the games ``g`` in a wall; returns ``g``, to deal again (same dealer)."""
    _record_ended_hand(state, g)
    state.hand_kind[g] = KIND_WALL
    state.knocker_sets[g] = 0
    state.knocker_runs[g] = 0
    state.defender_sets[g] = 0
    state.defender_runs[g] = 0
    state.laid_off[g] = 0
    state.hand_number[g] += 1  # the same dealer deals again
    return g


def _settle(state: State, g: np.ndarray, big_gin: bool) -> np.ndarray:
    """Settle the knocks (or big gins) of the games ``g``; returns those whose match goes on,
    to deal their next hand."""
    rules = state.rules
    knocker = state.current_player[g].astype(np.int64)
    defender = 1 - knocker
    _record_ended_hand(state, g)
    s = settle_hands(state.hands[g, knocker], state.hands[g, defender], rules, np.full(g.size, big_gin))
    points = s.points * state.multiplier[g]
    winner = np.where(s.knocker_wins, knocker, defender)
    state.hand_kind[g] = s.kind
    state.hand_knocker[g] = knocker
    state.hand_winner[g] = winner
    state.hand_points[g] = points
    state.knocker_deadwood[g] = s.knocker_deadwood
    state.defender_deadwood[g] = s.defender_deadwood
    state.knocker_sets[g], state.knocker_runs[g] = s.knocker_sets, s.knocker_runs
    state.defender_sets[g], state.defender_runs[g] = s.defender_sets, s.defender_runs
    state.laid_off[g] = s.laid_off

    reward, credited, ended = state.sheet.record(g, winner, points)
    state.rewards[g] += reward
    state.columns_credited[g] = credited
    state.games_ended[g] = ended

    nd = rules.next_dealer
    dealer = state.dealer[g].astype(np.int64)
    state.dealer[g] = winner if nd == "winner" else (1 - winner if nd == "loser" else 1 - dealer)
    state.hand_number[g] += 1

    over = state.sheet.match_over(g)
    finished, going = g[over], g[~over]
    if finished.size:
        state.terminated[finished] = True
        state.phase[finished] = PHASE_GAME_OVER
        state.match_winner[finished] = state.sheet.match_winner(finished)
    return going
