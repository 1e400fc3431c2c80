"""Print the README's table of the EAAI game from results/eaai/*/evaluate.json (see run.sh)."""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ["ppo-gin-rummy", "search", "marjj", "ppo-gin-rummy-simple", "hollywood", "neller", "simple", "random"]


def cell(path: Path) -> str:
    if not path.is_file():
        return "—"
    s = json.loads(path.read_text(encoding="utf-8"))
    m = s["metrics"]
    g, p = m["match_win_rate"], m["points_per_hand"]
    return f"{100 * g['value']:.1f}% [{100 * g['low']:.1f}, {100 * g['high']:.1f}], {p['value']:+.1f}"


def main() -> None:
    print("| agent | games | vs `simple` | vs `marjj` |")
    print("|---|---|---|---|")
    for a in ORDER:
        paths = [HERE / f"{a}-vs-{b}" / "evaluate.json" for b in ("simple", "marjj")]
        games = [json.loads(p.read_text(encoding="utf-8"))["games_played"] for p in paths if p.is_file()]
        if games:
            cells = [cell(p) if a != b else "—" for p, b in zip(paths, ("simple", "marjj"), strict=True)]
            print(f"| `{a}` | {games[0]:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
