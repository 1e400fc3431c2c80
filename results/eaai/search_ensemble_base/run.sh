#!/usr/bin/env bash
# The search on the EAAI game with ppo-gin-rummy (two networks acting as one) as its base: it makes
# the moves the search does not change, and patient plays the searcher's own seat in the rollouts as
# in the default. Against marjj and simple on the seeds of the default's figures
# (results/eaai/search_opponent_style/run.sh: 200 games to 100 each, seeds 4301 to 4601), and
# ppo-gin-rummy alone on the same games (alone-<opponent>-<seed>/). One process per core:
#   bash results/eaai/search_ensemble_base/run.sh [OPPONENT:SEED ...]     (done pairs are skipped)
#   python results/eaai/search_ensemble_base/table.py    prints the table of docs/agents.md
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/eaai/search_ensemble_base
pairs=("$@")
[ ${#pairs[@]} -eq 0 ] && pairs=(marjj:4301 marjj:4401 marjj:4501 marjj:4601 simple:4301 simple:4401 simple:4501 simple:4601)
for pair in "${pairs[@]}"; do
  o=${pair%%:*}; s=${pair##*:}
  [ -f "$OUT/alone-$o-$s/evaluate.json" ] || \
    $H evaluate ppo-gin-rummy "$o" --rules eaai --games 200 --seed "$s" -q --out "$OUT/alone-$o-$s" > /dev/null
  [ -f "$OUT/$o-$s/evaluate.json" ] && continue
  $H evaluate search:base=ppo-gin-rummy "$o" --rules eaai --games 200 --seed "$s" -q --out "$OUT/$o-$s" > /dev/null
  echo "done: $o $s"
done
