#!/bin/bash
# Single hands of gin-rummy-simple against simple: the single-hand PPO alone and the search with
# it as the base (2,000 hands; the *_400 folders: 400 hands), one process per core.
# Usage: results/search/single_hands/run.sh
set -e
cd "$(dirname "$0")/../../.."
# the Hollywood defaults of the search, spelled out (one-column rules have defaults of their own since,
# agents.search.search.ONE_COLUMN_DEFAULTS): the rows "hollywood_defaults_simple_s4101" and "hollywood_defaults_pool_*" were made with these
OLD="worlds=64,prior=1,confidence=1.5,value=points"
OUT=results/search/single_hands
B="search:base=ppo-gin-rummy-simple,value=win,rollout=simple,own_rollout="
ev() { taskset -c $1 .venv/bin/hollywood evaluate "$2" simple --rules gin-rummy-simple --hands $3 --reward hands \
  --seed $4 -q --out $OUT/$5; }
(ev 0 ppo-gin-rummy-simple 2000 4101 ppo_s4101; ev 0 "$B,prior=0.05,confidence=0" 2000 4101 w64_prior05_conf0_s4101
 ev 0 "$B,prior=0,confidence=1" 2000 4101 w64_conf1_s4101; ev 0 "$B,prior=0,confidence=2" 2000 4101 w64_conf2_s4101
 ev 0 "search:rollout=simple,own_rollout=,$OLD" 2000 4101 hollywood_defaults_simple_s4101) &
(ev 1 "$B,prior=0,confidence=1,worlds=128" 2000 4101 w128_conf1_s4101; ev 1 "$B,prior=0,confidence=2,worlds=128" 2000 4101 w128_conf2_s4101
 ev 1 "$B,prior=0,confidence=2,worlds=128" 2000 4202 w128_conf2_s4202; ev 1 ppo-gin-rummy-simple 2000 4202 ppo_s4202) &
wait
# rollout policies, 400 hands (these ran before the confidence gate, with confidence 0)
B0="$B,prior=0.05,confidence=0"
ev 0 "$B0" 400 4101 simple_rollout_400
ev 0 "$B0,rollout=ppo-gin-rummy-simple,worlds=16" 400 4101 ppo_rollout_400
ev 0 "$B0,own_rollout=ppo-gin-rummy-simple,worlds=32" 400 4101 own_rollout_400
# more worlds, a stricter gate, knocks searched, and the default search (base ppo-gin-rummy-simple
# on these rules, value=points, simple and patient pooled), on the seeds above and a third (4303)
ev 1 "$B,prior=0,confidence=2,worlds=128,moves=knocks" 2000 4101 w128_conf2_knocks_s4101
ev 1 "$B,prior=0,confidence=3,worlds=128" 2000 4101 w128_conf3_s4101
ev 1 "$B,prior=0,confidence=2,worlds=256" 2000 4101 w256_conf2_s4101
ev 1 "search:rollout=simple+patient,$OLD" 2000 4101 hollywood_defaults_pool_s4101
ev 0 ppo-gin-rummy-simple 2000 4303 ppo_s4303
(ev 0 "$B,prior=0,confidence=2,worlds=256" 2000 4202 w256_conf2_s4202; ev 0 "$B,prior=0,confidence=2,worlds=256" 2000 4303 w256_conf2_s4303) &
(ev 1 "search:rollout=simple+patient,$OLD" 2000 4202 hollywood_defaults_pool_s4202
 ev 1 "search:rollout=simple+patient,$OLD" 2000 4303 hollywood_defaults_pool_s4303) &
wait
# twice the worlds again, on the seed where 256 worlds won least
ev 0 "$B,prior=0,confidence=2,worlds=512" 2000 4202 w512_conf2_s4202
# two more seeds of the 256-world spec (the one-column defaults since), its base alone and the
# Hollywood defaults on the same deals
(ev 0 ppo-gin-rummy-simple 2000 4404 ppo_s4404; ev 0 "search:rollout=simple+patient,$OLD" 2000 4404 hollywood_defaults_pool_s4404
 ev 0 "$B,prior=0,confidence=2,worlds=256" 2000 4404 w256_conf2_s4404) &
(ev 1 "$B,prior=0,confidence=2,worlds=256" 2000 4505 w256_conf2_s4505; ev 1 ppo-gin-rummy-simple 2000 4505 ppo_s4505) &
wait
# the heuristic belief at the one-column defaults, on the deals of the learned one's 256-world runs
ev 0 search:belief=heuristic 2000 4101 heuristic_s4101
ev 0 search:belief=heuristic 2000 4202 heuristic_s4202
