"""The public history of a hand: what both players saw happen, in order, and its encoding.

The observation (:mod:`hollywood_env.observation`) is a snapshot: it shows which cards each player
discarded and which cards the opponent took from the pile and still holds, but not *when*, nor
which upcards a player declined. Those are what a reader of the opponent's hand needs most ("it
took the 7 of hearts, then threw the king of spades"; "it passed the 5 of clubs three turns ago").
The engine therefore keeps, per game, a log of the public events of the hand being played:

=================  ========================================================================
event              recorded when the player to act ...
=================  ========================================================================
``EVENT_TAKE``     takes the top card of the discard pile (the card is recorded)
``EVENT_DECLINE``  passes the first upcard or draws from the stock: it declined the top card
                   of the pile, which is recorded (never the card drawn from the stock)
``EVENT_DISCARD``  discards a card, knocking or not
=================  ========================================================================

An event is one ``int16`` code, ``(actor * 3 + kind) * 52 + card`` (:func:`event_code`,
:func:`decode_events`); ``State.log (B, LOG_CAPACITY)`` holds the codes of the hand being played in
order (``-1`` past ``State.log_size``) and is cleared at each deal. A hand of Gin Rummy has about
2 events per turn and rarely more than 70; a log that fills up keeps its first
``LOG_CAPACITY`` events. Everything in the log is seen by both players: no hidden card is ever
recorded, so the log, and any encoding of it, is the same in every world consistent with what a
player saw (:mod:`hollywood_env.determinize`).

The encoding (:func:`encode_history`): per viewer, ``HISTORY_PLANES`` planes of 52 cards plus one
flag, a flat ``float32`` vector of ``HISTORY_SIZE``:

=====================  ===========================================================================
plane                  content (per card)
=====================  ===========================================================================
``OPP_TOOK``           1 if the opponent took the card from the pile this hand
``OPP_TOOK_TURN``      the opponent's turn when it last took it / 20 (turn = its discards before)
``OPP_DECLINED``       1 if the opponent declined the card as the upcard
``OPP_DECLINED_TURN``  the opponent's turn when it last declined it / 20
``OPP_DISCARD``        1 if the opponent discarded the card
``OPP_DISCARD_TURN``   the opponent's turn when it last discarded it / 20
``OWN_*``              the same six planes for the viewer's own events (turns: the viewer's)
``OPP_THREW_AFTER``    the opponent discarded the card right after taking a card from the pile
``OPP_LAST_DISCARD``   one-hot: the opponent's most recent discard
``OPP_LAST_DECLINE``   one-hot: the upcard the opponent declined most recently
``GIVEN`` (scalar)     1: a history is given (0 lets a model read "no history" from all-zero planes)
=====================  ===========================================================================

Turns are counted from the start of the hand and capped at 1.0 (20 turns).
"""

from __future__ import annotations

from typing import Any  # encode_history's state: a hollywood_env.core.State (core imports this module)

import numpy as np

from .cards import NUM_CARDS

__all__ = [
    "EVENT_TAKE", "EVENT_DECLINE", "EVENT_DISCARD", "NUM_EVENT_KINDS", "LOG_CAPACITY", "HISTORY_PLANES",
    "HISTORY_SIZE",
    "event_code", "decode_events", "encode_history", "encode_history_arrays", "no_history",
]

EVENT_TAKE = 0
EVENT_DECLINE = 1
EVENT_DISCARD = 2
#: the number of event kinds (an event code is (actor * NUM_EVENT_KINDS + kind) * 52 + card)
NUM_EVENT_KINDS = 3
#: events kept per hand (a hand rarely has more than 70)
LOG_CAPACITY = 128

# plane indices of the encoding (see the module docstring)
OPP_TOOK, OPP_TOOK_TURN, OPP_DECLINED, OPP_DECLINED_TURN, OPP_DISCARD, OPP_DISCARD_TURN = range(6)
OWN_TOOK, OWN_TOOK_TURN, OWN_DECLINED, OWN_DECLINED_TURN, OWN_DISCARD, OWN_DISCARD_TURN = range(6, 12)
OPP_THREW_AFTER, OPP_LAST_DISCARD, OPP_LAST_DECLINE = 12, 13, 14
HISTORY_PLANES = 15
HISTORY_SIZE = HISTORY_PLANES * NUM_CARDS + 1
#: the index of the ``GIVEN`` flag
GIVEN = HISTORY_PLANES * NUM_CARDS
_TURN_SCALE = 20.0


