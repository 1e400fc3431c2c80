"""``hollywood belief``: collect games, train the learned belief, measure it, write its card.

    hollywood belief train [--out models/belief_hollywood.pt] [--seed 0] [--scale 1.0]
    hollywood belief evaluate [MODEL] [--seed 1] [--games 60]

``train`` plays games between many kinds of agents (the pairings of :data:`PAIRINGS`, on the
Hollywood preset and on single hands of ``gin-rummy-simple``), records at sampled decisions what
the player to act saw (observation and public history) and, as the label, its opponent's true
hand; trains :class:`agents.search.belief.BeliefNet` on them (binary cross-entropy on the unseen cards,
the history withheld from a share of the rows so the model also works from the observation
alone); measures it on held-out games, one table per opponent kind, against the heuristic and
the uniform belief; and writes the model and its card (``.md`` beside it). The same command and
seed give the same model (one torch thread).

Metrics (on the unseen cards of each held-out decision): the negative log-likelihood per card;
the share of the opponent's unknown cards among the belief's top-k cards, where k is the number
of unknown cards it holds (``top-k``); and a reliability table (predicted vs observed frequency by
probability bin).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass

import numpy as np

from agents.checkpoint import CheckpointError
from agents.matches import act
from agents.registry import AgentSpecError, make_agent
from agents.search.belief import (
    INPUT_SIZE,
    BeliefNet,
    LearnedBelief,
    belief_inputs,
    default_belief_path,
    heuristic_probabilities,
    save_belief,
    uniform_probabilities,
)
from experiments import arguments
from hollywood_env import core
from hollywood_env import observation as O
from hollywood_env.cards import NUM_CARDS, masks_to_bools
from hollywood_env.determinize import InfoSet, unseen_cards
from hollywood_env.history import HISTORY_SIZE, encode_history
from hollywood_env.observation import encode
from hollywood_env.rules import resolve_rules

#: (agent in one seat, agent in the other, rules preset, games, share of decisions recorded): both
#: seat orders are played. Many games with few decisions each: decisions of one hand are alike,
#: so the number of hands, not of decisions, is what the belief learns from.
PAIRINGS = (
    ("simple", "simple", "hollywood", 2048, 0.12),
    ("hollywood", "hollywood", "hollywood", 2048, 0.12),
    ("neller", "neller", "hollywood", 1536, 0.12),
    ("simple", "hollywood", "hollywood", 2048, 0.12),
    ("neller", "random", "hollywood", 256, 0.12),
    ("marjj", "simple", "hollywood", 1024, 0.12),
    ("marjj", "hollywood", "hollywood", 1024, 0.12),
    ("ppo-hollywood-v1", "simple", "hollywood", 768, 0.2),
    ("ppo-hollywood-v1", "hollywood", "hollywood", 768, 0.2),
    ("dqn-hollywood", "simple", "hollywood", 512, 0.2),
    ("search:worlds=16,belief=heuristic", "simple", "hollywood", 144, 0.5),
    ("search:worlds=16,belief=heuristic", "hollywood", "hollywood", 144, 0.5),
    ("simple", "simple", "gin-rummy-simple", 6144, 0.25),
    ("hollywood", "simple", "gin-rummy-simple", 4096, 0.25),
    ("marjj", "simple", "gin-rummy-simple", 2048, 0.25),
    ("ppo-gin-rummy-simple", "simple", "gin-rummy-simple", 4096, 0.25),
    ("search:worlds=16,belief=heuristic", "simple", "gin-rummy-simple", 512, 0.5),
)
#: share of each pairing's games held out for the metrics
HELD_OUT = 0.15
#: stages of a hand for the metrics, by the number of cards the opponent has discarded so far
#: (``(label, least, most)``): what can be read of its hand grows with what it has passed on
STAGES = (("0", 0, 0), ("1-2", 1, 2), ("3-4", 3, 4), ("5-7", 5, 7), ("8+", 8, NUM_CARDS))
#: the key of :func:`evaluate_beliefs`' report that holds the metrics by stage (not an opponent's name)
BY_STAGE = "by opponent discards"


@dataclass
class Samples:
    """Decisions recorded for the belief: ``x (n, INPUT_SIZE) float16``, ``label (n, 52)`` the
    opponent's hand, ``unseen (n, 52)`` the cards the viewer could not place, ``obs``/``masks``/
    ``history`` (what an agent saw in the held-out rows, per rules preset, for the baselines),
    ``opponent (n,)`` the index of the opponent's name in ``names``, ``held_out (n,)``,
    ``rules (n,)`` the index of the preset in ``presets``."""

    x: np.ndarray
    label: np.ndarray
    unseen: np.ndarray
    opponent: np.ndarray
    held_out: np.ndarray
    rules: np.ndarray
    names: list
    presets: list
    obs: dict
    masks: dict
    history: dict

    def __len__(self):
        return self.x.shape[0]


def collect(seed: int = 0, scale: float = 1.0, max_steps: int = 600, held_out: float = HELD_OUT,
            log=print) -> Samples:
    """Play every pairing of :data:`PAIRINGS` (games times ``scale``) and record its share of the
    decisions (see :class:`Samples`)."""
    rng = np.random.default_rng(seed)
    xs, labels, unseens, opps, held, rule_ids = [], [], [], [], [], []
    names: list[str] = []
    keep_obs, keep_masks, keep_hist, presets = {}, {}, {}, []
    for (a_spec, b_spec, preset, games, keep) in PAIRINGS:
        t0 = time.perf_counter()
        rules = resolve_rules(preset)
        if preset not in presets:
            presets.append(preset)
            keep_obs[preset], keep_masks[preset], keep_hist[preset] = [], [], []
        n = max(2, int(round(games * scale)))
        agents = [make_agent(a_spec, rules, seed=int(rng.integers(2**31))),
                  make_agent(b_spec, rules, seed=int(rng.integers(2**31)))]
        state = core.init(n, rules, seed=int(rng.integers(2**62)), max_steps=max_steps)
        a_seat = (np.arange(n) % 2).astype(np.int64)  # agent A in seat 0 of even games, seat 1 of odd
        out_games = np.arange(n) >= int(round(n * (1 - held_out)))
        per_hand = rules.columns == 1 and preset == "gin-rummy-simple"
        stopped = np.zeros(n, dtype=bool)
        actions = np.zeros(n, dtype=np.int64)
        count = 0
        while True:
            idx = np.flatnonzero(~(state.done | stopped))
            if idx.size == 0:
                break
            rec = idx[rng.random(idx.size) < keep]
            if rec.size:
                me = state.current_player[rec].astype(np.int64)
                opp = 1 - me
                obs = encode(state, games=rec)
                hist = encode_history(state, games=rec)
                info = InfoSet.from_state(state, rec)
                unseen = masks_to_bools(unseen_cards(info))
                label = masks_to_bools(state.hands[rec, opp]) & unseen
                xs.append(belief_inputs(obs, hist, rules).astype(np.float16))
                labels.append(label)
                unseens.append(unseen)
                opp_name = np.where(a_seat[rec] == opp, 0, 1)
                for spec in (a_spec, b_spec):
                    if spec not in names:
                        names.append(spec)
                ids = np.array([names.index(a_spec), names.index(b_spec)])
                opps.append(ids[opp_name])
                held.append(out_games[rec])
                rule_ids.append(np.full(rec.size, presets.index(preset)))
                ho = out_games[rec]
                keep_obs[preset].append(obs[ho].astype(np.float32))
                keep_masks[preset].append(state.legal_action_mask[rec][ho].copy())
                keep_hist[preset].append(hist[ho])
                count += rec.size
            on_a = state.current_player[idx] == a_seat[idx]
            for who, rows in ((0, idx[on_a]), (1, idx[~on_a])):
                if rows.size:
                    actions[rows] = act(agents[who], (a_spec, b_spec)[who], state, rows)
            core.step(state, actions, games=idx)
            if per_hand:
                stopped |= state.hand_ended
        log(f"  {a_spec} vs {b_spec} ({preset}, {n} games): {count} decisions recorded, "
            f"{time.perf_counter() - t0:.0f} s")
    held_cat = np.concatenate(held)
    return Samples(x=np.concatenate(xs), label=np.concatenate(labels), unseen=np.concatenate(unseens),
                   opponent=np.concatenate(opps), held_out=held_cat, rules=np.concatenate(rule_ids), names=names,
                   presets=presets, obs={k: np.concatenate(v) for k, v in keep_obs.items()},
                   masks={k: np.concatenate(v) for k, v in keep_masks.items()},
                   history={k: np.concatenate(v) for k, v in keep_hist.items()})


def train_net(data: Samples, hidden: int = 64, layers: int = 2, epochs: int = 8, batch: int = 512, lr: float = 2e-3,
              drop_history: float = 0.15, seed: int = 0, log=print) -> BeliefNet:
    """Binary cross-entropy on the unseen cards of the training rows (Adam, one-cycle schedule);
    after each epoch the loss on the held-out rows, and the weights of the best epoch are kept."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed + 1)
    net = BeliefNet(hidden, layers)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    tr = np.flatnonzero(~data.held_out)
    steps = epochs * (tr.size // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1), pct_start=0.05)
    hist_start = INPUT_SIZE - HISTORY_SIZE  # the history part of the inputs
    step = 0
    best = (float("inf"), None)
    for epoch in range(epochs):
        perm = rng.permutation(tr)
        total, seen = 0.0, 0
        for i in range(0, perm.size - batch + 1, batch):
            rows = perm[i:i + batch]
            x = torch.from_numpy(data.x[rows].astype(np.float32))
            drop = torch.from_numpy(rng.random(rows.size) < drop_history)
            x[drop, hist_start:] = 0.0
            y = torch.from_numpy(data.label[rows].astype(np.float32))
            m = torch.from_numpy(data.unseen[rows].astype(np.float32))
            logits = net(x)
            loss = (torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="none") * m).sum() / m.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            total += float(loss.detach()) * rows.size
            seen += rows.size
        val = _validation_loss(net, data)
        log(f"  epoch {epoch + 1}/{epochs}: NLL per unseen card {total / max(seen, 1):.4f} (train), {val:.4f} (held out)")
        if val < best[0]:
            best = (val, {k: v.detach().clone() for k, v in net.state_dict().items()})
        net.train()
    net.load_state_dict(best[1])
    return net.eval()


