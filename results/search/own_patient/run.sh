#!/bin/bash
# The default search with the searcher's own seat in the rollouts played by patient (who waits
# for gin, as the base policy does) instead of simple (who knocks as soon as it may): 200-match
# screen against marjj on the seed of results/search/combine/screens/ (the default there: 63.5%).
# It won less, at more cost, so its run against simple was not made.
# Usage: results/search/own_patient/run.sh [CORE]
set -e
cd "$(dirname "$0")/../../.."
OUT=results/search/own_patient/screens
C=${1:-0}
taskset -c $C .venv/bin/hollywood evaluate search:own_rollout=patient marjj --matches 200 --seed 23103 -q --out $OUT/vs_marjj
