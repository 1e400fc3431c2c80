"""Print the table of docs/results.md that chose the recipe of ppo-gin-rummy, from the evaluations
of compare.sh, of ../wide_seed1/run.sh (the wide recipe's second training seed) and the cards' own
evaluation seed, 20261129."""
import json
from pathlib import Path

HERE = Path(__file__).parent
SEED1 = HERE.parent / "wide_seed1"
CARDS = {"wide": HERE / "ppo_gin_rummy_wide_seed0.pt", "wide1": SEED1 / "ppo_gin_rummy_wide_seed1.pt",
         "narrow": HERE.parent / "run_1800_seed0" / "ppo_gin_rummy_1800.pt"}


def cell(m: dict) -> str:
    w, p = m["match_win_rate"], m["points_per_hand"]
    return f"{100 * w['value']:.1f}% [{100 * w['low']:.1f}, {100 * w['high']:.1f}], {p['value']:+.1f}"


def card_metrics(model: str, opponent: str) -> dict:
    from agents.checkpoint import load_checkpoint

    card = load_checkpoint(CARDS[model])["card"]
    return next(e["metrics"] for e in card["evaluations"] if e["opponent"] == opponent)


def evaluation(path: Path) -> dict:
    return json.loads((path / "evaluate.json").read_text())["metrics"]


print("| evaluation seed | opponent | 2 x 256, seed 0 | 2 x 256, seed 1 | 2 x 128, seed 0 |")
print("|---|---|---|---|---|")
for seed in (20261129, 4301, 31337, 7100003):
    for opp in ("simple", "marjj"):
        row = []
        for model in ("wide", "wide1", "narrow"):
            if seed == 20261129:
                row.append(cell(card_metrics(model, opp)))
            elif model == "wide1":
                row.append(cell(evaluation(SEED1 / "compare" / f"vs-{opp}-{seed}")))
            else:
                row.append(cell(evaluation(HERE / "compare" / f"{model}-vs-{opp}-{seed}")))
        print(f"| {seed} | `{opp}` | {' | '.join(row)} |")
h = evaluation(HERE / "compare" / "head_to_head")
print(f"\nhead to head, 2,000 games (seed 20261207): the 2 x 256 network (seed 0) wins {cell(h)} a hand"
      " against the 2 x 128 network")
h = evaluation(SEED1 / "compare" / "vs-seed0")
print(f"2 x 256, seed 1 against seed 0, 2,000 games (seed 20261207): seed 1 wins {cell(h)} a hand")
