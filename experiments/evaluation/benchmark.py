"""``hollywood benchmark SPEC``: one agent against the standard panel, one report card.

SPEC (any agent spec) plays every member of the panel (:data:`PANELS`) on each game: Hollywood
matches (rules ``hollywood``) and EAAI games to 100 (rules ``eaai``). Every opponent is met on the
same deals (the first pairs of one deal sequence of ``--seed``), each deal twice with the seats
swapped. Per opponent: games (matches) won with a Wilson 95% interval and net points per decided
hand with a pair-bootstrap interval (:func:`experiments.evaluation.head_to_head.summarize`); per
game, SPEC's Bradley-Terry rating with the panel's published ratings held fixed
(:func:`experiments.evaluation.benchmark_panel.rating_against_panel`), on the panel file's Elo
scale.

Game counts per opponent (:data:`FULL_GAMES`, :data:`SLOW_GAMES`, :data:`QUICK_GAMES`): the full
benchmark plays 400 games against each member and 100 against ``search`` (2,500 games per game
type); ``--quick`` plays 100 against each and leaves ``search`` out, which the report says.

``--exploit DECISIONS`` adds a line per game: what a PPO best response trained against SPEC for
that budget wins against it (:func:`experiments.evaluation.exploit.run_exploit`), a lower bound on
SPEC's exploitability.
"""

from __future__ import annotations

import json
import os
import shlex
import sys

from experiments.evaluation.benchmark_panel import PANEL_DIR, PANELS, SLOW, agent_seeds, load_panel, pair_points, panel_path
from experiments.evaluation.report_files import write_report

#: games against each panel member, and against a slow member (search), in the full benchmark
FULL_GAMES = 400
SLOW_GAMES = 100
#: games against each member with --quick (which leaves the slow members out)
QUICK_GAMES = 100
DEFAULT_SEED = 5200
GAME_TITLES = {"hollywood": "Hollywood matches", "eaai": "EAAI games to 100"}
RULES_CHOICES = ("both", *PANELS)


def _n_pairs(games: int) -> int:
    return (int(games) + 1) // 2


def plan_games(rules: str, quick: bool, games: int | None, slow_games: int | None,
               opponents: list[str] | None) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """``({opponent: games}, [(member left out, why)])`` for one game type."""
    plan, left_out = {}, []
    for m in PANELS[rules]:
        if opponents is not None and m not in opponents:
            left_out.append((m, "not in --opponents"))
        elif m in SLOW and quick:
            left_out.append((m, "slow, seconds a game: left out by --quick"))
        elif m in SLOW:
            plan[m] = 2 * _n_pairs(slow_games or SLOW_GAMES)
        else:
            plan[m] = 2 * _n_pairs(games or (QUICK_GAMES if quick else FULL_GAMES))
    return plan, left_out


def play_against_panel(spec: str, rules: str, plan: dict[str, int], seed: int, progress=None) -> dict:
    """SPEC against each planned opponent: ``{opponent: PairingResult}``. All opponents share the
    deals of ``seed`` (the first pairs of one sequence); the agents' randomness is seeded by
    ``seed`` and the pairing's names."""
    from agents.matches import deal_seeds, play_pairing

    out = {}
    for opp, games in plan.items():
        n = _n_pairs(games)
        out[opp] = play_pairing(spec, opp, rules, n, seed, slot_seeds=deal_seeds(seed, n), progress=progress,
                                names=(spec, opp), agent_seeds=tuple(agent_seeds(seed, spec, opp)))
    return out


def _estimate(d: dict) -> dict:
    return {k: d[k] for k in ("value", "low", "high", "n")}


