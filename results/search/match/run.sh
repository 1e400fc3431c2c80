#!/bin/bash
# The search valued by match equity only against an opponent whose scoresheet shows it waits for
# gin (value=match: at least 2 hands won at 25 or more points per hand on average), by hand points
# otherwise, the default knobs otherwise, on the deals where value=equity gained most against
# marjj (7103) and lost most against simple (7401) (results/search/equity/): 400 matches each.
# Usage: results/search/match/run.sh
set -e
cd "$(dirname "$0")/../../.."
OUT=results/search/match
S="search:value=match"
.venv/bin/hollywood evaluate $S marjj --matches 400 --seed 7103 -q --out $OUT/vs_marjj_7103 &
.venv/bin/hollywood evaluate $S simple --matches 400 --seed 7401 -q --out $OUT/vs_simple_7401 &
wait
# the default's other deals against marjj (the default there: 51.0%, 56.2%, 55.8%)
.venv/bin/hollywood evaluate $S marjj --matches 400 --seed 7203 -q --out $OUT/vs_marjj_7203 &
.venv/bin/hollywood evaluate $S marjj --matches 400 --seed 7303 -q --out $OUT/vs_marjj_7303 &
wait
# the fourth marjj deals (the default: 55.8%) and the default's other deals against simple (77.2%, 78.8%)
.venv/bin/hollywood evaluate $S marjj --matches 400 --seed 7401 -q --out $OUT/vs_marjj_7401 &
.venv/bin/hollywood evaluate $S simple --matches 400 --seed 7301 -q --out $OUT/vs_simple_7301 &
.venv/bin/hollywood evaluate $S simple --matches 400 --seed 7201 -q --out $OUT/vs_simple_7201 &
wait
# against hollywood on the default's deals (70.2%), and the shipped PPO against it (against the default: 48.0%)
.venv/bin/hollywood evaluate $S hollywood --matches 400 --seed 7102 -q --out $OUT/vs_hollywood_7102 &
.venv/bin/hollywood evaluate ppo-hollywood-v1 $S --matches 400 --seed 24003 -q --out $OUT/ppo_hollywood_vs_search_24003 &
wait
# the shipped PPO against it on a second seed
.venv/bin/hollywood evaluate ppo-hollywood-v1 $S --matches 400 --seed 24103 -q --out $OUT/ppo_hollywood_vs_search_24103
# a fourth seed against simple (the points default's deals of 7101: 79.5%)
.venv/bin/hollywood evaluate $S simple --matches 400 --seed 7101 -q --out $OUT/vs_simple_7101
# a second seed against hollywood (the points default's deals of 7202: 72.0%)
.venv/bin/hollywood evaluate $S hollywood --matches 400 --seed 7202 -q --out $OUT/vs_hollywood_7202