def _validation_loss(net, data: Samples, rows: int = 20000) -> float:
    import torch

    ho = np.sort(np.random.default_rng(0).permutation(np.flatnonzero(data.held_out))[:rows])
    net.eval()
    total, count = 0.0, 0.0
    with torch.no_grad():
        for i in range(0, ho.size, 4096):
            r = ho[i:i + 4096]
            logits = net(torch.from_numpy(data.x[r].astype(np.float32)))
            y = torch.from_numpy(data.label[r].astype(np.float32))
            m = torch.from_numpy(data.unseen[r].astype(np.float32))
            total += float((torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="none") * m).sum())
            count += float(m.sum())
    return total / max(count, 1.0)




def metrics(p: np.ndarray, label: np.ndarray, unseen: np.ndarray) -> dict:
    """NLL per unseen card, top-k share and the reliability table of probabilities ``p``."""
    q = np.clip(p, 1e-6, 1 - 1e-6)
    ll = np.where(label, np.log(q), np.log(1 - q))
    nll = float(-(ll * unseen).sum() / unseen.sum())
    k = (label & unseen).sum(axis=1)
    score = np.where(unseen, p, -1.0)
    order = np.argsort(-score, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(NUM_CARDS)[None, :].repeat(p.shape[0], 0), axis=1)
    hit = (rank < k[:, None]) & label & unseen
    has = k > 0
    topk = float(hit[has].sum() / k[has].sum())
    bins = np.linspace(0, 1, 11)
    pu, lu = p[unseen], label[unseen]
    which = np.clip(np.digitize(pu, bins) - 1, 0, 9)
    table = []
    for b in range(10):
        sel = which == b
        if sel.any():
            table.append((f"{bins[b]:.1f}-{bins[b + 1]:.1f}", int(sel.sum()), float(pu[sel].mean()), float(lu[sel].mean())))
    return {"nll": nll, "topk": topk, "decisions": int(p.shape[0]), "reliability": table}


