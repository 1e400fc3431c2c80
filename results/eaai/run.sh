#!/usr/bin/env bash
# The EAAI game (eaai rules, games to 100): every agent that reads one-column observations against
# `simple` and `marjj`, duplicate deals, evaluation seed 4301 (never used in training).
# Usage: results/eaai/run.sh [AGENT ...]   (default: the bots and the shipped one-column agents)
# Each evaluation writes results/eaai/<agent>-vs-<opponent>/evaluate.{json,md};
# python results/eaai/render.py prints the README table from them.
set -euo pipefail
cd "$(dirname "$0")/../.."
GAMES=${GAMES:-1000}
agents=("$@")
[ ${#agents[@]} -eq 0 ] && agents=(random simple neller hollywood marjj ppo-gin-rummy-simple ppo-gin-rummy)
for a in "${agents[@]}"; do
  for b in simple marjj; do
    [ "$a" = "$b" ] && continue
    n=$GAMES
    case "$a" in search*) n=${SEARCH_GAMES:-200};; esac
    hollywood evaluate "$a" "$b" --rules eaai --games "$n" --seed 4301 -q --out "results/eaai/$a-vs-$b" > /dev/null
    echo "done: $a vs $b ($n games)"
  done
done
