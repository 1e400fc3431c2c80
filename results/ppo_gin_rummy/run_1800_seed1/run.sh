#!/usr/bin/env bash
# The second training seed of the 128-unit recipe: configs/ppo_gin_rummy_1800.yaml, seed 1 (1,800
# updates, two worker processes on 2 cores), measured as seed 0 is: its card here
# (ppo_gin_rummy_1800_seed1.md: 2,000 games to 100 against simple and marjj, seed 20261129) and 200
# games against search (seeds 4301 and 4401, vs_search/ and vs_search_4401/). The run's config and metrics are kept here too.
#   bash results/ppo_gin_rummy/run_1800_seed1/run.sh            (trains: about 75 minutes on 2 idle cores)
#   RUN=runs/ppo_gin_rummy_1800__1__<time> bash results/ppo_gin_rummy/run_1800_seed1/run.sh   (a finished run)
set -euo pipefail
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/run_1800_seed1
[ -n "${RUN:-}" ] || { $H train configs/ppo_gin_rummy_1800.yaml --seed 1; RUN=$(ls -d runs/ppo_gin_rummy_1800__1__* | tail -1); }
cp "$RUN/config.yaml" "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
$H ship "$RUN" ppo_gin_rummy_1800_seed1 --models-dir $OUT --config configs/ppo_gin_rummy_1800.yaml --opponents simple marjj
$H evaluate "ppo:$OUT/ppo_gin_rummy_1800_seed1.pt" search --rules eaai --games 200 --seed 4301 -q --out $OUT/vs_search > /dev/null
$H evaluate "ppo:$OUT/ppo_gin_rummy_1800_seed1.pt" search --rules eaai --games 200 --seed 4401 -q --out $OUT/vs_search_4401 > /dev/null
