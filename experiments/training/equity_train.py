"""``hollywood equity``: fit the match-win equity model of the Hollywood scoresheet, write its card.

    hollywood equity train [--out models/equity_hollywood.pt] [--seed 0] [--matches 800000]

``train`` collects the outcome distribution of single hands (the first hands of duplicate pairs
between the bots and the shipped agents, :func:`agents.search.equity.collect_hand_outcomes`), simulates
``--matches`` matches on the engine's batched scoresheet with hand outcomes drawn from it, fits
:class:`agents.search.equity.EquityNet` to their results, and measures the model on sheets of fresh
simulated matches against its slow reference, the Monte-Carlo equity of each sheet
(:func:`agents.search.equity.monte_carlo_equity`). It writes the model and its card (``.md`` beside it).
The same command and seed give the same model (one torch thread).
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from agents.checkpoint import CheckpointError
from agents.search.equity import (
    DEFAULT_PAIRINGS,
    EQUITY_FILE,
    MatchEquity,
    collect_hand_outcomes,
    fit_equity,
    monte_carlo_equity,
    save_equity,
    simulate_training_data,
)
from experiments import arguments
from hollywood_env.rules import resolve_rules


def measure(equity: MatchEquity, outcomes, n_sheets: int, n_play_outs: int, seed: int) -> dict:
    """The model against Monte-Carlo equities on ``n_sheets`` sheets of fresh simulated matches:
    mean and largest absolute error, and the Monte-Carlo estimates' own standard error."""
    rng = np.random.default_rng(seed)
    cols, opened, gw, _, _ = simulate_training_data(equity.rules, outcomes, n_sheets, rng)
    pick = rng.choice(len(cols), n_sheets, replace=False)
    viewer = rng.integers(0, 2, n_sheets)
    mc = np.array([monte_carlo_equity(equity.rules, outcomes, cols[i], opened[i], gw[i], int(v), n_play_outs, rng)
                   for i, v in zip(pick, viewer, strict=True)])
    model = equity.of_arrays(cols[pick], opened[pick], gw[pick], viewer)
    err = np.abs(model - mc)
    return {"sheets": n_sheets, "play_outs": n_play_outs, "mean_abs_error": float(err.mean()),
            "max_abs_error": float(err.max()), "mc_standard_error": float(np.sqrt(0.25 / n_play_outs))}