def game_report(spec: str, rules: str, results: dict, left_out: list, seed: int, panel_dir=None) -> dict:
    """The JSON-ready report of one game type: a row per opponent and SPEC's rating."""
    from experiments.evaluation.benchmark_panel import panel_strengths, rating_against_panel
    from experiments.evaluation.head_to_head import summarize

    panel = load_panel(rules, panel_dir)
    strengths = panel_strengths(panel) if panel else {}
    elo = {row["agent"]: row for row in panel["ratings"]} if panel else {}
    rows, a_pts, b_pts, theta, unrated = [], [], [], [], []
    for opp, r in results.items():
        s = summarize(r, "hollywood", n_boot=1000, boot_seed=seed)
        m = s["metrics"]
        rows.append({"opponent": opp, "panel_elo": elo[opp]["elo"] if opp in elo else None,
                     "games": s["games_played"], "won": _estimate(m["match_win_rate"]),
                     "points_per_hand": _estimate(m["points_per_hand"]),
                     "hollywood_games_won": _estimate(m["game_win_rate"]) if "game_win_rate" in m else None,
                     "truncated": s["matches_truncated"], "seconds": s["seconds"]})
        if opp in strengths:
            pa, pb = pair_points(r)
            a_pts.append(pa)
            b_pts.append(pb)
            theta.append(strengths[opp])
        else:
            unrated.append(opp)
    rating = rating_against_panel(theta, a_pts, b_pts, n_boot=1000, seed=seed) if theta else None
    where = panel_path(rules, panel_dir)
    shown = os.path.relpath(where, PANEL_DIR.parents[1]) if panel_dir is None else str(where)
    return {
        "rules": rules, "title": GAME_TITLES[rules], "unit": "match" if rules == "hollywood" else "game",
        "opponents": rows, "games_played": int(sum(row["games"] for row in rows)),
        "left_out": [{"agent": a, "why": why} for a, why in left_out],
        "rating": rating, "not_in_rating": unrated,
        "panel": None if panel is None else {
            "file": shown, "command": panel["command"], "seed": panel["seed"], "version": panel["version"],
            "ratings": [{k: row[k] for k in ("agent", "elo", "elo_low", "elo_high")} for row in panel["ratings"]]},
    }


def exploit_line(spec: str, rules: str, decisions: int, seed: int, games: int, progress: bool) -> dict:
    """What a PPO best response trained for ``decisions`` decisions against SPEC wins against it
    (:func:`experiments.evaluation.exploit.run_exploit`): a lower bound on SPEC's exploitability."""
    from experiments.evaluation.exploit import run_exploit

    r = run_exploit(spec, rules, decisions, seed, None, games=games, progress=progress)
    return {"decisions": r["decisions"], "games": r["games"], "seed": seed, "eval_seed": r.get("eval_seed"),
            "metrics": r["metrics"], "best_response": r.get("best_response"),
            "command": shlex.join(["hollywood", "exploit", spec, "--rules", rules, "--decisions", str(decisions),
                                   "--seed", str(seed), "--games", str(games)])}


def benchmark_command(spec: str, rules: str, quick: bool, games, slow_games, seed: int, opponents,
                      exploit: int | None = None) -> str:
    """The command line that makes this report (every choice that changes a figure, the seed included)."""
    words = ["hollywood", "benchmark", spec]
    if quick:
        words.append("--quick")
    if rules != "both":
        words += ["--rules", rules]
    if games is not None:
        words += ["--games", str(games)]
    if slow_games is not None:
        words += ["--slow-games", str(slow_games)]
    if opponents is not None:
        words += ["--opponents", ",".join(opponents)]
    if exploit is not None:
        words += ["--exploit", str(exploit)]
    return shlex.join(words + ["--seed", str(seed)])


