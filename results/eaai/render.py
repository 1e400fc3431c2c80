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
    return (f"{100 * g['value']:.1f}% [{100 * g['low']:.1f}, {100 * g['high']:.1f}] of {s['games_played']:,}, "
            f"{p['value']:+.1f} pts")


def main() -> None:
    print("| agent | vs `simple`: games won, points a hand | vs `marjj`: games won, points a hand |")
    print("|---|---|---|")
    for a in ORDER:
        cells = [cell(HERE / f"{a}-vs-{b}" / "evaluate.json") if a != b else "—" for b in ("simple", "marjj")]
        if any(c != "—" for c in cells):
            print(f"| `{a}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