def evaluate_beliefs(data: Samples, belief: LearnedBelief, seed: int = 1, heuristic_worlds: int = 64,
                     per_opponent: int = 2500, log=print) -> dict:
    """Per opponent kind, on up to ``per_opponent`` random held-out decisions of each: the
    metrics of the learned belief (with and without the history), the heuristic and uniform."""
    rng = np.random.default_rng(seed)
    ho = np.flatnonzero(data.held_out)
    label, unseen, opp, rules_ho = data.label[ho], data.unseen[ho], data.opponent[ho], data.rules[ho]
    pick = np.zeros(ho.size, dtype=bool)
    for o_id in np.unique(opp):
        rows = np.flatnonzero(opp == o_id)
        pick[rng.permutation(rows)[:per_opponent]] = True
    kinds = ("learned", "learned (no history)", "heuristic", "uniform")
    probs = {k: np.zeros((ho.size, NUM_CARDS)) for k in kinds}
    opp_discards = np.zeros(ho.size, dtype=np.int64)  # the opponent's discards this hand, per row
    for r_id, preset in enumerate(data.presets):
        rules = resolve_rules(preset)
        in_preset = np.flatnonzero(rules_ho == r_id)  # held-out rows of this preset, in order
        local = np.flatnonzero(pick[in_preset])  # their positions in the preset's kept arrays
        for i in range(0, local.size, 2048):
            li = local[i:i + 2048]
            r = in_preset[li]
            oo, mm, hh = data.obs[preset][li], data.masks[preset][li], data.history[preset][li]
            opp_discards[r] = np.rint(oo[:, O.OPP_DISCARDED].sum(axis=1)).astype(np.int64)
            info = InfoSet.from_observation(oo, mm, rules)
            probs["learned"][r] = belief.probabilities(info, oo, hh)
            probs["learned (no history)"][r] = belief.probabilities(info, oo, None)
            probs["heuristic"][r] = heuristic_probabilities(info, rng, worlds=heuristic_worlds)
            probs["uniform"][r] = uniform_probabilities(info)
    out = {}
    for o_id, name in enumerate(data.names):
        sel = pick & (opp == o_id)
        if sel.any():
            out[name] = {k: metrics(p[sel], label[sel], unseen[sel]) for k, p in probs.items()}
    out["all"] = {k: metrics(p[pick], label[pick], unseen[pick]) for k, p in probs.items()}
    stages = {}
    for name, least, most in STAGES:
        sel = pick & (opp_discards >= least) & (opp_discards <= most)
        if sel.any():
            stages[name] = {k: metrics(p[sel], label[sel], unseen[sel]) for k, p in probs.items()}
    out[BY_STAGE] = stages
    return out