def run_benchmark(spec: str, rules: str = "both", quick: bool = False, games: int | None = None,
                  slow_games: int | None = None, seed: int = DEFAULT_SEED, opponents: list[str] | None = None,
                  panel_dir=None, skip: dict | None = None, progress=None, exploit: int | None = None) -> dict:
    """Play SPEC against the panel and return the report (see :func:`format_report`). ``skip``:
    ``{rules: why}`` game types SPEC does not play (they are named in the report). ``exploit``:
    also train a best response to SPEC for this many decisions on each game (:func:`exploit_line`)."""
    from hollywood_env import __version__

    skip = skip or {}
    report = {"agent": spec, "command": benchmark_command(spec, rules, quick, games, slow_games, seed, opponents, exploit),
              "seed": seed, "version": __version__, "mode": "quick" if quick else "full",
              "games_per_opponent": {"default": 2 * _n_pairs(games or (QUICK_GAMES if quick else FULL_GAMES)),
                                     "slow": None if quick else 2 * _n_pairs(slow_games or SLOW_GAMES)},
              "games": [], "skipped": [{"rules": r, "why": why} for r, why in skip.items()]}
    for r in (PANELS if rules == "both" else [rules]):
        if r in skip:
            continue
        plan, left_out = plan_games(r, quick, games, slow_games, opponents)
        results = play_against_panel(spec, r, plan, seed, progress)
        report["games"].append(game_report(spec, r, results, left_out, seed, panel_dir))
        if exploit:
            n = 2 * _n_pairs(games or (QUICK_GAMES if quick else FULL_GAMES))
            report["games"][-1]["exploit"] = exploit_line(spec, r, exploit, seed, n, progress is not None)
    report["games_played"] = int(sum(g["games_played"] for g in report["games"]))
    return report


# --- the Markdown ------------------------------------------------------------------------------


def _pct(e: dict) -> str:
    if e is None or e["value"] is None:
        return "n/a"
    return f"{100 * e['value']:.1f}% [{100 * e['low']:.1f}, {100 * e['high']:.1f}]"


def _pts(e: dict) -> str:
    if e["value"] is None:
        return "n/a"
    if e["low"] is None:
        return f"{e['value']:+.1f}"
    return f"{e['value']:+.1f} [{e['low']:+.1f}, {e['high']:+.1f}]"


def _elo(x) -> str:
    return "—" if x is None else f"{x:+.0f}"


def _rating_lines(spec: str, g: dict) -> list[str]:
    if g["panel"] is None:
        return [f"No rating: no published panel for rules `{g['rules']}` (results/benchmark/panel_{g['rules']}.json)."]
    r = g["rating"]
    if r is None:
        return ["No rating: none of the opponents played has a published rating."]
    above = [p for p in g["panel"]["ratings"] if p["elo"] > r["elo"]]
    below = [p for p in g["panel"]["ratings"] if p["elo"] <= r["elo"]]
    if above and below:
        where = f"between `{above[-1]['agent']}` ({above[-1]['elo']:+.0f}) and `{below[0]['agent']}` ({below[0]['elo']:+.0f})"
    else:
        where = "above every member of the panel" if not above else "below every member of the panel"
    units = "matches" if g["unit"] == "match" else "games"
    lines = [f"**Rating: `{spec}` {r['elo']:+.0f} Elo [95% CI {r['elo_low']:+.0f}, {r['elo_high']:+.0f}]**, {where}, "
             f"from {r['games']:,} {units}; the panel's ratings (`{g['panel']['file']}`, seed {g['panel']['seed']}): "
             + ", ".join(f"`{p['agent']}` {p['elo']:+.0f} [{p['elo_low']:+.0f}, {p['elo_high']:+.0f}]"
                         for p in g["panel"]["ratings"]) + "."]
    if g["not_in_rating"]:
        lines += ["", "Not in the rating (no published rating in the panel file): "
                      + ", ".join(f"`{a}`" for a in g["not_in_rating"]) + "."]
    return lines


def _mode_line(report: dict) -> str:
    n = report["games_per_opponent"]
    text = f"- mode: {report['mode']}, {n['default']:,} games per opponent"
    if n["slow"]:
        text += f" ({n['slow']:,} against {', '.join(f'`{m}`' for m in SLOW)})"
    left = list(dict.fromkeys(x["agent"] for g in report["games"] for x in g["left_out"]))
    if left:
        text += "; left out: " + ", ".join(f"`{a}`" for a in left)
    return text + f"; {report['games_played']:,} games played in all"


