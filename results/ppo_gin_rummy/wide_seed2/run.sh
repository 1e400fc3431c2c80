#!/usr/bin/env bash
# The third training seed of the wide recipe, configs/ppo_gin_rummy_wide.yaml (2 x 256 hidden
# units), seed 2, measured as seeds 0 and 1 are: its card here (ppo_gin_rummy_wide_seed2.md: 2,000
# games to 100 against simple and marjj, seed 20261129), 2,000 games against simple and marjj on
# each of the evaluation seeds of ../wide_seed0/compare.sh (compare/), and 200 games against search
# on each of seeds 4301 and 4401 (vs_search/, vs_search_4401/). Then the ensembles it makes with
# the other two seeds, as ppo-gin-rummy's two are measured (../ensemble_wide/): the three as one
# agent and seed 2 with each of the others, 2,000 games against simple and marjj on each of the
# four evaluation seeds (ensembles/<seeds>-<opponent>-<seed>/).
#   bash results/ppo_gin_rummy/wide_seed2/run.sh        (trains: about 100 minutes on 2 idle cores)
#   RUN=runs/ppo_gin_rummy_wide__2__<time> bash results/ppo_gin_rummy/wide_seed2/run.sh   (a finished run)
#   MEASURE_ONLY=1 bash results/ppo_gin_rummy/wide_seed2/run.sh   (the model file kept here)
#   python results/ppo_gin_rummy/wide_seed2/table.py   prints the table of docs/results.md
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/wide_seed2
if [ -z "${MEASURE_ONLY:-}" ]; then  # MEASURE_ONLY=1: measure the model file kept here, without training
  [ -n "${RUN:-}" ] || { $H train configs/ppo_gin_rummy_wide.yaml --seed 2; RUN=$(ls -d runs/ppo_gin_rummy_wide__2__* | tail -1); }
  cp "$RUN/config.yaml" "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
  $H ship "$RUN" ppo_gin_rummy_wide_seed2 --models-dir $OUT --config configs/ppo_gin_rummy_wide.yaml --opponents simple marjj
fi
S0=results/ppo_gin_rummy/wide_seed0/ppo_gin_rummy_wide_seed0.pt
S1=results/ppo_gin_rummy/wide_seed1/ppo_gin_rummy_wide_seed1.pt
S2=$OUT/ppo_gin_rummy_wide_seed2.pt
for seed in 4301 31337 7100003; do
  for o in simple marjj; do
    $H evaluate "ppo:$S2" $o --rules eaai --games 2000 --seed $seed -q --out "$OUT/compare/vs-$o-$seed" > /dev/null
  done
done
for ens in "0+1+2:$S0+$S1+$S2" "0+2:$S0+$S2" "1+2:$S1+$S2"; do
  name=${ens%%:*}; spec=${ens#*:}
  for seed in 20261129 4301 31337 7100003; do
    for o in simple marjj; do
      $H evaluate "ppo-ensemble:$spec" $o --rules eaai --games 2000 --seed $seed -q \
        --out "$OUT/ensembles/$name-$o-$seed" > /dev/null
    done
  done
done
$H evaluate "ppo:$S2" search --rules eaai --games 200 --seed 4301 -q --out $OUT/vs_search > /dev/null
$H evaluate "ppo:$S2" search --rules eaai --games 200 --seed 4401 -q --out $OUT/vs_search_4401 > /dev/null
