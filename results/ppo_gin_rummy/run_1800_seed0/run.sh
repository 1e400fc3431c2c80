#!/usr/bin/env bash
# The 128-unit recipe: configs/ppo_gin_rummy_1800.yaml, seed 0 (1,800 updates, two worker
# processes on 2 cores; it was trained in two sittings, resumed at update 526 from its checkpoint).
# Then its card's evaluations (2,000 games to 100 against simple and marjj, seed 20261129) and
# 200 games against search on each of seeds 4301 and 4401; the run's config and metrics are kept here.
set -euo pipefail
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/run_1800_seed0
$H train configs/ppo_gin_rummy_1800.yaml --seed 0
RUN=$(ls -d runs/ppo_gin_rummy_1800__0__* | tail -1)
cp "$RUN/config.yaml" "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
$H ship "$RUN" ppo_gin_rummy_1800 --models-dir $OUT --config configs/ppo_gin_rummy_1800.yaml --opponents simple marjj
$H evaluate ppo:$OUT/ppo_gin_rummy_1800.pt search --rules eaai --games 200 --seed 4301 -q --out $OUT/vs_search > /dev/null
$H evaluate ppo:$OUT/ppo_gin_rummy_1800.pt search --rules eaai --games 200 --seed 4401 -q --out $OUT/vs_search_4401 > /dev/null