def event_code(actor: int | np.ndarray, kind: int | np.ndarray, card: int | np.ndarray) -> np.ndarray:
    """The ``int16`` code of the event ``kind`` (``EVENT_*``) of ``card`` by seat ``actor``
    (scalars or arrays)."""
    return ((np.asarray(actor) * NUM_EVENT_KINDS + kind) * NUM_CARDS + np.asarray(card)).astype(np.int16)


def decode_events(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(actor, kind, card)`` arrays of event codes (entries of -1: actor, kind and card -1)."""
    codes = np.asarray(codes).astype(np.int64)
    valid = codes >= 0
    c = np.where(valid, codes, 0)
    actor, kind, card = c // (NUM_EVENT_KINDS * NUM_CARDS), (c // NUM_CARDS) % NUM_EVENT_KINDS, c % NUM_CARDS
    return np.where(valid, actor, -1), np.where(valid, kind, -1), np.where(valid, card, -1)


def no_history(n: int) -> np.ndarray:
    """``(n, HISTORY_SIZE)`` zeros: the encoding of "no history given" (``GIVEN`` = 0)."""
    return np.zeros((n, HISTORY_SIZE), dtype=np.float32)


def encode_history(state: Any, viewer: int | np.ndarray | None = None, games: np.ndarray | None = None) -> np.ndarray:
    """``(n, HISTORY_SIZE)``: the public history of the hand being played in the games ``games``
    (indices; default all) of a :class:`hollywood_env.core.State`, seen by ``viewer`` (a seat or
    ``(n,)`` seats; default the player to act). Reads the log only: nothing hidden."""
    g = np.arange(state.batch_size) if games is None else np.asarray(games, dtype=np.int64).reshape(-1)
    me = state.current_player[g].astype(np.int64) if viewer is None else \
        np.broadcast_to(np.asarray(viewer, dtype=np.int64), g.shape)
    return encode_history_arrays(state.log[g], state.log_size[g], me)


def encode_history_arrays(log: np.ndarray, log_size: np.ndarray, viewer: int | np.ndarray) -> np.ndarray:
    """:func:`encode_history` from the arrays: ``log (n, L)`` event codes, ``log_size (n,)`` and
    ``viewer (n,)`` seats."""
    log = np.asarray(log)
    n, length = log.shape
    viewer = np.asarray(viewer, dtype=np.int64).reshape(-1)
    valid = np.arange(length)[None, :] < np.asarray(log_size, dtype=np.int64)[:, None]
    valid &= log >= 0
    actor, kind, card = decode_events(np.where(valid, log, -1))
    side = np.where(actor == viewer[:, None], 1, 0)  # 0: the opponent, 1: the viewer
    # turn of each event: the actor's discards before it
    disc = valid & (kind == EVENT_DISCARD)
    turn = np.zeros((n, length), dtype=np.float64)
    for s_ in (0, 1):
        mine = disc & (side == s_)
        before = np.cumsum(mine, axis=1) - mine
        turn = np.where(side == s_, before, turn)
    t = np.minimum(turn / _TURN_SCALE, 1.0)
    out = np.zeros((n, HISTORY_PLANES, NUM_CARDS), dtype=np.float32)
    rows, cols = np.nonzero(valid)
    sd, kd, cd = side[rows, cols], kind[rows, cols], card[rows, cols]
    base = np.where(sd == 0, 0, 6) + 2 * kd  # OPP_TOOK/.. or OWN_TOOK/..: presence plane, turn = + 1
    out[rows, base, cd] = 1.0
    # the turn of the last occurrence: turns never decrease along a log, so the maximum
    np.maximum.at(out, (rows, base + 1, cd), t[rows, cols].astype(np.float32))
    # the opponent's discards right after it took from the pile
    prev_take = np.zeros((n, length), dtype=bool)
    prev_take[:, 1:] = valid[:, :-1] & (kind[:, :-1] == EVENT_TAKE) & (side[:, :-1] == 0)
    threw = disc & (side == 0) & prev_take
    r, c = np.nonzero(threw)
    out[r, OPP_THREW_AFTER, card[r, c]] = 1.0
    for plane, k in ((OPP_LAST_DISCARD, EVENT_DISCARD), (OPP_LAST_DECLINE, EVENT_DECLINE)):
        hit = valid & (kind == k) & (side == 0)
        last = length - 1 - np.argmax(hit[:, ::-1], axis=1)
        has = hit.any(axis=1)
        r = np.flatnonzero(has)
        out[r, plane, card[r, last[r]]] = 1.0
    flat = np.zeros((n, HISTORY_SIZE), dtype=np.float32)
    flat[:, :GIVEN] = out.reshape(n, -1)
    flat[:, GIVEN] = 1.0
    return flat
