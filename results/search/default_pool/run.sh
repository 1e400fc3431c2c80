#!/bin/bash
# the default search (two opponent models pooled: rollout=simple+patient, own_rollout=simple,
# combine=pool): a second seed against marjj, and the shipped PPO against it (the seed of the
# README's figure against the previous default), one chain per core; the other figures of the
# default are in results/search/combine/ (pool_*), made with these knobs spelled out
set -e
cd "$(dirname "$0")/../../.."
O=results/search/default_pool
taskset -c 0 .venv/bin/hollywood evaluate search marjj --matches 400 --seed 7103 -q --out $O/search_vs_marjj_7103 &
taskset -c 1 .venv/bin/hollywood evaluate ppo-hollywood-v1 search --matches 400 --seed 24003 -q --out $O/ppo_hollywood_vs_search_24003 &
wait
# a third seed against simple and against marjj
taskset -c 0 .venv/bin/hollywood evaluate search simple --matches 400 --seed 7101 -q --out $O/search_vs_simple_7101 &
taskset -c 1 .venv/bin/hollywood evaluate search marjj --matches 400 --seed 7203 -q --out $O/search_vs_marjj_7203 &
wait
# the base policy alone against marjj on the same deals (seconds each)
for s in 7303 7103 7203; do
  .venv/bin/hollywood evaluate ppo-hollywood-v1 marjj --matches 400 --seed $s -q --out $O/ppo_hollywood_vs_marjj_$s
done
# a second seed against hollywood, fourth seeds against simple and marjj, one core
taskset -c 0 .venv/bin/hollywood evaluate search hollywood --matches 400 --seed 7202 -q --out $O/search_vs_hollywood_7202
taskset -c 0 .venv/bin/hollywood evaluate search simple --matches 400 --seed 7401 -q --out $O/search_vs_simple_7401
taskset -c 0 .venv/bin/hollywood evaluate search marjj --matches 400 --seed 7401 -q --out $O/search_vs_marjj_7401
