#!/usr/bin/env bash
# The flagship config (configs/ppo_hollywood.yaml), training seed 0, shipped as ppo-hollywood:
# its card's evaluations (2,000 matches against each bot, seed 20261129), then 400 matches
# against the search agent at its default budget on four seeds (two at a time, one core each),
# a second evaluation seed against the bots and 2,000 matches against the first flagship.
set -euo pipefail
RUN=${1:?usage: run.sh RUN_FOLDER   (runs/ppo_hollywood__0__<time>)}
OUT=results/ppo_hollywood/shipped
.venv/bin/hollywood ship "$RUN" ppo_hollywood --config configs/ppo_hollywood.yaml --opponents simple hollywood marjj
taskset -c 0 .venv/bin/hollywood evaluate ppo-hollywood search --matches 400 --seed 24003 -q --out $OUT/vs_search_24003 &
taskset -c 1 .venv/bin/hollywood evaluate ppo-hollywood search --matches 400 --seed 24103 -q --out $OUT/vs_search_24103
wait
# two more seeds against search, and a second evaluation seed against the bots
taskset -c 0 .venv/bin/hollywood evaluate ppo-hollywood search --matches 400 --seed 24203 -q --out $OUT/vs_search_24203 &
taskset -c 1 .venv/bin/hollywood evaluate ppo-hollywood search --matches 400 --seed 24303 -q --out $OUT/vs_search_24303
wait
for o in simple hollywood; do
  .venv/bin/hollywood evaluate ppo-hollywood $o --matches 2000 --seed 20261206 --reward hand -q --out $OUT/vs_${o}_20261206
done
# head to head against the first flagship
.venv/bin/hollywood evaluate ppo-hollywood ppo-hollywood-v1 --matches 2000 --seed 20261205 --reward hand -q --out $OUT/vs_v1
