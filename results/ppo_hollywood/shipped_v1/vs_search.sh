#!/usr/bin/env bash
# The first flagship, ppo-hollywood-v1, against search at its default budget on the matches of
# docs/results.md (seeds 24003 and 24103, 400 matches each), one core each.
#   bash results/ppo_hollywood/shipped_v1/vs_search.sh         (about 18 minutes on 2 cores)
set -euo pipefail
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_hollywood/shipped_v1
taskset -c 0 $H evaluate ppo-hollywood-v1 search --matches 400 --seed 24003 -q --out $OUT/vs_search_24003 > /dev/null &
taskset -c 1 $H evaluate ppo-hollywood-v1 search --matches 400 --seed 24103 -q --out $OUT/vs_search_24103 > /dev/null &
wait
