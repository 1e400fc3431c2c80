"""``neller``: the EAAI Gin Rummy challenge's ``SimpleGinRummyPlayer``, batched."""

from __future__ import annotations

import numpy as np

from agents.bots.base import PhaseBot, View, _best_per_row, _expand, melds_with
from hollywood_env import melds as M
from hollywood_env.actions import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD
from hollywood_env.cards import CARD_BITS


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
