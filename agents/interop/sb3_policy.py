"""Stable-Baselines3 models as batched policies: the agent spec ``sb3:PATH``.

``make_agent("sb3:model.zip", rules)`` plays a model saved by SB3's ``model.save`` (``PPO`` or
sb3-contrib's ``MaskablePPO`` with ``MlpPolicy``, trained on the observations of
:class:`hollywood_env.sb3.HollywoodGinSB3VecEnv` or ``gymnasium.make("HollywoodGin-v0")``): the
argmax of its logits over the legal actions (``greedy=False``: sampled from the masked
distribution with its own ``torch.Generator``), in either seat of our matches and tournaments.

Why it does not use ``MaskablePPO.load``: SB3's ``.zip`` stores part of the model (the policy
class, the spaces, the learning-rate schedule, ``policy_kwargs`` that are not plain JSON) as
cloudpickle inside its ``data`` member, and loading it unpickles them, which runs whatever code
the file says. Our rule is that no file we read can run code (``agents/checkpoint.py``). So this
reader opens the zip with :mod:`zipfile` and reads only

* ``policy.pth`` with ``torch.load(weights_only=True)``: a dict of tensors, nothing else (the
  restricted unpickler refuses any other object);
* from ``data``, parsed with :func:`json.loads` (never decoding a ``:serialized:`` entry), the
  plain name of the activation function in ``policy_kwargs`` (SB3 keeps the first-level fields
  of a pickled object as strings next to it; absent means SB3's default, tanh).

and rebuilds the actor from that plain description: the layer sizes come from the tensors'
shapes (``mlp_extractor.policy_net.{0,2,...}`` then ``action_net``), the activation from the
whitelist below. Anything else (another feature extractor, CNN or shared layers, an activation
not in the list, a non-tensor entry) is refused with a ``ValueError`` naming what was found. It
needs neither SB3 nor sb3-contrib installed. Not supported: models trained behind
``VecNormalize`` (its statistics are a separate pickle) and non-MLP policies.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import torch
from torch import nn

from agents.rl.policies import MaskedActorPolicy
from hollywood_env.rules import Rules
from hollywood_env.sampling import SeedLike

__all__ = ["SB3Policy", "ACTIVATIONS"]

#: the activation functions a model may name (SB3 stores them as ``"<class 'torch.nn...Name'>"``)
ACTIVATIONS = {"Tanh": nn.Tanh, "ReLU": nn.ReLU, "ELU": nn.ELU, "LeakyReLU": nn.LeakyReLU, "GELU": nn.GELU,
               "SiLU": nn.SiLU, "Sigmoid": nn.Sigmoid}
_POLICY_LAYER = re.compile(r"mlp_extractor\.policy_net\.(\d+)\.(weight|bias)")
_IGNORED = re.compile(r"(mlp_extractor\.value_net\.\d+|value_net)\.(weight|bias)|log_std")


def _activation_name(data: dict, path) -> str:
    kwargs = data.get("policy_kwargs", {})
    if not isinstance(kwargs, dict):
        raise ValueError(f"{path}: policy_kwargs is not a JSON object")
    act = kwargs.get("activation_fn")
    if act is None:
        return "Tanh"  # SB3's ActorCriticPolicy default
    if not isinstance(act, str):
        raise ValueError(f"{path}: activation_fn {act!r} is not a class name")
    name = act.rsplit(".", 1)[-1].strip("'>\" ")
    if name not in ACTIVATIONS:
        raise ValueError(f"{path}: activation_fn {act!r} is not supported; supported: {', '.join(ACTIVATIONS)}")
    return name


def read_sb3_zip(path: str | Path) -> tuple[dict[str, torch.Tensor], str]:
    """``(policy state dict, activation name)`` of an SB3 ``.zip``, read without unpickling
    anything but tensors (see the module docstring). ``ValueError`` for anything else."""
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            if "policy.pth" not in names:
                raise ValueError(f"{path}: not a Stable-Baselines3 model (no policy.pth in the zip; "
                                 f"members: {sorted(names)[:8]})")
            weights = z.read("policy.pth")
            data = json.loads(z.read("data").decode("utf-8")) if "data" in names else {}
    except zipfile.BadZipFile as e:
        raise ValueError(f"{path}: not a Stable-Baselines3 model (.zip): {e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: the zip's 'data' member is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the zip's 'data' member is not a JSON object")
    try:
        state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
    except Exception as e:  # the restricted unpickler refuses code and unknown objects
        raise ValueError(f"{path}: policy.pth is not a weights-only state dict ({type(e).__name__}: "
                         f"{str(e).splitlines()[0] if str(e) else ''})") from None
    if not isinstance(state, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                              for k, v in state.items()):
        raise ValueError(f"{path}: policy.pth is not a dict of tensors")
    return state, _activation_name(data, path)


def build_actor(state: dict[str, torch.Tensor], activation: str, path: str | Path = "model") -> nn.Sequential:
    """The actor ``obs -> logits`` of an SB3 ``MlpPolicy`` state dict: the ``policy_net``
    layers with ``activation`` after each, then ``action_net``."""
    unknown = sorted(k for k in state if not _POLICY_LAYER.fullmatch(k) and not _IGNORED.fullmatch(k)
                     and not k.startswith("action_net."))
    if unknown:
        raise ValueError(f"{path}: not an MlpPolicy with the default flatten extractor (unexpected weights "
                         f"{unknown[:5]}); supported: PPO / MaskablePPO 'MlpPolicy'")
    for k in ("action_net.weight", "action_net.bias"):
        if k not in state:
            raise ValueError(f"{path}: no {k} (not an actor-critic MlpPolicy)")
    idx = sorted({int(m.group(1)) for k in state if (m := _POLICY_LAYER.fullmatch(k))})
    if idx != list(range(0, 2 * len(idx), 2)):
        raise ValueError(f"{path}: policy_net layers {idx} are not Linear layers 0, 2, 4, ... of an MLP")
    layers: list[nn.Module] = []
    sd = {}
    for j, i in enumerate(idx):
        w, b = state.get(f"mlp_extractor.policy_net.{i}.weight"), state.get(f"mlp_extractor.policy_net.{i}.bias")
        if w is None or b is None or w.ndim != 2 or b.shape != (w.shape[0],):
            raise ValueError(f"{path}: policy_net layer {i} is not a Linear layer (weight and bias)")
        lin = nn.Linear(w.shape[1], w.shape[0])
        sd[f"{2 * j}.weight"], sd[f"{2 * j}.bias"] = w, b
        layers += [lin, ACTIVATIONS[activation]()]
    w, b = state["action_net.weight"], state["action_net.bias"]
    if w.ndim != 2 or b.shape != (w.shape[0],):
        raise ValueError(f"{path}: action_net is not a Linear layer")
    sd[f"{len(layers)}.weight"], sd[f"{len(layers)}.bias"] = w, b
    layers.append(nn.Linear(w.shape[1], w.shape[0]))
    actor = nn.Sequential(*layers)
    try:
        actor.load_state_dict(sd)
    except RuntimeError as e:
        raise ValueError(f"{path}: the layer sizes do not chain: {str(e).splitlines()[0]}") from None
    return actor.eval()


class SB3Policy(MaskedActorPolicy):
    """An SB3 actor as a batched policy ``(obs, mask) -> actions`` (see the module docstring)."""

    def __init__(self, actor: nn.Sequential, greedy: bool = True, seed: SeedLike = None, name: str = "sb3"):
        super().__init__(actor, greedy=greedy, seed=seed, name=name)

    @classmethod
    def from_zip(cls, path: str | Path, rules: Rules | str | None = None, seed: SeedLike = None,
                 greedy: bool = True) -> SB3Policy:
        """Load ``path`` (an SB3 ``.zip``) safely; with ``rules``, check the observation size."""
        from hollywood_env.actions import NUM_ACTIONS

        state, activation = read_sb3_zip(path)
        actor = build_actor(state, activation, path)
        policy = cls(actor, greedy=greedy, seed=seed, name=f"sb3:{path}")
        if policy.num_actions != NUM_ACTIONS:
            raise ValueError(f"{path}: the model has {policy.num_actions} actions, Hollywood Gin has {NUM_ACTIONS}")
        if rules is not None:
            from hollywood_env.observation import observation_size
            from hollywood_env.rules import resolve_rules

            d = observation_size(resolve_rules(rules))
            if d != policy.obs_dim:
                raise ValueError(f"sb3:{path} was trained on observations of size {policy.obs_dim}, these rules give "
                                 f"{d} (other number of columns?)")
        return policy
