#!/bin/bash
# search with the shipped PPO as its base and the confidence gate (1.5 standard errors),
# against the three bots and against the PPO itself (400 matches each, one core per chain)
set -e
cd "$(dirname "$0")/../../.."
S="search:base=ppo-hollywood-v1,confidence=1.5,rollout=simple,own_rollout="
OUT=results/search/base_ppo_gated
ev() { taskset -c $1 .venv/bin/hollywood evaluate "$2" $3 --matches 400 --seed $4 -q --out $OUT/$5; }
(ev 0 "$S" simple 7101 vs_simple; ev 0 "$S" marjj 7103 vs_marjj) &
(ev 1 "$S" hollywood 7102 vs_hollywood; ev 1 ppo-hollywood-v1 "$S" 24003 ppo_vs_search) &
wait
# a second seed against simple (then the default spec, `search`, was the same agent as $S)
.venv/bin/hollywood evaluate "$S" simple --matches 400 --seed 7201 -q --out $OUT/vs_simple_seed7201
# the 200-match screens of the gate (results/search/base_ppo_gated/screens/)
.venv/bin/hollywood evaluate "$S" marjj --matches 200 --seed 23103 -q --out $OUT/screens/ppoc15
.venv/bin/hollywood evaluate "$S" simple --matches 200 --seed 23101 -q --out $OUT/screens/ppoc15s
