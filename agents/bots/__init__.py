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

One module per bot (:mod:`agents.bots.simple`, :mod:`agents.bots.neller`,
:mod:`agents.bots.hollywood`, :mod:`agents.bots.marjj`), their shared parts in
:mod:`agents.bots.base`. This package re-exports the bots and the helpers other packages use.

Rows whose mask has no legal action (a finished game) get action 0; callers ignore it.
"""

from agents.bots.base import (
    Bot,
    PhaseBot,
    RandomBot,
    View,
    best_knock,
    decode,
    highest_card,
    meldable_with,
    melds_with,
    openspiel_melded,
    take_upcard,
)
from agents.bots.hollywood import HollywoodBot, HollywoodParams
from agents.bots.neller import NellerBot
from agents.bots.simple import SimpleBot, simple_discard

__all__ = ["Bot", "PhaseBot", "RandomBot", "SimpleBot", "NellerBot", "HollywoodBot", "HollywoodParams", "View", "decode",
           "highest_card", "meldable_with", "melds_with", "openspiel_melded", "take_upcard", "best_knock",
           "simple_discard"]
