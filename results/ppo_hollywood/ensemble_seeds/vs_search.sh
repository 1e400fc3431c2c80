#!/usr/bin/env bash
# The flagship's two training seeds as one agent against search (default budget), 400 matches on
# each of the seeds of ppo-hollywood's own figures, 24003 and 24103 (vs_search_<seed>/).
#   bash results/ppo_hollywood/ensemble_seeds/vs_search.sh        (about 30 minutes on one core)
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_hollywood/ensemble_seeds
ENS=ppo-ensemble:models/ppo_hollywood.pt+results/ppo_hollywood/shipped/seed1/ppo_hollywood_seed1.pt
for s in 24003 24103; do
  $H evaluate "$ENS" search --matches 400 --seed $s -q --out $OUT/vs_search_$s > /dev/null
done
