"""The best response to a frozen agent as a training config, for ``hollywood exploit`` and for the
league's exploiters (``league.exploiter_every``): the PPO recipe ``configs/exploit.yaml`` in a
league of one, every game against the target."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

#: the config of the best response; the command fills in the target, rules, budget and seed
CONFIG = "exploit"
#: points of the learning curve (evaluations during training, ``eval.pairs`` duplicate pairs each)
CURVE_POINTS = 5
#: the network fields a start checkpoint fixes (checkpoint field -> ppo section key)
_SHAPE_FIELDS = {"hidden": "hidden", "encoder": "encoder", "belief_input": "belief_input"}


def target_slug(target: str) -> str:
    """A run-folder name part for ``target``: ``ppo:runs/x/best.pt`` -> ``ppo-runs-x-best.pt``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", target).strip("-")[:60] or "target"


def exploit_config(target: str, rules: str, decisions: int, seed: int, start: str | None, progress: bool = True,
                   config: str = CONFIG, env: Any = None, reward: str | None = None):
    """The :class:`~experiments.config.schema.TrainConfig` of the best response to ``target``: the
    PPO recipe ``config`` (``configs/exploit.yaml``) with the league of one, the rules (or the
    whole ``env`` section of the config it exploits), the budget, the seed, the learning curve's
    evaluations, (``start``) the starting weights and their network's shape and (``reward``) the
    reward mode in place of the config's; a ValueError for a bad value."""
    from agents.rl.loop import initial_weights
    from experiments.config.loader import load_config
    from experiments.config.schema import TrainConfig, validate

    cfg = load_config(TrainConfig, config)
    if cfg.algo != "ppo":
        raise ValueError(f"--config {config}: the best response is trained with PPO, got algo {cfg.algo!r}")
    per_update = cfg.ppo.num_games * cfg.ppo.num_steps
    if decisions < per_update:
        raise ValueError(f"--decisions must be at least {per_update:,} (one update of {cfg.ppo.num_games} games x "
                         f"{cfg.ppo.num_steps} decisions), got {decisions:,}")
    updates = decisions // per_update
    shape = {}
    if start:
        saved = initial_weights(start, "--start")
        shape = {key: saved[field] for field, key in _SHAPE_FIELDS.items() if field in saved}
        shape["privileged_critic"] = bool(saved.get("critic_inputs", 0))
        shape["hidden"] = list(shape.get("hidden", cfg.ppo.hidden))
    env = env or cfg.env
    # dataclasses.replace runs each section's checks on the new values
    cfg = replace(cfg, seed=seed, total_steps=updates * per_update,
                  env=replace(env, rules=rules, reward=reward or env.reward), league=replace(cfg.league, bots=[target]),
                  eval=replace(cfg.eval, bots=[target], every=max(1, updates // CURVE_POINTS)),
                  log=replace(cfg.log, name=f"exploit-{target_slug(target)}", progress=progress),
                  ppo=replace(cfg.ppo, init=start, **shape))
    validate(cfg)
    return cfg


def league_exploiter(cfg: Any, run_dir: Path, run_training: Callable) -> Callable[[Path, int], tuple[dict, float]]:
    """The trainer of ``cfg``'s league exploiters (:data:`agents.rl.loop.Exploiter`): a best
    response to the policy checkpoint it is given, from that policy's weights (so the exploiter
    has the learner's network and joins its pool), on ``cfg``'s game, in ``run_dir/exploiters/``;
    ``run_training`` is :func:`experiments.training.train.run_training`."""
    lc = cfg.league

    def train(policy_file: Path, update: int) -> tuple[dict, float]:
        from agents.checkpoint import load_checkpoint

        spec = f"ppo:{policy_file}"
        ecfg = exploit_config(spec, cfg.env.rules, lc.exploiter_decisions, cfg.seed + update, spec, progress=False,
                              config=lc.exploiter_config, env=cfg.env)
        ecfg = replace(ecfg, eval=replace(ecfg.eval, every=0),
                       log=replace(ecfg.log, root=str(run_dir / "exploiters"), name=f"exploiter_{update}"))
        out_dir, metrics = run_training(ecfg)
        weights = load_checkpoint(out_dir / "checkpoints" / "latest.pt")["model"]
        return weights, float(metrics[f"eval/win_rate_vs_{spec}"])

    return train