def format_report(report: dict) -> str:
    """The report card in Markdown: a table per game, the rating, and what made it."""
    from hollywood_env.rules import Rules

    spec = report["agent"]
    lines = [f"# Benchmark: `{spec}`", "",
             f"- command: `{report['command']}`",
             f"- seed: {report['seed']} (the deals and the agents' randomness)",
             f"- version: hollywood-gin-rl {report['version']}",
             "- rules: " + ", ".join(f"`{g['rules']}` ({g['title']}, {Rules.preset(g['rules']).columns} "
                                     f"column{'s' if Rules.preset(g['rules']).columns > 1 else ''})"
                                     for g in report["games"]),
             _mode_line(report)]
    for s in report["skipped"]:
        lines.append(f"- not played: rules `{s['rules']}`, {s['why']}")
    for g in report["games"]:
        unit = "matches" if g["unit"] == "match" else "games"
        lines += ["", f"## {g['title']} (rules `{g['rules']}`)", "",
                  f"| opponent | panel Elo | {unit} won [95% CI] | points per hand [95% CI] | n |",
                  "|---|---|---|---|---|"]
        for row in g["opponents"]:
            lines.append(f"| `{row['opponent']}` | {_elo(row['panel_elo'])} | {_pct(row['won'])} | "
                         f"{_pts(row['points_per_hand'])} | {row['games']:,} |")
        lines += [""] + _rating_lines(spec, g)
        if g.get("exploit"):
            e = g["exploit"]
            lines += ["", f"**Exploitability** (a lower bound): a PPO best response trained for {e['decisions']:,} "
                          f"decisions against `{spec}` wins {_pct(e['metrics']['match_win_rate'])} of the {e['games']:,} "
                          f"{unit} it finished against it, {_pts(e['metrics']['points_per_hand'])} points per hand "
                          f"(`{e['command']}`)."]
        trunc = sum(row["truncated"] for row in g["opponents"])
        if trunc:
            lines += ["", f"{trunc} {unit} were truncated at 5000 decisions and are left out of the rates."]
        if g["left_out"]:
            lines += ["", "Left out: " + ", ".join(f"`{x['agent']}` ({x['why']})" for x in g["left_out"]) + "."]
    lines += ["", "Matches (games) won count a draw 1/2, with a Wilson 95% interval; points per hand are net points "
                  "per decided hand with a bootstrap interval over the duplicate pairs; n is the games played, every "
                  "deal twice with the seats swapped. The rating is the Bradley-Terry maximum likelihood of these "
                  "results with the panel's ratings held fixed (Elo scale); its interval is the wider of the "
                  "observed-information and the pair-bootstrap intervals, given the panel's ratings."]
    return "\n".join(lines)


# --- the command line ------------------------------------------------------------------------------


def add_arguments(p) -> None:
    p.add_argument("agent", metavar="SPEC", help="the agent to benchmark (any agent spec, see the list below)")
    p.add_argument("--quick", action="store_true",
                   help=f"{QUICK_GAMES} games per opponent and no search (minutes on one core); the report says "
                        f"what it left out")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help=f"games per opponent (default {FULL_GAMES}; {QUICK_GAMES} with --quick; an odd number is "
                        f"rounded up to whole duplicate pairs)")
    p.add_argument("--slow-games", type=int, default=None, metavar="N", help=f"games against search (default {SLOW_GAMES})")
    p.add_argument("--rules", default="both", metavar="GAME",
                   help="hollywood (Hollywood matches), eaai (EAAI games to 100) or both (default)")
    p.add_argument("--opponents", default=None, metavar="A,B,...",
                   help="play only these members of the panel (comma-separated); the others are named as left out")
    p.add_argument("--seed", type=_seed, default=DEFAULT_SEED, help=f"seed of the deals and agents (default {DEFAULT_SEED})")
    p.add_argument("--exploit", type=int, default=None, metavar="DECISIONS",
                   help="also train a PPO best response to SPEC for this many decisions on each game (as hollywood "
                        "exploit) and report what it wins against SPEC: a lower bound on its exploitability")
    p.add_argument("--panel-dir", default=None, metavar="DIR",
                   help="folder of the published panel files panel_<rules>.json (default: results/benchmark/)")
    p.add_argument("--out", metavar="DIR", help="also write report.md and report.json here")
    p.add_argument("--json", action="store_true", help="print the JSON report instead of the Markdown")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


