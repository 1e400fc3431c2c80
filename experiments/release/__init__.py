"""Releasing results: a training run turned into a shipped model with its card, and a shipped
model retrained and checked against its card (:mod:`experiments.release.ship`, ``hollywood ship``
and ``hollywood reproduce``); a published result's tables and plots
(:mod:`experiments.release.publish`, ``hollywood publish``); an RLlib policy exported as a
weights-only file (:mod:`experiments.release.rllib_export`, ``hollywood rllib-export``)."""
