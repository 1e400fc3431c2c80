#!/usr/bin/env bash
# configs/ppo_gin_rummy_wide.yaml (the EAAI recipe with 2 x 256 hidden units), seed 0: a run in
# progress, kept here as its run folder (config, metrics, checkpoints) so that it continues with
#   bash results/ppo_gin_rummy/wide_seed0/run.sh
# which copies the folder to runs/, resumes it to update 1,800 and then measures it as the shipped
# model is measured (2,000 games to 100 against simple and marjj, seed 20261129).
set -euo pipefail
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/wide_seed0
RUN=runs/$(cat $OUT/run_name)
[ -d "$RUN" ] || { mkdir -p runs; cp -r $OUT "$RUN"; }
$H train --resume "$RUN"
cp "$RUN/config.yaml" "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
for o in simple marjj; do
  $H evaluate "ppo:$RUN/checkpoints/latest.pt" $o --rules eaai --games 2000 --seed 20261129 -q --out $OUT/vs_$o > /dev/null
done
