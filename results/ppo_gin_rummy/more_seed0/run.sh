#!/usr/bin/env bash
# The 128-unit 1,800-update model trained on for 450 updates (configs/ppo_gin_rummy_more.yaml,
# seed 0), then evaluated as the card (2,000 games to 100 against simple and marjj, seed 20261129).
set -euo pipefail
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/more_seed0
$H train configs/ppo_gin_rummy_more.yaml --seed 0
RUN=$(ls -d runs/ppo_gin_rummy_more__0__* | tail -1)
cp "$RUN/config.yaml" "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
for o in simple marjj; do
  $H evaluate "ppo:$RUN/checkpoints/latest.pt" $o --rules eaai --games 2000 --seed 20261129 -q --out $OUT/vs_$o > /dev/null
done
