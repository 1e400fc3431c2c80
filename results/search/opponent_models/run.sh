#!/bin/bash
# search with two opponent models in its rollouts (simple, and patient: marjj's upcards and
# knocks with simple's discards), a candidate replacing the base move only if it is clearly better
# against both; 200-match screens on the seeds of results/search/base_ppo_gated/screens/ (the default
# search there: 81.5% against simple, 52.5% against marjj), one chain per core
set -e
cd "$(dirname "$0")/../../.."
OUT=results/search/opponent_models/screens
ev() { taskset -c $1 .venv/bin/hollywood evaluate "$2" $3 --matches 200 --seed $4 -q --out $OUT/$5; }
A="search:rollout=simple+patient,own_rollout=,combine=min"
B="search:rollout=simple+patient,own_rollout=simple,combine=min"
(ev 0 "$A" marjj 23103 simple_patient_vs_marjj; ev 0 "$B" marjj 23103 simple_patient_own_simple_vs_marjj) &
(ev 1 "$A" simple 23101 simple_patient_vs_simple; ev 1 "$B" simple 23101 simple_patient_own_simple_vs_simple) &
wait
# 400 matches, the variant with only the opponent waiting for gin against the default on the same
# deals (seeds 7303 against marjj, 7301 against simple), one chain per core
O=results/search/opponent_models
(taskset -c 0 .venv/bin/hollywood evaluate "$B" marjj --matches 400 --seed 7303 -q --out $O/own_simple_vs_marjj_7303
 taskset -c 0 .venv/bin/hollywood evaluate "$B" simple --matches 400 --seed 7301 -q --out $O/own_simple_vs_simple_7301) &
(taskset -c 1 .venv/bin/hollywood evaluate search:rollout=simple,own_rollout= marjj --matches 400 --seed 7303 -q --out $O/default_vs_marjj_7303
 taskset -c 1 .venv/bin/hollywood evaluate search:rollout=simple,own_rollout= simple --matches 400 --seed 7301 -q --out $O/default_vs_simple_7301) &
wait
