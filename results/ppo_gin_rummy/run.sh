#!/usr/bin/env bash
# The EAAI-game PPO at 500 updates (configs/ppo_gin_rummy.yaml), training seeds 0 and 1. Seed 0
# gets a card (seed0/ppo_gin_rummy_500.md): its evaluations (2,000 games to 100 against simple and marjj, seed
# 20261129); seed 1 is evaluated the same way from its run folder; then each against the search
# agent (200 games, seed 4301), and each run's config and metrics are kept here.
# Usage: results/ppo_gin_rummy/run.sh RUN_SEED0 RUN_SEED1   (runs/ppo_gin_rummy__<seed>__<time>)
set -euo pipefail
RUN0=${1:?usage: run.sh RUN_SEED0 RUN_SEED1}
RUN1=${2:?usage: run.sh RUN_SEED0 RUN_SEED1}
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy
for s in 0 1; do
  run=$([ $s = 0 ] && echo "$RUN0" || echo "$RUN1")
  mkdir -p $OUT/seed$s && cp "$run/config.yaml" "$run/metrics.jsonl" $OUT/seed$s/
done
taskset -c 0 $H ship "$RUN0" ppo_gin_rummy_500 --models-dir $OUT/seed0 --config configs/ppo_gin_rummy.yaml \
  --opponents simple marjj &
for o in simple marjj; do
  taskset -c 1 $H evaluate "ppo:$RUN1/checkpoints/latest.pt" $o --rules eaai --games 2000 --seed 20261129 -q \
    --out $OUT/seed1/vs_$o > /dev/null
done
wait
taskset -c 0 $H evaluate ppo:$OUT/seed0/ppo_gin_rummy_500.pt search --rules eaai --games 200 --seed 4301 -q --out $OUT/seed0/vs_search > /dev/null &
taskset -c 1 $H evaluate "ppo:$RUN1/checkpoints/latest.pt" search --rules eaai --games 200 --seed 4301 -q \
  --out $OUT/seed1/vs_search > /dev/null
wait
