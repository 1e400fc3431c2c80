"""Print the table of docs/results.md for the Hollywood flagship's two training seeds as one agent,
from the evaluations of run.sh: match win rate [95% interval] and points a hand, per seed and
opponent, for the two networks together and for seed 0 (ppo-hollywood) alone; then, where
exploit.sh and vs_search.sh have run, the best responses to the two, their games against search
and against ppo-hollywood."""
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


def pooled(wins: float, n: int) -> str:
    from experiments.evaluation.stats import wilson

    return f"{wilson(wins, n).fmt(pct=True)} of {n:,}"


# exploit.sh and vs_search.sh: the best responses to the two as one agent, and the games against search
brs = [json.loads(p.read_text()) for p in sorted(HERE.glob("exploit_seed*/exploit.json"))]
if brs:
    print("\n| best response (20,000,000 decisions, from ppo-hollywood) | wins | its start alone |\n|---|---|---|")
    for r in brs:
        m, s = r["metrics"], r["start_metrics"]
        print(f"| seed {r['seed']} (1,000 matches, evaluation seed {r['eval_seed']:,}) | "
              f"{100 * m['match_win_rate']['value']:.1f}%, {m['points_per_hand']['value']:+.1f} a hand | "
              f"{100 * s['match_win_rate']['value']:.1f}% |")
    wins = sum(r["metrics"]["match_win_rate"]["value"] * r["games"] for r in brs)
    gain = sum(r["metrics"]["match_win_rate"]["value"] - r["start_metrics"]["match_win_rate"]["value"] for r in brs)
    print(f"| pooled | {pooled(wins, sum(r['games'] for r in brs))} | mean gain {100 * gain / len(brs):.1f} points |")
vs = {s: HERE / f"vs_search_{s}" for s in (24003, 24103)}
if all((p / "evaluate.json").is_file() for p in vs.values()):
    ms = {s: json.loads((p / "evaluate.json").read_text())["metrics"] for s, p in vs.items()}
    wins = sum(m["match_win_rate"]["value"] * m["match_win_rate"]["n"] for m in ms.values())
    print("\nagainst search, 400 matches on each of seeds 24003 and 24103: " + ", ".join(
        f"{100 * m['match_win_rate']['value']:.1f}%, {m['points_per_hand']['value']:+.1f} a hand" for m in ms.values())
        + f": {pooled(wins, int(sum(m['match_win_rate']['n'] for m in ms.values())))}")
vs_flagship = HERE / "vs_ppo-hollywood" / "evaluate.json"
if vs_flagship.is_file():
    print(f"against ppo-hollywood alone, 1,000 matches (seed 20261129): {cell('vs_ppo-hollywood')}")
