#!/usr/bin/env bash
# What limits the search on the EAAI game: its default with one knob changed at a time, against
# marjj, 200 games to 100 on the deals of results/eaai/run.sh (seed 4301), one core each.
#   bash results/eaai/search_variants/run.sh        (about 30 minutes on one core; done variants are skipped)
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/eaai/search_variants
for v in belief=heuristic base=ppo-gin-rummy,own_rollout=ppo-gin-rummy value=points; do
  name=$(echo "$v" | tr ',=' '__')
  [ -f "$OUT/$name/evaluate.json" ] && continue
  $H evaluate "search:$v" marjj --rules eaai --games 200 --seed 4301 -q --out "$OUT/$name" > /dev/null
done
