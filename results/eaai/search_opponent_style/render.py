"""Print the tables of the search's opponent models on the EAAI game (docs/agents.md) from
results/eaai/search_opponent_style/*/evaluate.json (see run.sh): each run by seed, then the
default, `rollout=simple+marjj`, `confidence=0.5` and `confidence=2.5` over the four seeds of each."""

import json
from pathlib import Path

from experiments.evaluation.stats import wilson

HERE = Path(__file__).resolve().parent
ROWS = [
    ("previous", "the previous defaults: `simple` and `patient` pooled in every row, `simple` in its own seat"),
    ("previous_rollout_simple", "`simple` alone in every row"),
    ("previous_rollout_patient", "`patient` alone in every row"),
    ("previous_knocker_simple", "`simple` alone against an opponent who knocks early (`knocker_rollout=simple`)"),
    ("previous_own_patient", "`patient` in its own seat (`own_rollout=patient`)"),
    ("default", "both: the default"),
    ("style_wins_1", "the default, a knocker known after one win (`style_wins=1`)"),
    ("moves_all", "the default, draws searched too (`moves=all`)"),
    ("rollout_simple_marjj", "the default with `marjj` for `patient`: `simple` and `marjj` pooled (`rollout=simple+marjj`)"),
    ("rollout_marjj", "the default with `marjj` alone until the opponent shows it knocks early (`rollout=marjj`)"),
    ("confidence_05", "the default, deviating from the base on 0.5 standard errors instead of 1.5 (`confidence=0.5`)"),
    ("confidence_25", "the default, deviating from the base on 2.5 standard errors (`confidence=2.5`)"),
    ("own_marjj", "the default with `marjj` in its own seat (`own_rollout=marjj`)"),
    ("marjj", "`marjj` alone (the base)"),
]
COLUMNS = [("simple", 4301), ("simple", 4401), ("marjj", 4301), ("marjj", 4401)]


def cell(name: str, opp: str, seed: int) -> str:
    path = HERE / f"{name}-{seed}-vs-{opp}" / "evaluate.json"
    if not path.is_file():
        return ""
    m = json.loads(path.read_text(encoding="utf-8"))["metrics"]
    g, p = m["match_win_rate"], m["points_per_hand"]
    return f"{100 * g['value']:.1f}% [{100 * g['low']:.1f}, {100 * g['high']:.1f}], {p['value']:+.1f}"


POOLED = [("default", "the default"), ("rollout_simple_marjj", "`rollout=simple+marjj`"),
          ("confidence_05", "`confidence=0.5`"), ("confidence_25", "`confidence=2.5`")]
SEEDS = (4301, 4401, 4501, 4601)


def pooled(name: str, opp: str) -> str:
    """Games won over the seeds' runs pooled (Wilson), and the mean of their points a hand."""
    runs = [HERE / f"{name}-{s}-vs-{opp}" / "evaluate.json" for s in SEEDS]
    if not all(p.is_file() for p in runs):
        return ""
    ms = [json.loads(p.read_text(encoding="utf-8"))["metrics"] for p in runs]
    wins = sum(m["match_win_rate"]["value"] * m["match_win_rate"]["n"] for m in ms)
    n = sum(m["match_win_rate"]["n"] for m in ms)
    g = wilson(wins, n)
    points = sum(m["points_per_hand"]["value"] for m in ms) / len(ms)
    return f"{100 * g.value:.1f}% [{100 * g.low:.1f}, {100 * g.high:.1f}] of {n:,.0f}, {points:+.1f}"


def main() -> None:
    print("| search | " + " | ".join(f"vs `{o}`, seed {s}" for o, s in COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    for name, label in ROWS:
        print(f"| {label} | " + " | ".join(cell(name, o, s) for o, s in COLUMNS) + " |")
    print()
    print("| search, seeds " + ", ".join(map(str, SEEDS)) + " | vs `simple` | vs `marjj` |")
    print("|---|---|---|")
    for name, label in POOLED:
        print(f"| {label} | {pooled(name, 'simple')} | {pooled(name, 'marjj')} |")


if __name__ == "__main__":
    main()
