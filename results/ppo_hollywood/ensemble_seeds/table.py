"""Print the table of docs/results.md for the Hollywood flagship's two training seeds as one agent,
from the evaluations of run.sh: match win rate [95% interval] and points a hand, per seed and
opponent, for the two networks together and for seed 0 (ppo-hollywood) alone."""
import json
from pathlib import Path

HERE = Path(__file__).parent


def cell(name: str) -> str:
    m = json.loads((HERE / name / "evaluate.json").read_text())["metrics"]
    w, p = m["match_win_rate"], m["points_per_hand"]
    return f"{100 * w['value']:.1f}% [{100 * w['low']:.1f}, {100 * w['high']:.1f}], {p['value']:+.1f}"


print("| evaluation seed | opponent | the two seeds as one agent | seed 0 alone (`ppo-hollywood`) |")
print("|---|---|---|---|")
for seed in (20261129, 4301, 900001):
    for o in ("simple", "marjj"):
        print(f"| {seed} | `{o}` | {cell(f'both-{o}-{seed}')} | {cell(f'seed0-{o}-{seed}')} |")
