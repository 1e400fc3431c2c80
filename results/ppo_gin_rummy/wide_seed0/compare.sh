#!/usr/bin/env bash
# Which EAAI-game PPO recipe ships as ppo-gin-rummy: the 2 x 256 network (wide_seed0)
# against the 128-unit network of the same recipe (run_1800_seed0), on the same games, against
# simple and marjj on three evaluation seeds besides the cards' 20261129, and against each other.
# Writes compare/<model>-vs-<opponent>-<seed>/evaluate.{json,md} and compare/head_to_head/;
#   bash results/ppo_gin_rummy/wide_seed0/compare.sh      (about 3 minutes on 2 cores)
#   python results/ppo_gin_rummy/wide_seed0/compare.py    prints the table of docs/results.md
#     (with a column for the second training seed, from ../wide_seed1/run.sh)
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/wide_seed0/compare
WIDE=ppo:results/ppo_gin_rummy/wide_seed0/ppo_gin_rummy_wide_seed0.pt
NARROW=ppo:results/ppo_gin_rummy/run_1800_seed0/ppo_gin_rummy_1800.pt
for seed in 4301 31337 7100003; do
  for o in simple marjj; do
    for m in wide narrow; do
      spec=$([ $m = wide ] && echo $WIDE || echo $NARROW)
      $H evaluate "$spec" $o --rules eaai --games 2000 --seed $seed -q --out "$OUT/$m-vs-$o-$seed" > /dev/null
    done
  done
done
$H evaluate "$WIDE" "$NARROW" --rules eaai --games 2000 --seed 20261207 -q --out "$OUT/head_to_head" > /dev/null
