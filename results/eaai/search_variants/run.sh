#!/usr/bin/env bash
# What limits the search on the EAAI game: its default with one knob changed at a time, against
# marjj, 200 games to 100 on the deals of results/eaai/run.sh (seed 4301), one core each. The PPO
# base is the first network of ppo-gin-rummy (the wide recipe's seed 0), which alone was
# ppo-gin-rummy when these ran; its output folder keeps that name.
#   bash results/eaai/search_variants/run.sh        (about 30 minutes on one core; done variants are skipped)
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/eaai/search_variants
PPO=ppo:results/ppo_gin_rummy/wide_seed0/ppo_gin_rummy_wide_seed0.pt
for v in belief=heuristic "base=$PPO,own_rollout=$PPO" value=points; do
  name=$(echo "$v" | sed "s|$PPO|ppo-gin-rummy|g" | tr ',=' '__')
  [ -f "$OUT/$name/evaluate.json" ] && continue
  $H evaluate "search:$v" marjj --rules eaai --games 200 --seed 4301 -q --out "$OUT/$name" > /dev/null
done
