#!/usr/bin/env bash
# The search on the EAAI game with opponent models chosen by the opponent's record, against its
# previous defaults and one knob at a time: 200 games to 100 each, duplicate deals, seeds 4301 (the
# deals of results/eaai/run.sh) and 4401 (fresh deals; the default, rollout=simple+marjj,
# confidence=0.5 and confidence=2.5 also on 4501 and 4601), one process pinned to one core each.
#   bash results/eaai/search_opponent_style/run.sh          (about 230 minutes on one core)
#   python results/eaai/search_opponent_style/render.py     (the table of docs/agents.md)
# "previous": the defaults before knocker_rollout and own_rollout=patient, spelled out under
# today's defaults. Most runs were made while those were still the defaults, so their reports name
# only the knob that differed (e.g. "search:rollout=simple"); the commands below play the same games.
set -euo pipefail
cd "$(dirname "$0")/../../.."
H=${HOLLYWOOD:-hollywood}
OUT=results/eaai/search_opponent_style
P="knocker_rollout=,own_rollout=simple"  # the previous defaults
run() {  # name spec opponent seed
  [ -f "$OUT/$1-$4-vs-$3/evaluate.json" ] && return 0
  $H evaluate "$2" "$3" --rules eaai --games 200 --seed "$4" -q --out "$OUT/$1-$4-vs-$3" > /dev/null
}
for seed in 4301 4401; do
  for opp in simple marjj; do
    run previous "search:$P" $opp $seed
    run default search $opp $seed
  done
  run marjj marjj simple $seed
done
run previous_rollout_simple "search:rollout=simple,$P" simple 4301       # simple alone in every row
run previous_knocker_simple "search:own_rollout=simple" simple 4301      # + simple alone against a knocker
run previous_own_patient "search:knocker_rollout=" simple 4301           # + patient in its own seat
run previous_own_patient "search:knocker_rollout=" marjj 4301
run previous_rollout_patient "search:rollout=patient,$P" marjj 4301      # patient alone in every row
run style_wins_1 "search:style_wins=1" simple 4301                       # a knocker known after one win
run moves_all "search:moves=all" simple 4301                             # draws searched too
for seed in 4301 4401; do                                                # marjj as the gin-hunter model
  run rollout_simple_marjj "search:rollout=simple+marjj" marjj $seed
  run rollout_marjj "search:rollout=marjj" marjj $seed
done
for seed in 4501 4601; do                                                # two more seeds of the default
  run default search simple $seed
  run default search marjj $seed
done
for seed in 4301 4401 4501 4601; do                                      # marjj as the gin-hunter model,
  run rollout_simple_marjj "search:rollout=simple+marjj" simple $seed    # the four seeds against each
  run rollout_simple_marjj "search:rollout=simple+marjj" marjj $seed
done
for seed in 4301 4401 4501 4601; do                                      # deviating from the base on
  run confidence_05 "search:confidence=0.5" simple $seed                 # less evidence (1.5 standard
  run confidence_05 "search:confidence=0.5" marjj $seed                  # errors by default)
done
for seed in 4301 4401 4501 4601; do                                      # and on more (2.5)
  run confidence_25 "search:confidence=2.5" simple $seed
  run confidence_25 "search:confidence=2.5" marjj $seed
done
run own_marjj "search:own_rollout=marjj" marjj 4301                       # marjj in its own seat: the rollouts
                                                                         # play on as the base does
