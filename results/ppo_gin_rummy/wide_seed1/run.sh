#!/usr/bin/env bash
# The second training seed of the shipped recipe, configs/ppo_gin_rummy_wide.yaml (2 x 256 hidden
# units), seed 1, to be measured as seed 0 is: its card here (ppo_gin_rummy_wide_seed1.md: 2,000
# games to 100 against simple and marjj, seed 20261129) and 200 games against search on each of
# seeds 4301 and 4401 (vs_search/, vs_search_4401/).
# The run is not finished: run/ holds its folder at update 644 of 1,800 (config, metrics and
# checkpoints/latest.pt: the policy, optimizer and league there). This script continues it in
# runs/ from there to update 1,800 (about 65 more minutes on 2 idle cores), then measures it.
#   bash results/ppo_gin_rummy/wide_seed1/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/wide_seed1
RUN=runs/ppo_gin_rummy_wide__1__20261207-094106
[ -d "$RUN" ] || { mkdir -p runs && cp -r "$OUT/run" "$RUN"; }
$H train --resume "$RUN"
cp "$RUN/config.yaml" "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
$H ship "$RUN" ppo_gin_rummy_wide_seed1 --models-dir $OUT --config configs/ppo_gin_rummy_wide.yaml --opponents simple marjj
$H evaluate "ppo:$OUT/ppo_gin_rummy_wide_seed1.pt" search --rules eaai --games 200 --seed 4301 -q --out $OUT/vs_search > /dev/null
$H evaluate "ppo:$OUT/ppo_gin_rummy_wide_seed1.pt" search --rules eaai --games 200 --seed 4401 -q --out $OUT/vs_search_4401 > /dev/null
