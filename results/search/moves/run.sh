#!/bin/bash
# 200-match screens on the seed of results/search/combine/screens/ against marjj (23103; the
# default there: 63.5%): the default search with knocks searched as well as discards
# (moves=knocks), and with patient alone as the opponent model (rollout=patient). Both lost to
# the default by 10-20 points, so their runs against simple were not made.
# Usage: results/search/moves/run.sh
set -e
cd "$(dirname "$0")/../../.."
OUT=results/search/moves/screens
ev() { taskset -c $1 .venv/bin/hollywood evaluate "$2" $3 --matches 200 --seed $4 -q --out $OUT/$5; }
ev 0 search:moves=knocks marjj 23103 knocks_vs_marjj
ev 0 search:rollout=patient marjj 23103 patient_vs_marjj
