#!/bin/bash
# how a search with two opponent models (simple, patient; the searcher's own seat played by simple)
# combines their advantages over the base move: guard (clearly better against simple, no worse on
# average against patient) and pool (one model drawn at random); 200-match screens on the seeds of
# results/search/opponent_models/screens (min: 77.5% against simple, 54.0% against marjj)
set -e
cd "$(dirname "$0")/../../.."
OUT=results/search/combine/screens
ev() { taskset -c $1 .venv/bin/hollywood evaluate "$2" $3 --matches 200 --seed $4 -q --out $OUT/$5; }
S="search:rollout=simple+patient,own_rollout=simple"
(ev 0 "$S,combine=guard" marjj 23103 guard_vs_marjj; ev 0 "$S,combine=pool" marjj 23103 pool_vs_marjj) &
(ev 1 "$S,combine=guard" simple 23101 guard_vs_simple; ev 1 "$S,combine=pool" simple 23101 pool_vs_simple) &
wait
# 400 matches of pool, then of sheet (pooled, except against an opponent whose wins show it knocks
# early, whom simple alone plays), on the deals of the default's figures (results/search/opponent_models:
# simple alone won 47.5% against marjj on 7303, 81.5% against simple on 7301; docs/agents.md: 77.5%
# on 7201, 69.5% against hollywood on 7102), one chain per core (sheet's last two were not run)
O=results/search/combine
for c in pool sheet; do
  (taskset -c 0 .venv/bin/hollywood evaluate "$S,combine=$c" marjj --matches 400 --seed 7303 -q --out $O/${c}_vs_marjj_7303
   taskset -c 0 .venv/bin/hollywood evaluate "$S,combine=$c" hollywood --matches 400 --seed 7102 -q --out $O/${c}_vs_hollywood_7102) &
  (taskset -c 1 .venv/bin/hollywood evaluate "$S,combine=$c" simple --matches 400 --seed 7301 -q --out $O/${c}_vs_simple_7301
   taskset -c 1 .venv/bin/hollywood evaluate "$S,combine=$c" simple --matches 400 --seed 7201 -q --out $O/${c}_vs_simple_7201) &
  wait
done
