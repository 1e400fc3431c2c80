#!/usr/bin/env bash
# The first network of the shipped ppo-gin-rummy: configs/ppo_gin_rummy_wide.yaml (2 x 256 hidden
# units, else configs/ppo_gin_rummy_1800.yaml), seed 0: its card here (ppo_gin_rummy_wide_seed0.md:
# 2,000 games to 100 against simple and marjj, seed 20261129) and 200 games against search on each
# of seeds 4301 and 4401 (vs_search/, vs_search_4401/). ../ensemble_wide/run.sh ships it with
# seed 1 as models/ppo_gin_rummy.pt.
# compare.sh measures it beside the 128-unit recipe on more evaluation seeds.
# The run's config and metrics are kept here too.
#   bash results/ppo_gin_rummy/wide_seed0/run.sh            (trains: about 100 minutes on 2 cores)
#   RUN=runs/ppo_gin_rummy_wide__0__<time> bash results/ppo_gin_rummy/wide_seed0/run.sh   (a finished run)
set -euo pipefail
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/wide_seed0
[ -n "${RUN:-}" ] || { $H train configs/ppo_gin_rummy_wide.yaml; RUN=$(ls -d runs/ppo_gin_rummy_wide__0__* | tail -1); }
cp "$RUN/config.yaml" "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
$H ship "$RUN" ppo_gin_rummy_wide_seed0 --models-dir $OUT --config configs/ppo_gin_rummy_wide.yaml --opponents simple marjj
$H evaluate "ppo:$OUT/ppo_gin_rummy_wide_seed0.pt" search --rules eaai --games 200 --seed 4301 -q --out $OUT/vs_search > /dev/null
$H evaluate "ppo:$OUT/ppo_gin_rummy_wide_seed0.pt" search --rules eaai --games 200 --seed 4401 -q --out $OUT/vs_search_4401 > /dev/null
