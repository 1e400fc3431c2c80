#!/bin/bash
cd /work/main
for spec in "search:worlds=32,refine=1,moves=discards simple" "search:worlds=32,refine=1,moves=knocks simple" "search:worlds=32,refine=1,moves=knocks marjj" "search:worlds=32,refine=1,moves=discards marjj" "search:worlds=32,refine=0,moves=discards simple"; do
  set -- $spec
  echo "== $1 vs $2"
  taskset -c 0 .venv/bin/hollywood evaluate $1 $2 --matches 200 --seed 9001 2>/dev/null | grep -E "match win rate|net points per decided|hand win rate|knocks undercut|seconds|took"
done
