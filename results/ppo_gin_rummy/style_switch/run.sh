#!/usr/bin/env bash
# How far above 80% of games against simple a player of ours gets, and what knowing the opponent's
# style is worth: a best response to simple at three times the budget of results/exploit/budget.sh
# (60,000,000 decisions from ppo-gin-rummy's first network; about 60 minutes on 2 cores), kept here
# as ppo_gin_rummy_vs_simple.pt; then ppo-gin-rummy with that network taking over once the
# opponent's record shows a player who knocks as soon as it may (switch.py). 2,000 games to 100
# against simple and marjj on each evaluation seed of ../wide_seed0/compare.sh and on seed 555, and
# 200 games against search on seeds 4301 and 4401.
#   bash results/ppo_gin_rummy/style_switch/run.sh                 (trains the best responses: about 2 hours on 2 cores)
#   MEASURE_ONLY=1 bash results/ppo_gin_rummy/style_switch/run.sh  (the model file kept here)
#   python results/ppo_gin_rummy/style_switch/table.py             prints the table of docs/results.md
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/style_switch
BR=$OUT/ppo_gin_rummy_vs_simple.pt
if [ -z "${MEASURE_ONLY:-}" ]; then
  $H exploit simple --rules eaai --start ppo-gin-rummy --decisions 60000000 --games 2000 --seed 0 \
    --out $OUT/best_response -q
  RUN=$(ls -d runs/exploit-simple__0__* | tail -1)
  cp "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
  { echo "# The resolved config of the best response to simple in run.sh (hollywood exploit simple --rules eaai"
    echo "# --start ppo-gin-rummy --decisions 60000000 --seed 0): \`hollywood train\` on this file trains it again."
    cat "$RUN/config.yaml"; } > $OUT/config.yaml
  $H ship "$RUN" ppo_gin_rummy_vs_simple --models-dir $OUT --config $OUT/config.yaml --opponents simple marjj \
    --note "A best response to simple: trained against simple alone, from the first network of ppo-gin-rummy (hollywood exploit)."
fi
for seed in 20261129 4301 31337 7100003 555; do
  for o in simple marjj; do
    $H evaluate "ppo:$BR" $o --rules eaai --games 2000 --seed $seed -q --out "$OUT/best_response-$o-$seed" > /dev/null
    $H evaluate $OUT/switch.py:make $o --rules eaai --games 2000 --seed $seed -q --out "$OUT/switch-$o-$seed" > /dev/null
  done
done
for o in simple marjj; do  # the shipped pair on the fifth seed (the other four: ../ensemble_wide/)
  $H evaluate ppo-gin-rummy $o --rules eaai --games 2000 --seed 555 -q --out "$OUT/ensemble-$o-555" > /dev/null
done
for seed in 4301 4401; do
  $H evaluate $OUT/switch.py:make search --rules eaai --games 200 --seed $seed -q --out "$OUT/switch-search-$seed" > /dev/null
done
# the best response trained on for another 60,000,000 decisions (seed 1), kept in continued/, and
# measured against simple on the same five seeds
BR2=$OUT/continued/ppo_gin_rummy_vs_simple_continued.pt
if [ -z "${MEASURE_ONLY:-}" ]; then
  $H exploit simple --rules eaai --start "ppo:$BR" --decisions 60000000 --games 2000 --seed 1 --out $OUT/continued -q
  RUN=$(ls -d runs/exploit-simple__1__* | tail -1)
  cp "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/continued/
  { echo "# The resolved config of the continued best response to simple in run.sh (hollywood exploit simple --rules eaai"
    echo "# --start ppo:$BR --decisions 60000000 --seed 1): \`hollywood train\` on this file trains it again."
    cat "$RUN/config.yaml"; } > $OUT/continued/config.yaml
  $H ship "$RUN" ppo_gin_rummy_vs_simple_continued --models-dir $OUT/continued --config $OUT/continued/config.yaml \
    --opponents simple marjj \
    --note "A best response to simple, trained on from ppo_gin_rummy_vs_simple.pt for another 60,000,000 decisions (hollywood exploit)."
fi
for seed in 20261129 4301 31337 7100003 555; do
  $H evaluate "ppo:$BR2" simple --rules eaai --games 2000 --seed $seed -q --out "$OUT/continued/simple-$seed" > /dev/null
done
# search with the best response as its base (the default's other knobs), against simple: 200 games to
# 100 on each of seeds 4301 and 4401, the games of the default's figures (results/eaai/run.sh search)
for seed in 4301 4401; do
  $H evaluate "search:base=ppo:$BR" simple --rules eaai --games 200 --seed $seed -q --out "$OUT/search_base-simple-$seed" > /dev/null
done
