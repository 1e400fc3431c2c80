"""``hollywood``: our scoresheet-aware heuristic bot, batched."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.bots.base import (
    _RANK_ROWS,
    _SUIT_BITS,
    RANK,
    SUIT,
    U64,
    VALUE,
    PhaseBot,
    View,
    _best_per_row,
    _expand,
    _knock_key,
    _pc,
    bot_params,
    meldable_with,
    take_upcard,
)
from hollywood_env import melds as M
from hollywood_env import observation as O
from hollywood_env.actions import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD
from hollywood_env.cards import CARD_BITS
from hollywood_env.rules import Rules
from hollywood_env.sampling import SeedLike


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
        self.params = bot_params(HollywoodParams, params, kw, "HollywoodBot")
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
