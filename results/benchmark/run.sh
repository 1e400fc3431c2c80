#!/usr/bin/env bash
# The benchmark panel's published ratings (panel_hollywood.json, panel_eaai.json), read by
# `hollywood benchmark`. Each file records the command that made it. A round robin of the panel on
# the deals of seed 5100: 1,000 games per pairing, and fewer for the pairings of the slow `search`
# (--slow-games: 60 Hollywood matches, 100 games to 100). --reuse keeps the pairings already in the
# file with the same seed and game counts, so a rerun that adds a member plays only its pairings.
# Measured on 2 busy cores under nice -n 19: each round robin without search took about 3 minutes;
# search's 6 pairings took 49 minutes on Hollywood matches (3 to 15 s a match) and 19 minutes on
# games to 100 (1.6 to 2.6 s a game).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.venv/bin:$PATH"
python -m experiments.evaluation.benchmark_panel --rules hollywood --games 1000 --slow-games 60 --seed 5100 --reuse
python -m experiments.evaluation.benchmark_panel --rules eaai --games 1000 --slow-games 100 --seed 5100 --reuse
