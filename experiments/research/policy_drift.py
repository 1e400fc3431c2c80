"""How far policies trained on from a reference have moved from it: KL(reference || policy) over
the legal moves of each position, in nats.

    python -m experiments.research.policy_drift ppo:PATH [ppo:PATH ...] [--reference ppo-hollywood]
        [--games 256] [--steps 300] [--seed 3]

The positions are those the reference meets, playing greedily as player 0 against the ``simple``
bot in ``--games`` Hollywood matches dealt from ``--seed``, over their first ``--steps`` decisions
(finished games are dealt again); only positions with more than one legal move count. Every policy
is read on the same positions, so the figures compare. Prints one Markdown row per policy: the
positions, the mean KL, its median and its 90th percentile. A PPO policy trained with
``ppo.anchor`` logs the same quantity on its own rollouts as ``losses/anchor_kl``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from agents.registry import AgentSpecError, make_agent
from agents.rl.features import augment
from agents.rl.networks import MaskedCategorical
from agents.rl.policies import PPOPolicy
from agents.rl.ppo import anchor_kl
from hollywood_env import core
from hollywood_env.observation import encode


def ppo_policy(spec: str) -> PPOPolicy:
    """The PPO policy ``spec`` names (a shipped PPO model's name or ``ppo:PATH``); a ValueError
    for anything else."""
    try:
        policy = make_agent(spec, "hollywood", seed=0)
    except AgentSpecError as e:
        raise ValueError(str(e)) from None
    if not isinstance(policy, PPOPolicy) or policy.belief is not None:
        raise ValueError(f"{spec!r} is not a PPO policy on the observation alone (give ppo-hollywood or ppo:PATH)")
    return policy


def drift(reference: PPOPolicy, policies: dict[str, PPOPolicy], games: int, steps: int,
          seed: int) -> dict[str, np.ndarray]:
    """KL(reference || policy) of each counted position, for each policy (see the module docstring)."""
    simple = make_agent("simple", "hollywood", seed=seed)
    state = core.init(games, "hollywood", seed=seed)
    kls: dict[str, list[np.ndarray]] = {name: [] for name in policies}
    for _ in range(steps):
        obs, mask = encode(state), state.legal_action_mask
        rows = np.flatnonzero((state.current_player == 0) & (mask.sum(1) > 1) & ~state.done)
        if rows.size:
            x = torch.as_tensor(augment(obs[rows], mask[rows], reference.forbid_taken, None))
            m = torch.as_tensor(mask[rows])
            with torch.no_grad():
                for name, policy in policies.items():
                    own = MaskedCategorical(policy.net(x)[0], m)
                    kls[name].append(anchor_kl(reference.net, x, own).numpy())
        actions = np.where(state.current_player == 0, reference(obs, mask), simple(obs, mask))
        core.step(state, actions)
        if state.done.any():
            core.reset_games(state, state.done)
    return {name: np.concatenate(parts) for name, parts in kls.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("policies", nargs="+", help="PPO policies: shipped names or ppo:PATH")
    p.add_argument("--reference", default="ppo-hollywood")
    p.add_argument("--games", type=int, default=256)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seed", type=int, default=3)
    args = p.parse_args(argv)
    if args.games < 1 or args.steps < 1:
        print("policy_drift: --games and --steps must be at least 1", file=sys.stderr)
        return 2
    try:
        reference = ppo_policy(args.reference)
        policies = {spec: ppo_policy(spec) for spec in args.policies}
    except ValueError as e:
        print(f"policy_drift: {e}", file=sys.stderr)
        return 2
    print(f"| policy | positions | mean KL({args.reference} \\|\\| policy) | median | 90th percentile |")
    print("|---|---|---|---|---|")
    for spec, kl in drift(reference, policies, args.games, args.steps, args.seed).items():
        print(f"| `{spec}` | {kl.size:,} | {kl.mean():.4f} | {np.median(kl):.6f} | {np.quantile(kl, 0.9):.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