def format_report(report: dict) -> str:
    """Markdown tables of :func:`evaluate_beliefs`' report."""
    lines = ["| opponent | decisions | belief | NLL per card | top-k share |", "|---|---:|---|---:|---:|"]
    for name, by_belief in report.items():
        if name == BY_STAGE:
            continue
        for k, m in by_belief.items():
            lines.append(f"| {name} | {m['decisions']} | {k} | {m['nll']:.4f} | {100 * m['topk']:.1f}% |")
    stages = report.get(BY_STAGE, {})
    if stages:
        kinds = list(next(iter(stages.values())))
        lines += ["", "Top-k share by stage of the hand (all held-out decisions, by the number of cards the "
                  "opponent has discarded this hand):", "",
                  "| opponent's discards | decisions | " + " | ".join(kinds) + " |",
                  "|---|---:|" + "---:|" * len(kinds)]
        for stage, by_belief in stages.items():
            first = next(iter(by_belief.values()))
            lines.append(f"| {stage} | {first['decisions']} | "
                         + " | ".join(f"{100 * m['topk']:.1f}%" for m in by_belief.values()) + " |")
    lines += ["", "Reliability of the learned belief (all held-out decisions, unseen cards):", "",
              "| predicted | cards | mean predicted | observed |", "|---|---:|---:|---:|"]
    for b, count, pred, obs in report["all"]["learned"]["reliability"]:
        lines.append(f"| {b} | {count} | {pred:.3f} | {obs:.3f} |")
    return "\n".join(lines)


