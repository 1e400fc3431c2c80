#!/bin/bash
cd /work/main
for spec in "search:worlds=32,refine=1" "search:worlds=32,refine=1,value=win,prior=0.05" "search:worlds=32,refine=1,base=marjj" "search:worlds=32,refine=1,moves=knocks,value=win,prior=0.05"; do
  echo "== $spec"
  /usr/bin/time -f "%e s" taskset -c 1 .venv/bin/hollywood evaluate $spec simple --rules gin-rummy-simple --hands 600 --seed 9002 2>&1 | grep -E "hand win rate|net points per decided| s$"
done
