#!/usr/bin/env bash
# What the cards leave to skill in games to 100: the search given the hidden cards (an
# experiment only: experiments/research/oracle_ceiling.py), against simple and marjj, beside the
# honest search with the same knobs (the opponent's own policy in the rollouts, in every row).
# 200 games each, duplicate deals of seed 4301 (those of results/eaai/run.sh), one core.
#   bash results/eaai/search_oracle/run.sh        (about 20 minutes on one core; done runs are skipped)
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
PY=${PYTHON:-python}
OUT=results/eaai/search_oracle
for opp in simple marjj; do
  for sees in all hand; do
    f=$OUT/oracle_$sees-vs-$opp
    [ -f "$f.json" ] && continue
    $PY -m experiments.research.oracle_ceiling --sees $sees --opponent $opp --games 200 --seed 4301 \
      --out "$f.json" > "$f.txt"
  done
  [ -f "$OUT/honest-vs-$opp/evaluate.json" ] && continue
  $H evaluate "search:rollout=$opp,knocker_rollout=" $opp --rules eaai --games 200 --seed 4301 -q \
    --out "$OUT/honest-vs-$opp" > /dev/null
done
