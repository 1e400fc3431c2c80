#!/bin/bash
# The search valued in match terms: value=equity (the change of the match-win equity of
# models/equity_hollywood.pt, in percentage points; prior 0.5, about one hand point in mid-match),
# the default knobs otherwise, on the deals of the default's runs (results/search/combine/pool_*,
# results/search/default_pool/): 400 matches, one process per core.
# Usage: results/search/equity/run.sh
set -e
cd "$(dirname "$0")/../../.."
OUT=results/search/equity
S="search:value=equity,prior=0.5"
taskset -c 0 .venv/bin/hollywood evaluate $S marjj --matches 400 --seed 7303 -q --out $OUT/vs_marjj_7303 &
taskset -c 1 .venv/bin/hollywood evaluate $S simple --matches 400 --seed 7301 -q --out $OUT/vs_simple_7301 &
wait
# more seeds against marjj (the default there: 50.7% and 51.0%)
taskset -c 0 .venv/bin/hollywood evaluate $S marjj --matches 400 --seed 7103 -q --out $OUT/vs_marjj_7103 &
taskset -c 1 .venv/bin/hollywood evaluate $S marjj --matches 400 --seed 7203 -q --out $OUT/vs_marjj_7203 &
wait
# against simple and hollywood on the default's second-seed deals (the default there: 78.8%, 70.2%)
taskset -c 0 .venv/bin/hollywood evaluate $S simple --matches 400 --seed 7201 -q --out $OUT/vs_simple_7201 &
taskset -c 1 .venv/bin/hollywood evaluate $S hollywood --matches 400 --seed 7102 -q --out $OUT/vs_hollywood_7102 &
wait
# against simple on the default's remaining deals (the default there: 79.5%, 78.5%), completing 1,600 paired matches
taskset -c 0 .venv/bin/hollywood evaluate $S simple --matches 400 --seed 7101 -q --out $OUT/vs_simple_7101 &
taskset -c 1 .venv/bin/hollywood evaluate $S simple --matches 400 --seed 7401 -q --out $OUT/vs_simple_7401 &
wait
