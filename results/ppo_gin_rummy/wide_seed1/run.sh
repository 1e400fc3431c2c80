#!/usr/bin/env bash
# The second training seed of the shipped recipe: configs/ppo_gin_rummy_wide.yaml (2 x 256 hidden
# units), seed 1, measured as seed 0 is: its card here (ppo_gin_rummy_wide_seed1.md: 2,000 games
# to 100 against simple and marjj, seed 20261129), 200 games against search on each of seeds 4301
# and 4401 (vs_search/, vs_search_4401/), 2,000 games against simple and marjj on each of the
# evaluation seeds of ../wide_seed0/compare.sh, and 2,000 against seed 0
# (compare/). The run's config and metrics are kept here too.
#   bash results/ppo_gin_rummy/wide_seed1/run.sh            (trains: about 100 minutes on 2 idle cores)
#   RUN=runs/ppo_gin_rummy_wide__1__<time> bash results/ppo_gin_rummy/wide_seed1/run.sh   (a finished run)
#   python results/ppo_gin_rummy/wide_seed0/compare.py     prints the table of docs/results.md
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/wide_seed1
[ -n "${RUN:-}" ] || { $H train configs/ppo_gin_rummy_wide.yaml --seed 1; RUN=$(ls -d runs/ppo_gin_rummy_wide__1__* | tail -1); }
cp "$RUN/config.yaml" "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
$H ship "$RUN" ppo_gin_rummy_wide_seed1 --models-dir $OUT --config configs/ppo_gin_rummy_wide.yaml --opponents simple marjj
SPEC=ppo:$OUT/ppo_gin_rummy_wide_seed1.pt
$H evaluate "$SPEC" search --rules eaai --games 200 --seed 4301 -q --out $OUT/vs_search > /dev/null
$H evaluate "$SPEC" search --rules eaai --games 200 --seed 4401 -q --out $OUT/vs_search_4401 > /dev/null
for seed in 4301 31337 7100003; do
  for o in simple marjj; do
    $H evaluate "$SPEC" $o --rules eaai --games 2000 --seed $seed -q --out "$OUT/compare/vs-$o-$seed" > /dev/null
  done
done
$H evaluate "$SPEC" ppo:results/ppo_gin_rummy/wide_seed0/ppo_gin_rummy_wide_seed0.pt --rules eaai --games 2000 --seed 20261207 -q --out "$OUT/compare/vs-seed0" > /dev/null
