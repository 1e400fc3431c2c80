"""RLlib on the agents' side: a trained RLlib policy as an agent (the spec ``rllib:PATH``), and a
``PPOConfig`` whose opponent is named by an agent spec.

``make_agent("rllib:policy.pt", rules)`` plays the file :func:`hollywood_env.rllib.export_policy`
wrote (``hollywood rllib-export CHECKPOINT policy.pt``): the argmax of its logits
over the legal actions (``greedy=False``: sampled from the masked distribution with its own
``torch.Generator``), in either seat of our matches, ``hollywood evaluate`` and tournaments.

Why an export and not RLlib's checkpoint: an RLlib checkpoint folder is a tree of pickles (the
module's class and constructor arguments, the algorithm's state), and unpickling runs whatever
code the file says; our rule is that no file we read can run code (``agents/checkpoint.py``).
The export is a plain dict -- ``format``, ``version``, ``obs_dim``, ``num_actions``, optionally
``columns``, and ``layers``: ``{"weight", "bias", "activation"}`` per Linear layer --, read here
with ``torch.load(weights_only=True)`` (the restricted unpickler refuses anything but tensors
and plain values), checked field by field, and rebuilt as an ``nn.Sequential``. It needs neither
Ray nor RLlib: train on a cluster, evaluate anywhere.

:func:`ppo_config` is :func:`hollywood_env.rllib.ppo_config` with ``opponent`` an agent spec
(``"simple"``, ``"ppo:runs/NAME"``, ...) built by :func:`agents.registry.make_agent`: the env
layer takes callables only, so naming agents happens here (layers: hollywood_env < agents).
This module imports Ray only inside :func:`ppo_config`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from agents.rl.policies import MaskedActorPolicy
from hollywood_env.rules import Rules
from hollywood_env.sampling import SeedLike

__all__ = ["RLlibPolicy", "read_export", "build_actor", "ppo_config", "EXPORT_FORMAT", "ACTIVATIONS"]

#: the ``format`` field written by :func:`hollywood_env.rllib.export_policy`
EXPORT_FORMAT = "hollywood-gin-rllib-policy"
#: the activations an export may name
ACTIVATIONS = {"Tanh": nn.Tanh, "ReLU": nn.ReLU, "ELU": nn.ELU, "LeakyReLU": nn.LeakyReLU, "GELU": nn.GELU,
               "SiLU": nn.SiLU, "Sigmoid": nn.Sigmoid}


def read_export(path: str | Path) -> dict:
    """The dict of an export file, read with ``torch.load(weights_only=True)`` and checked:
    ``ValueError`` for anything that is not an export of :func:`hollywood_env.rllib.export_policy`."""
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # the restricted unpickler refuses code and unknown objects
        msg = str(e).splitlines()[0] if str(e) else ""
        raise ValueError(f"{path}: not a weights-only export of an RLlib policy ({type(e).__name__}: {msg}); "
                         f"write one with `hollywood rllib-export CHECKPOINT OUT.pt`") from None
    if not isinstance(blob, dict) or blob.get("format") != EXPORT_FORMAT:
        raise ValueError(f"{path}: not an RLlib policy export (no format {EXPORT_FORMAT!r}); write one with "
                         f"`hollywood rllib-export CHECKPOINT OUT.pt` (an RLlib checkpoint folder "
                         f"itself is pickles and is not read)")
    if blob.get("version") != 1:
        raise ValueError(f"{path}: export version {blob.get('version')!r} is not supported (1 only)")
    layers = blob.get("layers")
    if not isinstance(layers, list) or not layers:
        raise ValueError(f"{path}: the export has no layers")
    for i, layer in enumerate(layers):
        if not isinstance(layer, dict) or set(layer) != {"weight", "bias", "activation"}:
            raise ValueError(f"{path}: layer {i} is not a dict with weight, bias and activation")
        w, b, act = layer["weight"], layer["bias"], layer["activation"]
        if not (isinstance(w, torch.Tensor) and isinstance(b, torch.Tensor) and w.ndim == 2 and b.shape == (w.shape[0],)):
            raise ValueError(f"{path}: layer {i} is not a Linear layer (a 2-d weight and its bias)")
        if act not in ("", *ACTIVATIONS):
            raise ValueError(f"{path}: layer {i} has the activation {act!r}; supported: {', '.join(ACTIVATIONS)}")
    return blob


def build_actor(layers: list[dict], path: str | Path = "export") -> nn.Sequential:
    """``obs -> logits``: each Linear layer of ``layers``, then its activation if it names one."""
    for prev, nxt in zip(layers, layers[1:], strict=False):
        if prev["weight"].shape[0] != nxt["weight"].shape[1]:
            raise ValueError(f"{path}: the layer sizes do not chain ({tuple(prev['weight'].shape)} then "
                             f"{tuple(nxt['weight'].shape)})")
    mods: list[nn.Module] = []
    sd = {}
    for layer in layers:
        w, b = layer["weight"], layer["bias"]
        sd[f"{len(mods)}.weight"], sd[f"{len(mods)}.bias"] = w.float(), b.float()
        mods.append(nn.Linear(w.shape[1], w.shape[0]))
        if layer["activation"]:
            mods.append(ACTIVATIONS[layer["activation"]]())
    actor = nn.Sequential(*mods)
    actor.load_state_dict(sd)
    return actor.eval()


class RLlibPolicy(MaskedActorPolicy):
    """An exported RLlib actor as a batched policy ``(obs, mask) -> actions`` (module docstring)."""

    def __init__(self, actor: nn.Sequential, greedy: bool = True, seed: SeedLike = None, name: str = "rllib"):
        super().__init__(actor, greedy=greedy, seed=seed, name=name)

    @classmethod
    def from_export(cls, path: str | Path, rules: Rules | str | None = None, seed: SeedLike = None,
                    greedy: bool = True) -> RLlibPolicy:
        """Load ``path`` (an export file) safely; with ``rules``, check the observation size."""
        from hollywood_env.actions import NUM_ACTIONS

        blob = read_export(path)
        policy = cls(build_actor(blob["layers"], path), greedy=greedy, seed=seed, name=f"rllib:{path}")
        if policy.num_actions != NUM_ACTIONS:
            raise ValueError(f"{path}: the model has {policy.num_actions} actions, Hollywood Gin has {NUM_ACTIONS}")
        if rules is not None:
            from hollywood_env.observation import observation_size
            from hollywood_env.rules import resolve_rules

            d = observation_size(resolve_rules(rules))
            if d != policy.obs_dim:
                cols = f" ({blob['columns']} columns)" if isinstance(blob.get("columns"), int) else ""
                raise ValueError(f"rllib:{path} was trained on observations of size {policy.obs_dim}{cols}, these "
                                 f"rules give {d} (other number of columns?)")
        return policy


def ppo_config(env_config: dict | None = None, *, opponent: Any = None, seed: SeedLike = None, **kwargs: Any) -> Any:
    """:func:`hollywood_env.rllib.ppo_config` with ``opponent`` an agent spec (a string, built by
    :func:`agents.registry.make_agent` for the env's rules and ``seed``) or a batched policy;
    None: self-play with the shared module. Other keywords: those of
    :func:`hollywood_env.rllib.ppo_config` (``opponent_seat``, ``hiddens``, ``num_env_runners``,
    ``lr``, ...). Needs the ``rllib`` extra."""
    from hollywood_env import rllib

    if isinstance(opponent, str):
        from agents.registry import make_agent

        opponent = make_agent(opponent, rules=(env_config or {}).get("rules"), seed=seed)
    return rllib.ppo_config(env_config, opponent=opponent, **kwargs)
