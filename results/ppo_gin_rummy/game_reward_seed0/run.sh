#!/usr/bin/env bash
# The 128-unit 1,800-update model trained on for 300 updates with the game's result as its reward
# (configs/ppo_gin_rummy_game_reward.yaml, seed 0), shipped here with its card (2,000 games to 100
# against simple and marjj, seed 20261129), then 2,000 games against marjj on the evaluation seed
# 7100003 as well.
#   bash results/ppo_gin_rummy/game_reward_seed0/run.sh      (about 45 minutes on one core)
#   RUN=runs/ppo_gin_rummy_game_reward__0__<time> bash results/ppo_gin_rummy/game_reward_seed0/run.sh
set -euo pipefail
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/game_reward_seed0
CFG=configs/ppo_gin_rummy_game_reward.yaml
[ -n "${RUN:-}" ] || { $H train $CFG --seed 0; RUN=$(ls -d runs/ppo_gin_rummy_game_reward__0__* | tail -1); }
cp "$RUN/config.yaml" "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
$H ship "$RUN" ppo_gin_rummy_game_reward_seed0 --models-dir $OUT --config $CFG --opponents simple marjj
$H evaluate ppo:$OUT/ppo_gin_rummy_game_reward_seed0.pt marjj --rules eaai --games 2000 --seed 7100003 -q \
  --out $OUT/vs_marjj_seed7100003 > /dev/null
