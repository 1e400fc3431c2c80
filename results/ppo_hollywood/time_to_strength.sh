#!/usr/bin/env bash
# The README's time-to-strength figure: match win rate against simple over CPU-minutes of training,
# the flagship (configs/ppo_hollywood.yaml, read from its run folder) beside the first flagship
# (configs/ppo_hollywood_v1.yaml, whose run folder is gone: its points as measured then) and the
# config before imitation. The last point of each flagship is its shipped model's 2,000 matches.
set -euo pipefail
RUN=${1:?usage: time_to_strength.sh RUN_FOLDER   (runs/ppo_hollywood__0__<time> of the flagship)}
V1="first flagship: 256 x 256, 3 epochs (configs/ppo_hollywood_v1.yaml)"
NOW="flagship: 128 x 128, 1 epoch, 10x the data (configs/ppo_hollywood.yaml)"
.venv/bin/python -m experiments.research.time_to_strength "$RUN" --label "$NOW" --point "$NOW=184:0.737:2000" \
  --point "$V1=15.3:0.655:200" --point "$V1=35.5:0.740:200" --point "$V1=66.5:0.645:200" \
  --point "$V1=91.2:0.765:200" --point "$V1=120.6:0.635:200" --point "$V1=136.5:0.725:200" \
  --point "$V1=154.4:0.755:200" --point "$V1=171.3:0.705:200" --point "$V1=172.0:0.741:2000" \
  --point "previous config (no imitation), final=50:0.583:2000" \
  --bot simple --cores 2 --out results/ppo_hollywood/time_to_strength.png --json results/ppo_hollywood/time_to_strength.json
