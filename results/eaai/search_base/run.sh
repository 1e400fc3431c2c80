#!/usr/bin/env bash
# The search on the EAAI game with the shipped PPO as its base policy instead of marjj (its
# default), against marjj: 200 games to 100 on the deals of results/eaai/run.sh (seed 4301).
set -euo pipefail
cd "$(dirname "$0")/../../.."
hollywood evaluate search:base=ppo-gin-rummy marjj --rules eaai --games 200 --seed 4301 -q \
  --out results/eaai/search_base/base-ppo-gin-rummy-vs-marjj > /dev/null
# the base alone on the same games
hollywood evaluate ppo-gin-rummy marjj --rules eaai --games 200 --seed 4301 -q \
  --out results/eaai/search_base/ppo-gin-rummy-vs-marjj > /dev/null
