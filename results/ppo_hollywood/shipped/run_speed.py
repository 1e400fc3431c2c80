"""The flagship run's learner decisions/s over its updates, from its committed metrics.

    python results/ppo_hollywood/shipped/run_speed.py [results/ppo_hollywood/shipped/run/metrics.jsonl.gz]

Each update's learner decisions are its ``global_step`` increase, its time those decisions over
its ``charts/SPS`` (rollout plus update; evaluations, gates and checkpoints are outside it). An
update is in the imitation phase when ``charts/expert_coef`` is above 0. The end-to-end figure
(25,800/s) is the model card's learner decisions over its training time instead.
"""

import gzip
import json
import sys
from pathlib import Path

path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "run" / "metrics.jsonl.gz")
by_update = {}
with gzip.open(path, "rt") as f:
    for line in f:
        row = json.loads(line)
        if "charts/SPS" in row:
            by_update[row["update"]] = row  # a resumed run may log an update twice: the last counts
previous = 0
totals = {"all": [0, 0.0], "imitation": [0, 0.0], "after": [0, 0.0]}
for update in sorted(by_update):
    row = by_update[update]
    n = row["global_step"] - previous
    previous = row["global_step"]
    seconds = n / row["charts/SPS"]
    phase = "imitation" if row.get("charts/expert_coef", 0.0) > 0 else "after"
    for key in ("all", phase):
        totals[key][0] += n
        totals[key][1] += seconds
print(f"{len(by_update)} updates")
for key, (n, seconds) in totals.items():
    print(f"{key:>10}: {n:,} learner decisions in {seconds / 60:.1f} min of updates, {n / seconds:,.0f}/s")
