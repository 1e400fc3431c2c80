#!/bin/bash
# The default search with the searcher's own seat in the rollouts played by patient (who waits
# for gin, as the base policy does) instead of simple (who knocks as soon as it may): 200-match
# screens on the seeds of results/search/combine/screens/ (the default there: 78.0% against
# simple, 63.5% against marjj)
# Usage: results/search/own_patient/run.sh [CORE]
set -e
cd "$(dirname "$0")/../../.."
OUT=results/search/own_patient/screens
C=${1:-0}
taskset -c $C .venv/bin/hollywood evaluate search:own_rollout=patient marjj --matches 200 --seed 23103 -q --out $OUT/vs_marjj
taskset -c $C .venv/bin/hollywood evaluate search:own_rollout=patient simple --matches 200 --seed 23101 -q --out $OUT/vs_simple
