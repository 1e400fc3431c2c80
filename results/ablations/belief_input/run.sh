#!/bin/bash
# The belief-input comparison: the first flagship config (configs/ppo_hollywood_v1.yaml: imitation of
# marjj, then PPO) shortened to 64 updates (4.2M decisions stepped), trained twice side by side
# on the same machine with the same training seed, one process and one core each (local
# collector, one torch thread), the only difference ppo.belief_input: with it the network also
# reads the learned belief's 52 probabilities (models/belief_hollywood.pt). Same decisions for
# both; each run's wall time is in its meta.yaml. Then each final checkpoint is evaluated on
# seeds never used in training.
# Usage: results/ablations/belief_input/run.sh [SEED]
set -e
cd "$(dirname "$0")/../../.."
SEED=${1:-0}
OUT=results/ablations/belief_input
common="--seed $SEED --total_steps 4194304 --torch_threads 1 --collector.kind local
  --league.snapshot_every 8 --eval.every 32 --eval.pairs 50 --eval.bots simple
  --log.checkpoint_every 16 --log.root runs/belief_input"
core=0
for b in false true; do
  taskset -c $core .venv/bin/hollywood train configs/ppo_hollywood_v1.yaml $common --ppo.belief_input $b \
    --log.name belief_$b > $OUT/train_belief_${b}_seed$SEED.log 2>&1 &
  core=$((1 - core))
done
wait
for b in false true; do
  run=$(ls -d runs/belief_input/belief_${b}__${SEED}__* | tail -1)
  mkdir -p $OUT/belief_${b}_seed$SEED
  cp $run/config.yaml $run/meta.yaml $run/metrics.jsonl $OUT/belief_${b}_seed$SEED/
  for opp in simple:27101 hollywood:27102; do
    o=${opp%%:*}; s=${opp##*:}
    .venv/bin/hollywood evaluate ppo:$run/checkpoints/latest.pt $o --matches 400 --seed $s -q \
      --out $OUT/belief_${b}_seed${SEED}_vs_$o
  done
done
