"""Print the table of docs/results.md that chose the shipped ppo-gin-rummy, from the evaluations
of compare.sh (and the cards' own evaluation seed, 20261129)."""
import json
from pathlib import Path

HERE = Path(__file__).parent
CARDS = {"wide": HERE / "ppo_gin_rummy_wide_seed0.pt", "narrow": HERE.parent / "run_1800_seed0" / "ppo_gin_rummy_1800.pt"}


def cell(m: dict) -> str:
    w, p = m["match_win_rate"], m["points_per_hand"]
    return f"{100 * w['value']:.1f}% [{100 * w['low']:.1f}, {100 * w['high']:.1f}], {p['value']:+.1f}"


def card_metrics(model: str, opponent: str) -> dict:
    from agents.checkpoint import load_checkpoint

    card = load_checkpoint(CARDS[model])["card"]
    return next(e["metrics"] for e in card["evaluations"] if e["opponent"] == opponent)


print("| evaluation seed | opponent | 2 x 256 (shipped) | 2 x 128 |")
print("|---|---|---|---|")
for seed in (20261129, 4301, 31337, 7100003):
    for opp in ("simple", "marjj"):
        row = []
        for model in ("wide", "narrow"):
            if seed == 20261129:
                row.append(cell(card_metrics(model, opp)))
            else:
                m = json.loads((HERE / "compare" / f"{model}-vs-{opp}-{seed}" / "evaluate.json").read_text())["metrics"]
                row.append(cell(m))
        print(f"| {seed} | `{opp}` | {row[0]} | {row[1]} |")
h = json.loads((HERE / "compare" / "head_to_head" / "evaluate.json").read_text())["metrics"]
print(f"\nhead to head, 2,000 games (seed 20261207): the 2 x 256 network wins {cell(h)} a hand")
