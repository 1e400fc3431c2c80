#!/bin/bash
# The encoder ablation at equal wall time: configs/ppo_encoder_mlp.yaml and
# configs/ppo_encoder_conv.yaml trained side by side on the same machine (one process each,
# local collector, same training seed), both stopped with SIGINT after the same wall time
# (MINUTES), then each evaluated on an evaluation seed never used in training.
# Usage: results/ablations/encoder/run.sh [MINUTES] [SEED]
set -e
cd "$(dirname "$0")/../../.."
MINUTES=${1:-25}; SEED=${2:-0}
OUT=results/ablations/encoder
pids=()
for enc in mlp conv; do
  .venv/bin/hollywood train configs/ppo_encoder_$enc.yaml --seed $SEED --collector.kind local \
    --log.root runs/encoder > $OUT/train_$enc.log 2>&1 &
  pids+=($!)
done
sleep $((MINUTES * 60))
for p in "${pids[@]}"; do kill -INT $p 2>/dev/null || true; done
wait || true
for enc in mlp conv; do
  run=$(ls -d runs/encoder/ppo_encoder_${enc}__${SEED}__* | tail -1)
  echo "$enc $run" >> $OUT/runs.txt
  for opp in simple:26101 hollywood:26102; do
    o=${opp%%:*}; s=${opp##*:}
    .venv/bin/hollywood evaluate ppo:$run/checkpoints/latest.pt $o --matches 400 --seed $s -q \
      --out $OUT/${enc}_seed${SEED}_vs_$o
  done
done
