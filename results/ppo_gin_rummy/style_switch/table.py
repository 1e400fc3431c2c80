"""Print the table of docs/results.md on the style switch: `ppo-gin-rummy` (the shipped pair), the
best response to `simple` kept here, and `ppo-gin-rummy` handing its seat to that best response
once the opponent's record shows a knocker (switch.py), 2,000 games to 100 against `simple` and
`marjj` on each seed; then the best response trained on (continued/) and the evaluations against
`search` (run.sh's evaluations; the shipped pair's on the first four seeds are ../ensemble_wide/)."""
import json
from pathlib import Path

from experiments.evaluation.stats import wilson

HERE = Path(__file__).parent
PPO = HERE.parent
SEEDS = (20261129, 4301, 31337, 7100003, 555)
COLUMNS = {"ensemble": "`ppo-gin-rummy`", "best_response": "best response to `simple`", "switch": "the switch"}


def metrics(path: Path) -> dict:
    return json.loads((path / "evaluate.json").read_text())["metrics"]


def result(column: str, opponent: str, seed: int) -> dict:
    if column == "ensemble" and seed != 555:
        return metrics(PPO / "ensemble_wide" / f"{opponent}-{seed}")
    return metrics(HERE / f"{column}-{opponent}-{seed}")


def cell(m: dict) -> str:
    w, p = m["match_win_rate"], m["points_per_hand"]
    return f"{100 * w['value']:.1f}% [{100 * w['low']:.1f}, {100 * w['high']:.1f}], {p['value']:+.1f}"


def pooled(runs: list[dict]) -> str:
    rates = [m["match_win_rate"] for m in runs]
    e = wilson(sum(r["value"] * r["n"] for r in rates), sum(r["n"] for r in rates))
    return f"{100 * e.value:.1f}% [{100 * e.low:.1f}, {100 * e.high:.1f}]"


print("| evaluation seed | opponent | " + " | ".join(COLUMNS.values()) + " |")
print("|---|---|" + "---|" * len(COLUMNS))
for opponent in ("simple", "marjj"):
    table = {c: [result(c, opponent, s) for s in SEEDS] for c in COLUMNS}
    for i, seed in enumerate(SEEDS):
        print(f"| {seed} | `{opponent}` | " + " | ".join(cell(table[c][i]) for c in COLUMNS) + " |")
    print(f"| all five | `{opponent}` | " + " | ".join(
        f"{100 * sum(m['match_win_rate']['value'] for m in table[c]) / len(SEEDS):.1f}% of 10,000, "
        f"{sum(m['points_per_hand']['value'] for m in table[c]) / len(SEEDS):+.2f}" for c in COLUMNS) + " |")
try:
    continued = [metrics(HERE / "continued" / f"simple-{s}") for s in SEEDS]
    print("\nthe best response trained on for another 60,000,000 decisions (continued/), against `simple`: "
          + ", ".join(f"{s} {cell(m)}" for s, m in zip(SEEDS, continued, strict=True))
          + f"; all five: {100 * sum(m['match_win_rate']['value'] for m in continued) / len(SEEDS):.1f}% of 10,000, "
          + f"{sum(m['points_per_hand']['value'] for m in continued) / len(SEEDS):+.2f}")
except FileNotFoundError:
    print("\nthe continued best response: not yet measured (run.sh's evaluations of continued/)")
for label, name in (("the switch against `search`", "switch-search"),
                    ("`search` with the best response as its base, against `simple`", "search_base-simple")):
    try:
        runs = [metrics(HERE / f"{name}-{s}") for s in (4301, 4401)]
    except FileNotFoundError:
        print(f"\n{label}: not yet measured (run.sh's last evaluations)")
        continue
    print(f"\n{label}, 200 games each (seeds 4301, 4401): " + ", ".join(cell(m) for m in runs)
          + "; all 400: " + pooled(runs))
