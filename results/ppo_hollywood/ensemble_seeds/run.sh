#!/usr/bin/env bash
# The two training seeds of the Hollywood flagship's recipe (configs/ppo_hollywood.yaml: seed 0,
# shipped as ppo-hollywood, and seed 1, ../shipped/seed1/) as one agent, `ppo-ensemble:A+B` (the
# mean of the two networks' log-probabilities), against simple and marjj: 2,000 matches each on
# the cards' evaluation seed 20261129 and on seeds 4301 and 900001, beside seed 0 alone on the
# same deals. Writes <agent>-<opponent>-<seed>/evaluate.{json,md};
#   bash results/ppo_hollywood/ensemble_seeds/run.sh      (about 6 minutes on 2 cores)
#   python results/ppo_hollywood/ensemble_seeds/table.py  prints the table of docs/results.md
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_hollywood/ensemble_seeds
ENS=ppo-ensemble:models/ppo_hollywood.pt+results/ppo_hollywood/shipped/seed1/ppo_hollywood_seed1.pt
for seed in 20261129 4301 900001; do
  for o in simple marjj; do
    $H evaluate "$ENS" $o --matches 2000 --seed $seed -q --out "$OUT/both-$o-$seed" > /dev/null
    $H evaluate ppo-hollywood $o --matches 2000 --seed $seed -q --out "$OUT/seed0-$o-$seed" > /dev/null
  done
done
