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

import numpy as np

from .actions import PHASE_DISCARD, PHASE_DRAW, PHASE_FIRST_UPCARD
from .cards import NUM_CARDS
from .melds import _masks_to_bools
from .rules import Rules

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


def encode(state, viewer=None, games=None) -> np.ndarray:
    """Observations ``(n, D)`` of the games ``games`` (default all) seen by ``viewer``
    (``(n,)`` players; default: the player to act)."""
    b = state.batch_size
    g = np.arange(b) if games is None else np.asarray(games, dtype=np.int64)
    n = g.shape[0]
    me = (state.current_player[g] if viewer is None else np.broadcast_to(np.asarray(viewer), (n,))).astype(np.int64)
    opp = 1 - me
    rules = state.rules
    out = np.zeros((n, observation_size(rules)), dtype=np.float32)
    planes = np.stack([state.hands[g, me], state.known[g, opp], state.discarded[g, opp], state.discarded[g, me]], axis=1)
    bits = _masks_to_bools(planes.reshape(-1)).reshape(n, 4, NUM_CARDS)
    out[:, HAND] = bits[:, 0]
    out[:, OPP_KNOWN] = bits[:, 1]
    out[:, OPP_DISCARDED] = bits[:, 2]
    out[:, OWN_DISCARDED] = bits[:, 3]
    size = state.pile_size[g]
    pos = np.arange(NUM_CARDS)
    valid = pos[None, :] < size[:, None]
    cols = np.where(valid, state.pile[g].astype(np.int64), NUM_CARDS)
    depth = np.zeros((n, NUM_CARDS + 1), dtype=np.float32)
    np.put_along_axis(depth, cols, ((pos[None, :] + 1) / np.maximum(size, 1)[:, None]).astype(np.float32), axis=1)
    out[:, PILE] = depth[:, :NUM_CARDS]
    has_top = size > 0
    top = state.pile[g, np.maximum(size - 1, 0)].astype(np.int64)
    rows = np.flatnonzero(has_top)
    out[rows, PILE_TOP.start + top[rows]] = 1.0
    out[:, STOCK] = (NUM_CARDS - state.stock_pos[g]) / 31.0
    phase = state.phase[g]
    out[:, PHASE.start] = phase == PHASE_FIRST_UPCARD
    out[:, PHASE.start + 1] = phase == PHASE_DRAW
    out[:, PHASE.start + 2] = phase == PHASE_DISCARD
    out[:, IS_DEALER] = state.dealer[g] == me
    out[:, KNOCK_LIMIT] = state.knock_limit[g] / 10.0
    out[:, DOUBLED] = state.multiplier[g] > 1
    out[:, HAND_NUMBER] = np.minimum(state.hand_number[g], 100) / 100.0
    sheet = state.sheet
    cols_me, cols_opp = sheet.columns[g, me], sheet.columns[g, opp]
    gw = sheet.game_winner[g]
    feats = np.stack([
        cols_me / rules.target, cols_opp / rules.target,
        sheet.opened[g, me], sheet.opened[g, opp],
        gw >= 0, gw == me[:, None], gw == opp[:, None],
        sheet.hands_scored[g, me] / 10.0, sheet.hands_scored[g, opp] / 10.0,
    ], axis=2)  # (n, C, 9)
    out[:, SHEET_START:] = feats.reshape(n, -1)
    return out
