"""Print the table of docs/results.md on the wide recipe's third training seed: seed 2 alone and
its ensembles with seeds 0 and 1, beside the shipped two (seeds 0+1), 2,000 games to 100 against
`simple` and `marjj` on each of the four evaluation seeds (run.sh's evaluations; the shipped
pair's are ../ensemble_wide/)."""
import json
from pathlib import Path

HERE = Path(__file__).parent
PPO = HERE.parent
SEEDS = (20261129, 4301, 31337, 7100003)
COLUMNS = ("0+1", "2", "0+2", "1+2", "0+1+2")


def metrics(path: Path) -> dict:
    return json.loads((path / "evaluate.json").read_text())["metrics"]


def seed2_alone(opponent: str, seed: int) -> dict:
    if seed == 20261129:  # the card's evaluations
        from agents.checkpoint import load_checkpoint

        card = load_checkpoint(HERE / "ppo_gin_rummy_wide_seed2.pt")["card"]
        return next(e["metrics"] for e in card["evaluations"] if e["opponent"] == opponent)
    return metrics(HERE / "compare" / f"vs-{opponent}-{seed}")


def result(column: str, opponent: str, seed: int) -> dict:
    if column == "0+1":
        return metrics(PPO / "ensemble_wide" / f"{opponent}-{seed}")
    if column == "2":
        return seed2_alone(opponent, seed)
    return metrics(HERE / "ensembles" / f"{column}-{opponent}-{seed}")


def cell(m: dict) -> str:
    w, p = m["match_win_rate"], m["points_per_hand"]
    return f"{100 * w['value']:.1f}% [{100 * w['low']:.1f}, {100 * w['high']:.1f}], {p['value']:+.1f}"


for opponent in ("simple", "marjj"):
    print(f"\nagainst `{opponent}`, 2,000 games to 100 on each seed\n")
    print("| evaluation seed | " + " | ".join(f"seeds {c}" if "+" in c else "seed 2 alone" for c in COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    table = {c: [result(c, opponent, s) for s in SEEDS] for c in COLUMNS}
    for i, seed in enumerate(SEEDS):
        print(f"| {seed} | " + " | ".join(cell(table[c][i]) for c in COLUMNS) + " |")
    print("| all four: games won, points a hand | " + " | ".join(
        f"{100 * sum(m['match_win_rate']['value'] for m in table[c]) / len(SEEDS):.1f}% of 8,000, "
        f"{sum(m['points_per_hand']['value'] for m in table[c]) / len(SEEDS):+.2f}" for c in COLUMNS) + " |")
try:
    search = [metrics(HERE / d) for d in ("vs_search", "vs_search_4401")]
    print("\nseed 2 alone against `search`, 200 games each (seeds 4301, 4401): " + ", ".join(cell(m) for m in search))
except FileNotFoundError:
    print("\nagainst `search`: not yet measured (run.sh's last two evaluations)")