def card(meta: dict) -> str:
    m, q = meta["fit"], meta["check"]
    rows = "\n".join(f"| {a} | {b} |" for a, b in meta["pairings"])
    return f"""# equity-hollywood: the match-win equity of a Hollywood scoresheet

P(the viewer wins the match | the scoresheet) for two players of equal strength, on majority
matches of {meta['columns']} games to {meta['target']} (`agents.search.equity`). Used by the `search`
agent with `value=equity`, which values a rolled-out hand by the change of this equity.

## Model

- file: `equity_hollywood.pt`, read weights-only (`agents.search.equity.load_equity`)
- network: `agents.search.equity.EquityNet`, {meta['n_inputs']} inputs (per game: both columns over the
  target, both opened flags, who won it), {meta['layers']} layers of {meta['hidden']}; exact where
  the match is decided, symmetric between the seats
- fit: {m['matches']:,} simulated matches, {m['sheets']:,} sheets (each read from both seats),
  {meta['epochs']} epochs; seed {meta['seed']}
- time: {meta['seconds_collect']:.0f} s collecting hand outcomes, {meta['seconds_fit']:.0f} s simulating and fitting,
  {meta['seconds_check']:.0f} s measuring, one torch thread, on {meta['machine']}
- code: commit {meta['commit']} (`hollywood equity train --seed {meta['seed']} --matches {m['matches']}`)

## Hand outcomes

The first hands of {meta['pairs']:,} duplicate pairs of each pairing below: {meta['won_hands']:,} won hands,
{meta['mean_points']:.1f} points per won hand on average, walls {100 * meta['wall']:.2f}%. In the
simulation each hand is a wall with that probability, else won by either player (one half
each) with points drawn from those hands.

| agent | agent |
|---|---|
{rows}

## Metrics

- held-out log loss of the match results ({m['held_out_sheets']:,} sheets of whole held-out
  matches): {m['log_loss']:.4f} (the constant 0.5: {m['log_loss_constant']:.4f})
- against the Monte-Carlo equity of {q['sheets']} sheets of fresh matches ({q['play_outs']:,} play-outs
  each, standard error {q['mc_standard_error']:.3f}): mean absolute error {q['mean_abs_error']:.4f},
  largest {q['max_abs_error']:.4f}
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="hollywood equity", description="Fit the match-win equity model of the Hollywood scoresheet "
        "to simulated matches, measure it against Monte-Carlo equities, and write the model with its card.")
    sub = parser.add_subparsers(dest="what", metavar="train")
    t = sub.add_parser("train", help="collect hand outcomes, simulate matches, fit, measure and write the model",
                       description="Collect hand outcomes, simulate matches, fit, measure and write the model and its card.")
    t.add_argument("--out", default=None, help="model file (default: the shipped models/equity_hollywood.pt)")
    t.add_argument("--rules", type=arguments.rules_preset, default="hollywood")
    t.add_argument("--seed", type=arguments.seed, default=0)
    t.add_argument("--pairs", type=int, default=2000, help="duplicate pairs per pairing for the hand outcomes")
    t.add_argument("--matches", type=int, default=800_000, help="simulated matches to fit on")
    t.add_argument("--epochs", type=int, default=6)
    t.add_argument("--hidden", type=int, default=128)
    t.add_argument("--layers", type=int, default=3)
    t.add_argument("--check-sheets", type=int, default=200)
    t.add_argument("--check-play-outs", type=int, default=4000)
    args = parser.parse_args(argv)
    if args.what is None:
        parser.print_help()
        return 2
    for name in ("pairs", "matches", "epochs", "hidden", "layers", "check_sheets", "check_play_outs"):
        if not getattr(args, name) > 0:
            print(f"hollywood equity: error: --{name.replace('_', '-')} must be positive, got {getattr(args, name)}",
                  file=sys.stderr)
            return 2
    import torch

    torch.set_num_threads(1)
    out = Path(args.out) if args.out else EQUITY_FILE
    try:
        rules = resolve_rules(args.rules)
        t0 = time.perf_counter()
        outcomes = collect_hand_outcomes(rules, DEFAULT_PAIRINGS, args.pairs, args.seed)
        t1 = time.perf_counter()
        net, fit = fit_equity(rules, outcomes, args.matches, args.seed, args.epochs, hidden=args.hidden,
                              layers=args.layers)
        t2 = time.perf_counter()
        check = measure(MatchEquity(net, rules), outcomes, args.check_sheets, args.check_play_outs, args.seed + 1)
        t3 = time.perf_counter()
    except (ValueError, CheckpointError) as e:
        print(f"hollywood equity: error: {e}", file=sys.stderr)
        return 2
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    meta = {"rules": args.rules, "columns": rules.columns, "target": rules.target, "seed": args.seed,
            "pairs": args.pairs, "pairings": [list(p) for p in DEFAULT_PAIRINGS], "wall": outcomes.wall,
            "won_hands": int(len(outcomes.points)), "mean_points": float(np.mean(outcomes.points)),
            "points": outcomes.points.tolist(), "epochs": args.epochs, "hidden": args.hidden, "layers": net.layers,
            "n_inputs": net.n_inputs, "fit": fit, "check": check, "seconds_collect": t1 - t0,
            "seconds_fit": t2 - t1, "seconds_check": t3 - t2, "machine": f"{platform.machine()} CPU",
            "commit": commit or "unknown"}
    out.parent.mkdir(parents=True, exist_ok=True)
    save_equity(out, net, meta)
    out.with_suffix(".md").write_text(card(meta))
    print(f"wrote {out} and {out.with_suffix('.md')}: held-out log loss {fit['log_loss']:.4f} "
          f"(constant {fit['log_loss_constant']:.4f}); mean absolute error against Monte Carlo "
          f"{check['mean_abs_error']:.4f} (largest {check['max_abs_error']:.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
