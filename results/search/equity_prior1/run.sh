#!/bin/bash
# A screen of the search valued in match terms with a larger prior (prior=1.0, about two hand
# points in mid-match), on the deals where value=equity,prior=0.5 lost most against simple (7401)
# and gained most against marjj (7103); 400 matches, one process per core.
# Usage: results/search/equity_prior1/run.sh
set -e
cd "$(dirname "$0")/../../.."
OUT=results/search/equity_prior1
S="search:value=equity,prior=1.0"
taskset -c 0 .venv/bin/hollywood evaluate $S simple --matches 400 --seed 7401 -q --out $OUT/vs_simple_7401 &
taskset -c 1 .venv/bin/hollywood evaluate $S marjj --matches 400 --seed 7103 -q --out $OUT/vs_marjj_7103 &
wait
# the same deals with prior 0.5 and a lower confidence gate (1.0 standard errors instead of 1.5)
S="search:value=equity,prior=0.5,confidence=1.0"
taskset -c 0 .venv/bin/hollywood evaluate $S simple --matches 400 --seed 7401 -q --out $OUT/conf1_vs_simple_7401 &
taskset -c 1 .venv/bin/hollywood evaluate $S marjj --matches 400 --seed 7103 -q --out $OUT/conf1_vs_marjj_7103 &
wait
