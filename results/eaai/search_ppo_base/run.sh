#!/usr/bin/env bash
# The search on the EAAI game with a PPO as its base and in its own seat of the rollouts (the first
# network of ppo-gin-rummy, the wide recipe's seed 0, which alone was ppo-gin-rummy when these ran),
# against simple and marjj on the seeds of
# the default's figures (results/eaai/search_opponent_style/run.sh: 200 games to 100 each, seeds
# 4301 to 4601). Seed 4301 against marjj is results/eaai/search_variants/. One process per core:
#   bash results/eaai/search_ppo_base/run.sh [OPPONENT:SEED ...]     (done pairs are skipped)
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
PPO=ppo:results/ppo_gin_rummy/wide_seed0/ppo_gin_rummy_wide_seed0.pt
S="search:base=$PPO,own_rollout=$PPO"
pairs=("$@")
[ ${#pairs[@]} -eq 0 ] && pairs=(marjj:4401 marjj:4501 marjj:4601 simple:4301 simple:4401 simple:4501 simple:4601)
for pair in "${pairs[@]}"; do
  o=${pair%%:*}; s=${pair##*:}
  out="results/eaai/search_ppo_base/$o-$s"
  [ -f "$out/evaluate.json" ] && continue
  $H evaluate "$S" "$o" --rules eaai --games 200 --seed "$s" -q --out "$out" > /dev/null
  echo "done: $o $s"
done
