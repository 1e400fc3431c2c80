"""How far a belief can go against a known opponent: the posterior given its exact policy.

The learned belief (``models/belief_hollywood.pt``) finds about 40% of the opponent's unknown
cards among its top-k. Is more in the information a player has? Against a bot whose policy is
known exactly (``simple`` and ``hollywood`` are deterministic functions of what they see;
``marjj`` too, but for its random tie-breaks), the best any belief can do is the Bayesian
posterior: every hand the opponent may hold, weighted by the chance that its policy, holding that
hand, would have made the moves it made this hand. This script estimates that posterior by
importance sampling (the estimator: ``agents/search/posterior.py``) and measures its top-k share
on the same decisions as the learned belief.

For each sampled viewer decision (the viewer ``--viewer``, the opponent ``--opponent``, first
hands of Hollywood matches) it runs the estimator's four steps as the docstring of
``agents/search/posterior.py`` gives them (worlds drawn ``uniform`` or ``learned``, rebuilt
histories of the opponent's hand, their likelihood under a second copy of the opponent, the
weighted share of the worlds that hold each card), with ``--worlds`` worlds, ``--paths`` rebuilt
histories per world and ``--eps`` for a move the model does not make; the report gives the share
of the opponent's real moves the model makes.

Only the opponent's true hand is read as the label, and the real earlier states only to avoid
replaying the hand. The report gives the top-k share by stage of the hand (the opponent's
discards), for the learned belief and for each estimate of the posterior, pooled over the
decisions as ``hollywood belief evaluate`` pools it (``belief_train.metrics``), and the effective
number of worlds (``(sum w)^2 / sum w^2``).

    .venv/bin/python -m experiments.research.belief_posterior --opponent simple --games 300 --seed 7
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.registry import AgentSpecError, make_agent
from agents.search.belief import LearnedBelief
from agents.search.posterior import draw_worlds, log_likelihood, play, rebuild_histories
from experiments.training.belief_train import metrics
from hollywood_env.cards import CARD_BITS, masks_to_bools
from hollywood_env.determinize import InfoSet, opponent_hand_size, unseen_cards
from hollywood_env.history import encode_history
from hollywood_env.melds import popcount
from hollywood_env.observation import encode
from hollywood_env.rules import resolve_rules

STAGES = (("0", 0, 0), ("1-2", 1, 2), ("3-4", 3, 4), ("5-7", 5, 7), ("8+", 8, 99), ("all", 0, 99))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opponent", default="simple", help="the opponent, and its model")
    ap.add_argument("--viewer", default="simple")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--keep", type=float, default=0.15, help="share of the viewer's decisions measured")
    ap.add_argument("--worlds", type=int, default=2048)
    ap.add_argument("--paths", type=int, default=8, help="rebuilt histories per world")
    ap.add_argument("--eps", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default=None, help="markdown file for the table")
    args = ap.parse_args()
    for name in ("games", "worlds", "paths"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be a positive integer, got {getattr(args, name)}")
    if not (0 < args.keep <= 1 and 0 < args.eps <= 1):
        ap.error(f"--keep and --eps must lie in (0, 1], got {args.keep} and {args.eps}")
    rng = np.random.default_rng(args.seed)
    rules = resolve_rules("hollywood")
    belief = LearnedBelief.from_file()
    try:
        viewer = make_agent(args.viewer, rules, seed=1)
        opponent = make_agent(args.opponent, rules, seed=2)
        model = make_agent(args.opponent, rules, seed=3)
    except AgentSpecError as e:
        ap.error(str(e))
    t0 = time.perf_counter()
    snaps, acts, records, opp_seat, agreement = play(viewer, args.viewer, opponent, args.opponent, model, rules, args.games,
                                          args.keep, rng, args.seed)
    kinds = ("uniform", "learned")
    probs = {name: [] for name in ("learned belief",) + kinds}
    labels, unseens = [], []
    ess = {k: [] for k in kinds}
    stage = []
    W, R = args.worlds, args.paths
    for (T, g) in records:
        s, o, gi = snaps[T], int(opp_seat[g]), np.array([g])
        info = InfoSet.from_state(s, gi)
        p = belief.probabilities(info, encode(s, games=gi), encode_history(s, games=gi))[0]
        unseen = masks_to_bools(unseen_cards(info))[0]
        label = masks_to_bools(s.hands[g, o:o + 1])[0] & unseen
        known = np.uint64(info.opp_known[0])
        need = int(opponent_hand_size(info)[0] - popcount(info.opp_known)[0])
        probs["learned belief"].append(p)
        labels.append(label)
        unseens.append(unseen)
        for kind in kinds:
            chosen, logq = draw_worlds(kind, p, unseen, need, W, rng)
            hands = np.bitwise_or.reduce(np.where(chosen, CARD_BITS[None, :], np.uint64(0)), axis=1) | known
            history = rebuild_histories(np.repeat(hands, R), snaps, acts, T, g, o, rng)
            logl = log_likelihood(model, args.opponent, snaps, history, W * R, g, o, args.eps)
            logw = np.logaddexp.reduce(logl.reshape(W, R), axis=1) - np.log(R) - logq
            w = np.exp(logw - logw.max())
            ess[kind].append(w.sum() ** 2 / (w ** 2).sum())
            post = (w[:, None] * chosen).sum(axis=0) / w.sum()
            probs[kind].append(np.where(unseen, post + 1e-6 * p, 0.0))  # ties: the learned order
        stage.append(int(popcount(s.discarded[gi, o])[0]))
    stage = np.asarray(stage)
    probs = {k: np.asarray(v) for k, v in probs.items()}
    labels, unseens = np.asarray(labels), np.asarray(unseens)
    flags = [f"--{k} {v}" for k, v in vars(args).items() if k != "out" and v is not None]
    lines = [f"`.venv/bin/python -m experiments.research.belief_posterior {' '.join(flags)}`",
             "",
             f"{len(records)} decisions of `{args.viewer}` against `{args.opponent}` (first hands of {args.games} "
             f"Hollywood matches); {W} worlds x {R} histories, eps {args.eps}; the model makes {agreement:.1%} of the "
             f"opponent's moves; {time.perf_counter() - t0:.0f} s",
             "",
             "| opponent's discards | decisions | learned belief | posterior, uniform worlds | posterior, learned worlds |",
             "|---|---:|---:|---:|---:|"]
    for lab, lo, hi in STAGES:
        m = (stage >= lo) & (stage <= hi)
        if m.any():
            cells = " | ".join(f"{metrics(probs[k][m], labels[m], unseens[m])['topk']:.1%}" for k in probs)
            lines.append(f"| {lab} | {int(m.sum())} | {cells} |")
    lines += ["", "Effective worlds per decision (median): " + ", ".join(
        f"{k} {np.median(ess[k]):.0f}" for k in kinds)]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
