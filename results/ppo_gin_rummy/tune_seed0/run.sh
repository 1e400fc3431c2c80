#!/usr/bin/env bash
# The 128-unit 1,800-update model tuned against simple and marjj with the best response's update
# (configs/ppo_gin_rummy_tune.yaml, seed 0). It was stopped at update 832 of 1,221: its learning
# curve (metrics.jsonl, 100 pairs against each bot every 100 updates) sat below its start at every
# point. The summary printed is the mean of its 8 evaluations beside the last 8 of that run's.
set -euo pipefail
H=${HOLLYWOOD:-hollywood}
OUT=results/ppo_gin_rummy/tune_seed0
if [ -z "${SUMMARY_ONLY:-}" ]; then
  $H train configs/ppo_gin_rummy_tune.yaml --seed 0
  RUN=$(ls -d runs/ppo_gin_rummy_tune__0__* | tail -1)
  cp "$RUN/config.yaml" "$RUN/meta.yaml" "$RUN/metrics.jsonl" $OUT/
fi
python - <<'PY'
import json
for run in ("results/ppo_gin_rummy/tune_seed0", "results/ppo_gin_rummy/run_1800_seed0"):
    rows = [json.loads(line) for line in open(f"{run}/metrics.jsonl")]
    evals = [r for r in rows if "eval/win_rate_vs_simple" in r][-8:]
    for bot in ("simple", "marjj"):
        mean = sum(r[f"eval/win_rate_vs_{bot}"] for r in evals) / len(evals)
        print(f"{run}: games won vs {bot}, mean of {len(evals)} evaluations of 200 games: {mean:.1%}")
PY
