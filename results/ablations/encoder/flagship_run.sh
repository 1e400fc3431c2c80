#!/bin/bash
# The card-plane encoder in the first flagship recipe: configs/ppo_hollywood_v1.yaml (imitation of marjj,
# then PPO) shortened to 64 updates (4.2M decisions stepped), with ppo.encoder conv, exactly as
# the MLP runs of results/ablations/belief_input/ (belief_false_seed*: the same config, flags and
# seeds, the MLP encoder), training seeds 0 and 1 side by side, one process and one core each
# (local collector, one torch thread). Same decisions as those MLP runs; each run's wall time is
# in its metrics.jsonl. Then each final checkpoint is evaluated on the MLP runs' evaluation seeds.
# Usage: results/ablations/encoder/flagship_run.sh SEED [CORE]
set -e
cd "$(dirname "$0")/../../.."
OUT=results/ablations/encoder
common="--total_steps 4194304 --torch_threads 1 --collector.kind local
  --league.snapshot_every 8 --eval.every 32 --eval.pairs 50 --eval.bots simple
  --log.checkpoint_every 16 --log.root runs/encoder_flagship --ppo.encoder conv"
seed=${1:?usage: flagship_run.sh SEED [CORE]}; core=${2:-0}
taskset -c $core .venv/bin/hollywood train configs/ppo_hollywood_v1.yaml $common --seed $seed \
  --log.name conv_flagship > $OUT/train_conv_flagship_seed$seed.log 2>&1
run=$(ls -d runs/encoder_flagship/conv_flagship__${seed}__* | tail -1)
mkdir -p $OUT/conv_flagship_seed$seed
cp $run/config.yaml $run/meta.yaml $run/metrics.jsonl $OUT/conv_flagship_seed$seed/
for opp in simple:27101 hollywood:27102; do
  o=${opp%%:*}; s=${opp##*:}
  taskset -c $core .venv/bin/hollywood evaluate ppo:$run/checkpoints/latest.pt $o --matches 400 --seed $s -q \
    --out $OUT/conv_flagship_seed${seed}_vs_$o
done
