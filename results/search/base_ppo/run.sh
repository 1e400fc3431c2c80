#!/bin/bash
# search with the shipped PPO as its base policy, against the three bots (400 matches each)
set -e
cd "$(dirname "$0")/../../.."
for opp in simple:23101 marjj:23103 hollywood:23102; do
  o=${opp%%:*}; s=${opp##*:}
  .venv/bin/hollywood evaluate search:base=ppo-hollywood-v1,rollout=simple,own_rollout= $o --matches 400 --seed $s -q --out results/search/base_ppo/vs_$o
  .venv/bin/hollywood evaluate ppo-hollywood-v1 $o --matches 400 --seed $s -q --out results/search/base_ppo/ppo_vs_$o
done
