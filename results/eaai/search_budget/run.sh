#!/usr/bin/env bash
# search on the eaai rules by budget (worlds per decision) against marjj, and the default against
# simple: 200 games each, duplicate deals, seed 4301, one process (one core each).
# Writes results/eaai/search_budget/<spec>-vs-<opponent>/evaluate.{json,md}.
set -euo pipefail
cd "$(dirname "$0")/../../.."
run() {  # spec opponent
  local out="results/eaai/search_budget/${1//[:=,]/_}-vs-$2"
  /usr/bin/time -f "%e s wall" hollywood evaluate "$1" "$2" --rules eaai --games 200 --seed 4301 -q --out "$out" > /dev/null
}
specs=("$@")
[ ${#specs[@]} -eq 0 ] && specs=(search:worlds=16 search:worlds=8 search:worlds=64)  # the default (32): results/eaai/run.sh search
for spec in "${specs[@]}"; do
  run "$spec" marjj
done
