"""Print the table of docs/agents.md on the search with ppo-gin-rummy as its base: games won of 200
a seed and over the four, beside ppo-gin-rummy alone and the default search (base marjj,
../search_opponent_style/default-*) on the same games."""
import json
from pathlib import Path

HERE = Path(__file__).parent
SEEDS = (4301, 4401, 4501, 4601)


def metrics(path: Path) -> dict:
    return json.loads((path / "evaluate.json").read_text())["metrics"]


def won(ms: list[dict]) -> str:
    wins = sum(m["match_win_rate"]["value"] * m["match_win_rate"]["n"] for m in ms)
    n = sum(m["match_win_rate"]["n"] for m in ms)
    return f"{100 * wins / n:.1f}%, {sum(m['points_per_hand']['value'] for m in ms) / len(ms):+.1f}"


print("| opponent | agent | " + " | ".join(f"seed {s}" for s in SEEDS) + " | all 800: games won, points a hand |")
print("|---|---|" + "---|" * (len(SEEDS) + 1))
for opponent in ("marjj", "simple"):
    for name, folder in (("`search:base=ppo-gin-rummy`", "{o}-{s}"), ("`ppo-gin-rummy` alone", "alone-{o}-{s}"),
                         ("`search` (the default: base `marjj`)", "../search_opponent_style/default-{s}-vs-{o}")):
        ms = [metrics(HERE / folder.format(o=opponent, s=s)) for s in SEEDS]
        cells = [f"{100 * m['match_win_rate']['value']:.1f}%" for m in ms]
        print(f"| `{opponent}` | {name} | " + " | ".join(cells) + f" | {won(ms)} |")