def _card(path, meta: dict, report: dict) -> str:
    size_mb = path.stat().st_size / 1e6
    lines = [
        "# belief-hollywood: a learned belief over the opponent's hand", "",
        "For each of the 52 cards, the probability that the opponent holds it, from what the player to act "
        "has seen: the observation (its hand, the pile in order, the opponent's taken cards and both "
        "players' discards, the scoresheet) and the public history of the hand (every take, declined upcard "
        "and discard, in order). Hard facts are exact (0 for cards placed elsewhere, 1 for cards the "
        "opponent is known to hold; the unseen cards' probabilities sum to the number of unknown cards it "
        "holds). Used by the `search` agent (`belief=learned`) to draw its worlds.", "",
        "## Model", "",
        f"- file: `{path.name}`, {size_mb:.2f} MB, read weights-only (`agents.search.belief.load_belief`)",
        f"- network: `agents.search.belief.BeliefNet`, card-centric (one small network shared by the 52 cards reads "
        f"each card's run and set neighbourhood in every input plane), {meta['inputs']} inputs, width "
        f"{meta['hidden']}, {meta['layers']} layers, 52 logits; {meta['parameters']:,} parameters",
        f"- training: {meta['train_decisions']:,} decisions of {meta['train_games']:,} games, {meta['epochs']} "
        f"epochs, batch {meta['batch']}, Adam lr {meta['lr']} (one cycle), history withheld from "
        f"{100 * meta['drop_history']:.0f}% of the rows; seed {meta['seed']}",
        f"- time: {meta['collect_seconds'] / 60:.1f} min collecting, {meta['train_seconds'] / 60:.1f} min "
        f"training, {meta['eval_seconds'] / 60:.1f} min measuring, one torch thread, on {meta['hardware']}",
        f"- commit: {meta['commit']}", "",
        "## Data", "",
        "Games between these agents (both seat orders; labels are the true hands):", "",
        "| agent | agent | rules | games | decisions recorded |", "|---|---|---|---:|---:|",
    ]
    for a, b, preset, games, keep in meta["pairings"]:
        lines.append(f"| {a} | {b} | {preset} | {games} | {100 * keep:.0f}% |")
    lines += ["", f"{100 * HELD_OUT:.0f}% of each pairing's games are held out for the metrics below.", "",
              "## Metrics (held-out games)", "",
              "Per opponent kind; NLL per unseen card (lower is better); top-k share: the share of the "
              "opponent's unknown cards among the belief's k most likely cards, k the number it holds.", "",
              format_report(report), "",
              "## Reproduce", "", "```bash", f"hollywood belief train --seed {meta['seed']} --scale {meta['scale']}",
              "```", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="hollywood belief", description="Collect games, train the learned belief over the opponent's hand, "
        "measure it against the heuristic and uniform beliefs, and write the model with its card.")
    sub = parser.add_subparsers(dest="what", metavar="train|evaluate")
    t = sub.add_parser("train", help="collect games, train, measure and write the model and its card",
                       description="Collect games, train, measure and write the model and its card.")
    t.add_argument("--out", default=None, help="model file (default: the shipped models/belief_hollywood.pt)")
    t.add_argument("--seed", type=arguments.seed, default=0)
    t.add_argument("--scale", type=float, default=1.0, help="games per pairing, times this (default 1.0)")
    t.add_argument("--epochs", type=int, default=6)
    t.add_argument("--hidden", type=int, default=64)
    t.add_argument("--layers", type=int, default=3)
    t.add_argument("--report", default="results/belief", help="folder for the metrics (json and markdown)")
    e = sub.add_parser("evaluate", help="measure a belief model on fresh games",
                       description="Measure a belief model on fresh games against the heuristic and uniform beliefs.")
    e.add_argument("model", nargs="?", default=None, help="model file (default: the shipped one)")
    e.add_argument("--seed", type=arguments.seed, default=1)
    e.add_argument("--scale", type=float, default=0.25)
    args = parser.parse_args(argv)
    if args.what is None:
        parser.print_help()
        return 2
    import platform
    import subprocess
    from pathlib import Path

    import torch

    torch.set_num_threads(1)
    for name in ("scale", "epochs", "hidden", "layers"):
        if hasattr(args, name) and not getattr(args, name) > 0:
            print(f"hollywood belief: error: --{name} must be positive, got {getattr(args, name)}", file=sys.stderr)
            return 2
    try:
        if args.what == "evaluate":
            belief = LearnedBelief.from_file(args.model)
            data = collect(seed=args.seed, scale=args.scale, held_out=1.0)
            print(format_report(evaluate_beliefs(data, belief, seed=args.seed)))
            return 0
        out = Path(args.out) if args.out else default_belief_path()
        t0 = time.perf_counter()
        data = collect(seed=args.seed, scale=args.scale)
        t1 = time.perf_counter()
        print(f"collected {len(data):,} decisions ({int(data.held_out.sum()):,} held out) in {(t1 - t0) / 60:.1f} min")
        net = train_net(data, hidden=args.hidden, layers=args.layers, epochs=args.epochs, seed=args.seed)
        t2 = time.perf_counter()
        belief = LearnedBelief(net)
        report = evaluate_beliefs(data, belief, seed=args.seed + 1)
        t3 = time.perf_counter()
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                    check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            commit = "unknown"
        games = sum(max(2, int(round(p[3] * args.scale))) for p in PAIRINGS)
        meta = {"inputs": INPUT_SIZE, "hidden": args.hidden, "layers": args.layers,
                "parameters": int(sum(p.numel() for p in net.parameters())), "epochs": args.epochs, "batch": 512,
                "lr": 2e-3, "drop_history": 0.15, "seed": args.seed, "scale": args.scale,
                "train_decisions": int((~data.held_out).sum()), "train_games": int(round(games * (1 - HELD_OUT))),
                "collect_seconds": t1 - t0, "train_seconds": t2 - t1, "eval_seconds": t3 - t2,
                "hardware": f"{platform.machine()} CPU", "commit": commit,
                "pairings": [list(p[:3]) + [max(2, int(round(p[3] * args.scale))), p[4]] for p in PAIRINGS],
                "topk_all": report["all"]["learned"]["topk"], "nll_all": report["all"]["learned"]["nll"]}
        save_belief(out, net, meta)
        out.with_suffix(".md").write_text(_card(out, meta, report), encoding="utf-8")
        rep = Path(args.report)
        rep.mkdir(parents=True, exist_ok=True)
        (rep / "metrics.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
        (rep / "metrics.md").write_text(format_report(report) + "\n", encoding="utf-8")
        print(format_report(report))
        print(f"wrote {out} and {out.with_suffix('.md')}")
        return 0
    except (AgentSpecError, CheckpointError, ValueError, OSError) as e:
        print(f"hollywood belief: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
