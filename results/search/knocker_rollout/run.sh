#!/usr/bin/env bash
# Hollywood matches: the search with simple alone against an opponent whose scoresheet shows it
# knocks early (knocker_rollout=simple, the eaai default), against simple on the deals of the
# README's search figure (seed 7101; the default there: results/search/match/vs_simple_7101).
# About 10 minutes on one core.
set -euo pipefail
cd "$(dirname "$0")/../../.."
hollywood evaluate search:knocker_rollout=simple simple --matches 400 --seed 7101 -q \
  --out results/search/knocker_rollout/vs_simple_7101 > /dev/null
