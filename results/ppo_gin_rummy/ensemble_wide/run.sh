#!/usr/bin/env bash
# The two training seeds of the wide recipe (configs/ppo_gin_rummy_wide.yaml, seeds 0 and 1) as one
# agent, `ppo-ensemble:A+B` (the mean of the two networks' log-probabilities), shipped as
# models/ppo_gin_rummy.pt (ppo-gin-rummy; its card: 2,000 games against simple and marjj, seed
# 20261129), and measured on the games of
# ../wide_seed0/compare.sh: 2,000 games to 100 against simple and marjj on each of four evaluation
# seeds, 200 games against search on each of seeds 4301 and 4401, and 2,000 against each member.
# Writes <opponent>-<seed>/evaluate.{json,md};
#   bash results/ppo_gin_rummy/ensemble_wide/run.sh       (about 6 minutes, then 15 for search, on 2 cores)
#   python results/ppo_gin_rummy/ensemble_wide/table.py   prints the table of docs/results.md
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/ensemble_wide
SEED0=results/ppo_gin_rummy/wide_seed0/ppo_gin_rummy_wide_seed0.pt
SEED1=results/ppo_gin_rummy/wide_seed1/ppo_gin_rummy_wide_seed1.pt
ENS=ppo-ensemble:$SEED0+$SEED1
$H ship $SEED0 $SEED1 ppo_gin_rummy --config configs/ppo_gin_rummy_wide.yaml --opponents simple marjj \
  --note "The training time of seed 1 is the wall time from its start to its end: its run was stopped and resumed from a checkpoint, and the pause counts." > /dev/null
for seed in 20261129 4301 31337 7100003; do
  for o in simple marjj; do
    $H evaluate "$ENS" $o --rules eaai --games 2000 --seed $seed -q --out "$OUT/$o-$seed" > /dev/null
  done
done
$H evaluate "$ENS" "ppo:$SEED0" --rules eaai --games 2000 --seed 20261207 -q --out "$OUT/seed0-20261207" > /dev/null
$H evaluate "$ENS" "ppo:$SEED1" --rules eaai --games 2000 --seed 20261207 -q --out "$OUT/seed1-20261207" > /dev/null
for seed in 4301 4401; do
  $H evaluate "$ENS" search --rules eaai --games 200 --seed $seed -q --out "$OUT/search-$seed" > /dev/null
done
