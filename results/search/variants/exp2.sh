#!/bin/bash
cd /work/main
for spec in "search:worlds=32,refine=1,base=marjj simple" "search:worlds=32,refine=1,base=marjj marjj"; do
  set -- $spec
  echo "== $1 vs $2"
  /usr/bin/time -f "%e s" taskset -c 0 .venv/bin/hollywood evaluate $1 $2 --matches 200 --seed 9001 2>&1 | grep -E "match win rate|net points per decided|hand win rate|knocks undercut| s$"
done
