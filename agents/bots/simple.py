"""``simple``: OpenSpiel's simple Gin Rummy bot, batched."""

from __future__ import annotations

import numpy as np

from agents.bots.base import (
    OPENSPIEL_SUITS_LOW_TO_HIGH,
    PhaseBot,
    View,
    best_knock,
    highest_card,
    openspiel_melded,
    take_upcard,
)
from hollywood_env.actions import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD


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
    decisions in 1,000 games (95.0% with our own tie-breaks before): ``python -m
    experiments.research.openspiel_agreement`` (tested in ``tests/agents/test_bots.py`` where
    OpenSpiel is installed). What can still differ, outside those games or not seen in them:

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
