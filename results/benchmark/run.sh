#!/usr/bin/env bash
# The benchmark panel's published ratings (panel_hollywood.json, panel_eaai.json), read by
# `hollywood benchmark`. Each file records the command that made it (--reuse only keeps the
# pairings already in the file with the same seed and game counts, so a rerun that adds a member
# plays only that member's pairings). Measured on 2 busy cores under nice -n 19: each round robin
# without search, 1,000 games per pairing, took about 3 minutes; search's 6 pairings of 100 games to
# 100 took 19 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/.venv/bin:$PATH"
python -m experiments.evaluation.benchmark_panel --rules hollywood --games 1000 --slow-games 100 --seed 5100 --leave-out search --reuse
python -m experiments.evaluation.benchmark_panel --rules eaai --games 1000 --slow-games 100 --seed 5100 --reuse
