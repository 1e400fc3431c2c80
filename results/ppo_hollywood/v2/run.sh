#!/usr/bin/env bash
# The flagship config (configs/ppo_hollywood.yaml), training seed 0, shipped as ppo-hollywood:
# its card's evaluations (2,000 matches against each bot, seed 20261129), then 400 matches
# against the search agent at its default budget on two seeds (one core each, side by side),
# and 2,000 against the first flagship.
set -euo pipefail
RUN=${1:?usage: run.sh RUN_FOLDER   (runs/ppo_hollywood__0__<time>)}
OUT=results/ppo_hollywood/v2
.venv/bin/hollywood ship "$RUN" ppo_hollywood --config configs/ppo_hollywood.yaml --opponents simple hollywood marjj
taskset -c 0 .venv/bin/hollywood evaluate ppo-hollywood search --matches 400 --seed 24003 -q --out $OUT/vs_search_24003 &
taskset -c 1 .venv/bin/hollywood evaluate ppo-hollywood search --matches 400 --seed 24103 -q --out $OUT/vs_search_24103
wait
# head to head against the first flagship
.venv/bin/hollywood evaluate ppo-hollywood ppo-hollywood-v1 --matches 2000 --seed 20261205 --reward hand -q --out $OUT/vs_v1
