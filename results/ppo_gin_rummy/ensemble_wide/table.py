"""Print the table of docs/results.md on the two wide seeds as one agent, from run.sh's evaluations
and those of the members (../wide_seed0/compare.py's sources)."""
import json
from pathlib import Path

HERE = Path(__file__).parent
PPO = HERE.parent


def metrics(path: Path) -> dict:
    return json.loads((path / "evaluate.json").read_text())["metrics"]


def card(model: Path, opponent: str) -> dict:
    from agents.checkpoint import load_checkpoint

    return next(e["metrics"] for e in load_checkpoint(model)["card"]["evaluations"] if e["opponent"] == opponent)


def member(seed_dir: str, opponent: str, seed: int) -> dict:
    model = PPO / seed_dir / f"ppo_gin_rummy_{seed_dir}.pt"
    if seed == 20261129:
        return card(model, opponent)
    if seed_dir == "wide_seed0":
        return metrics(PPO / "wide_seed0" / "compare" / f"wide-vs-{opponent}-{seed}")
    return metrics(PPO / "wide_seed1" / "compare" / f"vs-{opponent}-{seed}")


def cell(m: dict) -> str:
    w, p = m["match_win_rate"], m["points_per_hand"]
    return f"{100 * w['value']:.1f}% [{100 * w['low']:.1f}, {100 * w['high']:.1f}], {p['value']:+.1f}"


def pooled(ms: list[dict], key: str = "match_win_rate") -> str:
    return f"{100 * sum(m[key]['value'] for m in ms) / len(ms):.1f}%"


print("| evaluation seed | opponent | the two as one agent (shipped) | seed 0 | seed 1 |")
print("|---|---|---|---|---|")
rows = {"ens": {"simple": [], "marjj": []}}
for seed in (20261129, 4301, 31337, 7100003):
    for opp in ("simple", "marjj"):
        e = metrics(HERE / f"{opp}-{seed}")
        rows["ens"][opp].append(e)
        print(f"| {seed} | `{opp}` | {cell(e)} | {cell(member('wide_seed0', opp, seed))} | "
              f"{cell(member('wide_seed1', opp, seed))} |")
for opp in ("simple", "marjj"):
    print(f"\nthe two as one agent against {opp}: {pooled(rows['ens'][opp])} of 8,000 games")
for s in (0, 1):
    print(f"against seed {s} alone, 2,000 games (seed 20261207): {cell(metrics(HERE / f'seed{s}-20261207'))}")
try:
    search = [metrics(HERE / f"search-{seed}") for seed in (4301, 4401)]
    print("against search, 200 games each (seeds 4301, 4401): " + ", ".join(cell(m) for m in search))
except FileNotFoundError:
    print("against search: not yet measured (run.sh's last two evaluations)")