class BenchmarkError(ValueError):
    """A bad option of ``hollywood benchmark`` (the command line prints it as one line, exit status 2)."""


def _seed(text: str) -> int:
    from experiments import arguments

    return arguments.seed(text)


def _check_args(args) -> tuple[list[str] | None, dict]:
    """The checks made before anything is played: ``(opponents, {rules SPEC cannot play: why})``."""
    from agents.registry import make_agent
    from experiments.config.loader import suggest

    if args.rules not in RULES_CHOICES:
        raise BenchmarkError(f"--rules: unknown game {args.rules!r}; valid: {', '.join(RULES_CHOICES)}"
                       f"{suggest(args.rules, RULES_CHOICES)}")
    for name in ("games", "slow_games"):
        value = getattr(args, name)
        if value is not None and value < 2:
            raise BenchmarkError(f"--{name.replace('_', '-')} must be at least 2 (one duplicate pair), got {value}")
    selected = list(PANELS) if args.rules == "both" else [args.rules]
    members = [m for r in selected for m in PANELS[r]]
    opponents = None
    if args.opponents is not None:
        opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
        bad = [o for o in opponents if o not in members]
        if bad or not opponents:
            raise BenchmarkError(f"--opponents: {', '.join(map(repr, bad)) or 'none given'} not in the panel; valid: "
                           f"{', '.join(dict.fromkeys(members))}{suggest(bad[0], members) if bad else ''}")
    skip, errors = {}, []
    for r in selected:
        try:
            make_agent(args.agent, r, seed=0)
        except (ValueError, OSError) as e:  # AgentSpecError, a checkpoint that does not load, ...
            skip[r] = str(e)
            errors.append(str(e))
    if len(skip) == len(selected):
        raise BenchmarkError(errors[0])
    if args.exploit is not None:
        from experiments.training.best_response import exploit_config

        for r in (r for r in selected if r not in skip):
            try:
                exploit_config(args.agent, r, args.exploit, args.seed, None, progress=False)
            except (ValueError, OSError) as e:
                raise BenchmarkError(f"--exploit: {str(e).replace('--decisions ', '')}") from None
    return opponents, skip


def run_command(args, progress_bar=None) -> int:
    """``hollywood benchmark``: check (a :class:`BenchmarkError` for a bad option), play, print and
    write. ``progress_bar(total)``: a bar for the games to play, or None."""
    opponents, skip = _check_args(args)
    total = 0
    for r in (PANELS if args.rules == "both" else [args.rules]):
        if r not in skip:
            total += sum(plan_games(r, args.quick, args.games, args.slow_games, opponents)[0].values())
    bar = progress_bar(total) if progress_bar else None
    try:
        report = run_benchmark(args.agent, args.rules, args.quick, args.games, args.slow_games, args.seed, opponents,
                               args.panel_dir, skip, progress=bar, exploit=args.exploit)
    finally:
        if bar is not None:
            bar.close()
    text = format_report(report)
    print(json.dumps(report, indent=1) if args.json else text)
    if args.out:
        md = write_report(args.out, "report", report, text)
        print(f"\nwrote {md} and report.json", file=sys.stderr)
    return 0

