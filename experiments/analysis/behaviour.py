"""How agents play, measured: knock timing, gin chasing, and play when ahead or behind on the sheet.

    hollywood behaviour ppo:runs/A ppo:runs/B --names hollywood-reward hand-reward \\
        --opponent simple --matches 400 --out results/reward_ablation

Each agent plays ``--matches`` Hollywood matches (duplicate pairs, ``--seed``) against
``--opponent`` while a recorder reads every decision it makes (the observation it was given, its
legal actions and its choice; nothing else). From those:

=======================  ======================================================================
figure                   definition
=======================  ======================================================================
knock when legal         of its discard decisions where a knock was legal, the share where it
                         knocked (or went gin) instead of discarding and playing on
... by sheet lead        the same, split by its lead on the scoresheet at that moment: the sum
                         over the columns still in play of its points minus the opponent's
                         (behind: < -25, level: -25..25, ahead: > 25 points)
deadwood at knock        mean deadwood of the hand it knocked with (0 = gin)
could knock, held        mean deadwood of the hands where it could knock and did not
takes the upcard         of its draw decisions (first upcard included) where it could take the
                         top of the pile, the share where it did
gin rate                 its gins / hands decided (from the match results)
undercut rate            hands where its knock was undercut / its knocks
match win rate           against the opponent, with the Wilson 95% interval
=======================  ======================================================================

Writes ``behaviour.md`` (the table) and ``behaviour.png`` (knock-when-legal rate by sheet lead,
with 95% intervals) into ``--out``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from experiments import arguments
from hollywood_env import observation as O
from hollywood_env.actions import BIG_GIN, KNOCK, TAKE_DISCARD

LEAD_BUCKETS = (("behind", -np.inf, -25.0), ("level", -25.0, 25.0), ("ahead", 25.0, np.inf))


class Recorder:
    """Wraps a batched policy; records, for each decision where a knock is legal, whether it
    knocked, the best knock deadwood and the sheet lead (points, columns in play)."""

    def __init__(self, policy, rules):
        self.policy, self.rules = policy, rules
        self.name = getattr(policy, "name", "agent")
        self.knocked: list[np.ndarray] = []
        self.deadwood: list[np.ndarray] = []
        self.lead: list[np.ndarray] = []
        self.took: list[np.ndarray] = []  # draw decisions with the upcard takeable: taken?

    def seed(self, seed=None):
        if hasattr(self.policy, "seed"):
            self.policy.seed(seed)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = np.asarray(self.policy(obs, mask))
        takeable = mask[:, TAKE_DISCARD]
        if takeable.any():
            self.took.append(actions[takeable] == TAKE_DISCARD)
        can = mask[:, KNOCK:KNOCK + 52].any(axis=1) | mask[:, BIG_GIN]
        if can.any():
            rows = np.flatnonzero(can)
            from agents.rl.features import DISCARD_VALUE, augment

            x = augment(obs[rows], mask[rows], self.rules.forbid_discard_of_taken_card)
            values = x[:, obs.shape[1] + DISCARD_VALUE: obs.shape[1] + DISCARD_VALUE + 52]
            best = np.rint((1.0 - values.max(axis=1)) * 100)
            a = actions[rows]
            self.knocked.append(((a >= KNOCK) & (a < KNOCK + 52)) | (a == BIG_GIN))
            self.deadwood.append(best)
            self.lead.append(sheet_lead(obs[rows], self.rules))
        return actions


def sheet_lead(obs: np.ndarray, rules) -> np.ndarray:
    """The viewer's lead in points: own minus opponent's over the columns still in play."""
    lead = np.zeros(obs.shape[0])
    for k in range(rules.columns):
        base = O.SHEET_START + O.SHEET_FEATURES * k
        in_play = obs[:, base + 4] == 0
        lead += np.where(in_play, (obs[:, base] - obs[:, base + 1]) * rules.target, 0.0)
    return lead


def measure(agent: str, opponent: str, rules, matches: int, seed: int) -> dict:
    from agents.matches import play_pairing
    from agents.registry import make_agent
    from experiments.evaluation.head_to_head import summarize
    from experiments.evaluation.stats import wilson

    rec = Recorder(make_agent(agent, rules, seed=seed), rules)
    r = play_pairing(rec, opponent, rules, n_pairs=max(1, matches // 2), seed=seed, names=(agent, opponent))
    s = summarize(r)
    knocked = np.concatenate(rec.knocked) if rec.knocked else np.zeros(0, bool)
    dw = np.concatenate(rec.deadwood) if rec.deadwood else np.zeros(0)
    lead = np.concatenate(rec.lead) if rec.lead else np.zeros(0)
    took = np.concatenate(rec.took) if rec.took else np.zeros(0, bool)
    out = {"agent": agent, "knock_when_legal": wilson(knocked.sum(), knocked.size),
           "deadwood_at_knock": float(dw[knocked].mean()) if knocked.any() else float("nan"),
           "deadwood_held": float(dw[~knocked].mean()) if (~knocked).any() else float("nan"),
           "takes_upcard": wilson(took.sum(), took.size), "gin_rate": s["metrics"]["a_gin_rate"],
           "undercut": s["metrics"]["a_knocks_undercut"],
           "match_win_rate": s["metrics"]["match_win_rate"], "hand_win_rate": s["metrics"]["hand_win_rate"]}
    for name, lo, hi in LEAD_BUCKETS:
        sel = (lead > lo) & (lead <= hi) if np.isfinite(lo) else lead <= hi
        out[f"knock_{name}"] = wilson(knocked[sel].sum(), sel.sum())
    return out


def _pct(e) -> str:
    d = e if isinstance(e, dict) else e.to_dict()
    if d["value"] is None or not np.isfinite(d["value"]):
        return "n/a"
    return f"{100 * d['value']:.1f}% [{100 * d['low']:.1f}, {100 * d['high']:.1f}]"


def main(argv=None) -> int:
    from experiments.config.loader import plain_text

    parser = argparse.ArgumentParser(prog="hollywood behaviour", description=plain_text(__doc__),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("agents", nargs="+", metavar="AGENT", help="agents to measure (agent specs, as in evaluate)")
    parser.add_argument("--names", nargs="*", help="labels for the agents (default: the specs)")
    parser.add_argument("--opponent", default="simple", help="the agent they play against (default simple)")
    parser.add_argument("--matches", type=int, default=400, help="matches per agent (default 400)")
    parser.add_argument("--rules", type=arguments.rules_preset, default="hollywood", help="rules preset (default hollywood)")
    parser.add_argument("--seed", type=arguments.seed, default=20261130, help="seed of the deals (default 20261130)")
    parser.add_argument("--out", required=True, help="folder for behaviour.md and behaviour.png")
    args = parser.parse_args(argv)
    names = args.names or args.agents
    if len(names) != len(args.agents):
        parser.error(f"--names gives {len(names)} labels for {len(args.agents)} agents")
    from agents.registry import AgentSpecError, make_agent
    from hollywood_env.rules import Rules

    if args.matches < 2:
        parser.error(f"--matches must be at least 2 (one duplicate pair), got {args.matches}")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        parser.error(f"--out {args.out}: exists and is not a folder")
    rules = Rules.preset(args.rules)
    for spec in [*args.agents, args.opponent]:  # every agent checked before anything is played
        try:
            make_agent(spec, rules, seed=0)
        except (AgentSpecError, ValueError) as e:
            parser.error(str(e))
    rows = [measure(a, args.opponent, rules, args.matches, args.seed) for a in args.agents]
    lines = [f"Against `{args.opponent}`, {args.matches} `{args.rules}` matches each (duplicate deals, seed {args.seed}); "
             "95% intervals.", "",
             "| agent | match win rate | hand win rate | knock when legal | ... behind | ... level | ... ahead | "
             "deadwood at knock | could knock, held | takes the upcard | gin rate | knocks undercut |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for n, r in zip(names, rows, strict=True):
        lines.append(f"| {n} | {_pct(r['match_win_rate'])} | {_pct(r['hand_win_rate'])} | {_pct(r['knock_when_legal'])} | "
                     f"{_pct(r['knock_behind'])} | {_pct(r['knock_level'])} | {_pct(r['knock_ahead'])} | "
                     f"{r['deadwood_at_knock']:.1f} | {r['deadwood_held']:.1f} | {_pct(r['takes_upcard'])} | "
                     f"{_pct(r['gin_rate'])} | "
                     f"{_pct(r['undercut'])} |")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "behaviour.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: no figure)", file=sys.stderr)
        return 0
    fig, ax = plt.subplots(figsize=(7, 3.6))
    buckets = [b[0] for b in LEAD_BUCKETS]
    width = 0.8 / len(rows)
    for i, (n, r) in enumerate(zip(names, rows, strict=True)):
        vals = [r[f"knock_{b}"].to_dict() for b in buckets]
        y = np.array([100 * (v["value"] if v["value"] is not None else np.nan) for v in vals])
        lo = np.array([100 * (v["low"] if v["low"] is not None else np.nan) for v in vals])
        hi = np.array([100 * (v["high"] if v["high"] is not None else np.nan) for v in vals])
        x = np.arange(len(buckets)) + (i - (len(rows) - 1) / 2) * width
        ax.bar(x, y, width, yerr=[y - lo, hi - y], capsize=3, label=n)
    ax.set_xticks(np.arange(len(buckets)), [f"{b} on the sheet" for b in buckets])
    ax.set_ylabel("knocks when a knock is legal (%)")
    ax.set_title(f"Knock timing against {args.opponent}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "behaviour.png", dpi=110)
    print(f"\nwritten: {out / 'behaviour.md'} and behaviour.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
