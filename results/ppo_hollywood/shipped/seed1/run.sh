#!/usr/bin/env bash
# The flagship config (configs/ppo_hollywood.yaml), training seed 1: the card's evaluations as
# for seed 0 (2,000 matches against each bot, seed 20261129), then 400 matches against the
# search agent at its default budget on the first two of seed 0's seeds (one core each).
#   .venv/bin/hollywood train configs/ppo_hollywood.yaml --seed 1
#   results/ppo_hollywood/shipped/seed1/run.sh runs/ppo_hollywood__1__<time>
set -euo pipefail
RUN=${1:?usage: run.sh RUN_FOLDER   (runs/ppo_hollywood__1__<time>)}
OUT=results/ppo_hollywood/shipped/seed1
.venv/bin/hollywood ship "$RUN" ppo_hollywood_seed1 --config configs/ppo_hollywood.yaml --models-dir $OUT \
  --opponents simple hollywood marjj --matches 2000
taskset -c 0 .venv/bin/hollywood evaluate ppo:$OUT/ppo_hollywood_seed1.pt search --matches 400 --seed 24003 -q --out $OUT/vs_search_24003 &
taskset -c 1 .venv/bin/hollywood evaluate ppo:$OUT/ppo_hollywood_seed1.pt search --matches 400 --seed 24103 -q --out $OUT/vs_search_24103
wait
