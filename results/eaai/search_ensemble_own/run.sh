#!/usr/bin/env bash
# The search on the EAAI game with ppo-gin-rummy (two networks acting as one) as its base and in the
# searcher's own seat of the rollouts, so that the rollouts play on as the base does, against marjj,
# 200 games to 100 on the seeds of the default's figures, 4301 to 4601 (results/eaai/search_opponent_style/run.sh);
# about 1,100 seconds per 200 games on one core.
# The base alone and the search on that base with patient in its own seat are
# ../search_ensemble_base/. One process per core:
#   bash results/eaai/search_ensemble_own/run.sh [OPPONENT:SEED ...]     (done pairs are skipped)
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/eaai/search_ensemble_own
pairs=("$@")
[ ${#pairs[@]} -eq 0 ] && pairs=(marjj:4301 marjj:4401 marjj:4501 marjj:4601)
for pair in "${pairs[@]}"; do
  o=${pair%%:*}; s=${pair##*:}
  [ -f "$OUT/$o-$s/evaluate.json" ] && continue
  $H evaluate search:base=ppo-gin-rummy,own_rollout=ppo-gin-rummy "$o" --rules eaai --games 200 --seed "$s" -q \
    --out "$OUT/$o-$s" > /dev/null
  echo "done: $o $s"
done
