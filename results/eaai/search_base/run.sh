#!/usr/bin/env bash
# The search on the EAAI game with a PPO as its base policy instead of marjj (its default), against
# marjj: 200 games to 100 on the deals of results/eaai/run.sh (seed 4301). The PPO is the first
# network of ppo-gin-rummy (the wide recipe's seed 0), which alone was ppo-gin-rummy when these ran.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PPO=ppo:results/ppo_gin_rummy/wide_seed0/ppo_gin_rummy_wide_seed0.pt
hollywood evaluate "search:base=$PPO" marjj --rules eaai --games 200 --seed 4301 -q \
  --out results/eaai/search_base/base-ppo-gin-rummy-vs-marjj > /dev/null
# the base alone on the same games
hollywood evaluate "$PPO" marjj --rules eaai --games 200 --seed 4301 -q \
  --out results/eaai/search_base/ppo-gin-rummy-vs-marjj > /dev/null
