"""RLlib (Ray's new API stack): a turn-based ``MultiAgentEnv``, an action-masking PPO module, a
ready ``PPOConfig``, and the export of a trained policy as a weights-only file (extra ``rllib``).

Usage (``pip install 'hollywood-gin-rl[rllib]'``)::

    from hollywood_env.rllib import export_policy, ppo_config

    algo = ppo_config(num_env_runners=2).build_algo()   # self-play, one module for both seats
    for _ in range(100):
        algo.train()
    algo.save("runs/rllib")                             # RLlib's own checkpoint (pickles)
    export_policy(algo, "runs/rllib/policy.pt")         # weights only: `rllib:runs/rllib/policy.pt`

Ray is imported when this module is, never by ``import hollywood_env``.

:class:`HollywoodGinMultiAgentEnv` plays the AEC env (:mod:`hollywood_env.aec_env`, by default
``per_hand_episodes=True``: one hand per episode, the next episode continuing the match):

* observation space: ``Dict({"observations": Box(D,) float32, "action_mask": Box(0, 1, (108,)
  float32)})``, the keys RLlib's action-masking example reads; the observation is
  :func:`hollywood_env.observation.encode_one` of the agent's own view (public information and
  its own cards only); action space ``Discrete(108)`` (:mod:`hollywood_env.actions`).
* turn-based: ``reset`` and ``step`` return an observation for the agent to act only (the same
  agent twice in a row when it draws and then discards). When the episode ends, every playing
  agent gets a last observation (its mask all 0), its reward and ``terminateds`` (or
  ``truncateds`` after ``max_steps``) with ``"__all__"`` True.
* rewards: each step's shaped rewards (:mod:`hollywood_env.rewards`, zero-sum) go to both
  agents, including the one not to move; RLlib adds a reward given to an agent between its
  observations to its next step.
* illegal actions: by default (``illegal_action="end"``) an illegal action ends the episode with
  ``illegal_reward`` (-1) for the agent that played it, 0 for the other, and
  ``infos[agent]["illegal_action"] = True``, as :class:`~hollywood_env.vector_env.HollywoodGinEnv`
  does, so that RLlib's env check (random actions) passes; the next episode starts a new match.
  ``illegal_action="raise"`` raises ``IllegalActionError`` instead. A masking module
  (:class:`ActionMaskingTorchRLModule`) never plays one.
* ``opponent``: a batched policy ``(observations (n, D) float32 or None, masks (n, 108) bool)
  -> actions (n,)``, the same callables as the vector env's opponent (``uses_observations =
  False``: passed None; a ``seed(s)`` method: reseeded on seeded resets). The env layer takes
  callables only: build a named bot with ``agents.registry.make_agent("simple", rules)``, or use
  :func:`agents.interop.rllib_support.ppo_config` with a spec. With an opponent, only the learner's seat
  appears in the dicts; ``opponent_seat`` is 0, 1 or ``"alternate"`` (default: seat 1 in even
  episodes, seat 0 in odd ones, so the learner plays both seats). The opponent's moves at the
  start of an episode are played during ``reset``; a reward they earn (whole-match episodes
  only) is added to the learner's next reward, and an episode that ends before the learner's
  first decision is skipped, as in the vector env.
* config (``env_config``, RLlib's ``EnvContext``): ``rules``, ``reward``, ``max_steps``,
  ``per_hand_episodes`` (default True), ``opponent``, ``opponent_seat``, ``illegal_action``,
  ``illegal_reward``.
* seeds: ``reset(seed=s)`` starts a new match (the AEC env's cards for seed ``s``); RLlib seeds
  only the first reset of each env, the later ones continue the match.

:class:`ActionMaskingTorchRLModule` follows RLlib's ``ActionMaskingTorchRLModule`` example: RLlib's
default PPO torch module built on the ``"observations"`` part, whose logits of illegal actions
are set to :data:`MASKED_LOGIT` (``-1e9``) in every forward pass.

:func:`ppo_config` returns a ``PPOConfig`` for self-play with one shared module (:data:`MODULE_ID`,
both seats map to it) or against ``opponent``. :func:`export_policy` writes the actor (the
encoder's actor layers and the policy head) as a file that ``torch.load(weights_only=True)``
reads: a dict of plain values and tensors, no pickled code. The agent spec ``rllib:PATH``
(:mod:`agents.interop.rllib_support`) plays it greedily, without Ray. From an RLlib checkpoint folder::

    hollywood rllib-export runs/rllib runs/rllib/policy.pt

(that step unpickles the checkpoint, RLlib's format: export only checkpoints you made or trust).
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

try:
    import gymnasium as gym
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("hollywood_env.rllib needs RLlib: pip install 'hollywood-gin-rl[rllib]' "
                      f"(Ray's RLlib with torch; {e})") from e

from .actions import NUM_ACTIONS
from .aec_env import IllegalActionError, raw_env

if TYPE_CHECKING:  # annotations only
    from .rules import Rules

__all__ = ["HollywoodGinMultiAgentEnv", "ActionMaskingTorchRLModule", "ppo_config", "export_policy",
           "policy_layers", "MODULE_ID", "OBS_KEY", "MASK_KEY", "MASKED_LOGIT", "EXPORT_FORMAT"]

OBS_KEY = "observations"
MASK_KEY = "action_mask"
#: the module both seats map to in :func:`ppo_config`
MODULE_ID = "shared"
#: the logit given to an illegal action
MASKED_LOGIT = -1e9
#: the ``format`` field of :func:`export_policy`'s file
EXPORT_FORMAT = "hollywood-gin-rllib-policy"
_ENV_KEYS = ("rules", "reward", "max_steps", "per_hand_episodes", "render_mode")
_OWN_KEYS = ("opponent", "opponent_seat", "illegal_action", "illegal_reward")


class HollywoodGinMultiAgentEnv(MultiAgentEnv):
    """The AEC env as a turn-based RLlib ``MultiAgentEnv`` (see the module docstring).

    ``HollywoodGinMultiAgentEnv(config)``: ``config`` a dict (RLlib's ``env_config``) with the
    AEC env's keywords (``rules``, ``reward``, ``max_steps``, ``per_hand_episodes`` -- default
    True --, ``render_mode``), ``opponent`` / ``opponent_seat`` and ``illegal_action`` /
    ``illegal_reward``.
    """

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(_ENV_KEYS) - set(_OWN_KEYS))
        if unknown:
            raise ValueError(f"unknown env_config keys {unknown}; known: {', '.join(_ENV_KEYS + _OWN_KEYS)}")
        kwargs = {k: config[k] for k in _ENV_KEYS if k in config}
        kwargs.setdefault("per_hand_episodes", True)
        self.aec = raw_env(**kwargs)
        self.rules = self.aec.rules
        self.opponent = config.get("opponent")
        if self.opponent is not None and not callable(self.opponent):
            raise TypeError(f"opponent must be a batched policy (observations, masks) -> actions, got "
                            f"{type(self.opponent).__name__} (named agents: agents.registry.make_agent(spec, rules))")
        seat = config.get("opponent_seat", "alternate")
        if seat not in (0, 1, "alternate"):
            raise ValueError(f"opponent_seat must be 0, 1 or 'alternate', got {seat!r}")
        self.opponent_seat = seat
        self.illegal_action = config.get("illegal_action", "end")
        if self.illegal_action not in ("end", "raise"):
            raise ValueError(f"illegal_action must be 'end' or 'raise', got {self.illegal_action!r}")
        self.illegal_reward = float(config.get("illegal_reward", -1.0))
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        inner = self.aec.observation_spaces[self.possible_agents[0]]["observation"]
        space = gym.spaces.Dict({OBS_KEY: inner,
                                 MASK_KEY: gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32)})
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._episodes = 0
        self._opp: str | None = None  # the opponent's agent name in this episode
        self._pending: dict[str, float] = {}
        self._done = True

    # --- RLlib API ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict | None = None) -> tuple[dict[str, dict], dict[str, dict]]:
        if self.opponent is not None and seed is not None and callable(getattr(self.opponent, "seed", None)):
            self.opponent.seed(seed)
        self.aec.reset(seed=seed)
        self._pending = {}
        if self.opponent is not None:
            while True:
                seat = self.opponent_seat if self.opponent_seat != "alternate" else 1 - self._episodes % 2
                self._episodes += 1
                self._opp = self.possible_agents[seat]
                self.agents = [a for a in self.possible_agents if a != self._opp]
                pending = dict.fromkeys(self.agents, 0.0)
                if not self._play_opponent(pending):
                    break
                self.aec.reset()  # the episode ended before the learner's first decision: skip it
            self._pending = pending
        else:
            self._episodes += 1
            self.agents = list(self.possible_agents)
        self._done = False
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    def step(self, action_dict: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        if self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        agent = self.aec.agent_selection
        if agent not in action_dict:
            raise KeyError(f"{agent} is to act: action_dict must hold its action, got keys {sorted(action_dict)}")
        rewards = {a: self._pending.pop(a, 0.0) for a in self.agents}
        action = action_dict[agent]
        illegal = False
        if self.illegal_action == "end":
            try:
                action = self.aec.check_action(agent, action)
            except IllegalActionError:
                illegal = True
        if illegal:
            rewards[agent] += self.illegal_reward
            done = True
        else:
            done = self._play(action, rewards)
            if not done and self.opponent is not None:
                done = self._play_opponent(rewards)
        if done:
            self._done = True
            terminated = illegal or bool(self.aec.terminations[agent])
            obs = {a: self._observe(a, final=True) for a in self.agents}
            infos = {a: dict(self.aec.infos.get(a, {})) for a in self.agents}
            if illegal:
                infos[agent]["illegal_action"] = True
            flags = {a: True for a in self.agents}
            flags["__all__"] = True
            no = {a: False for a in self.agents}
            no["__all__"] = False
            return obs, rewards, (flags if terminated else no), (no if terminated else flags), infos
        nxt = self.aec.agent_selection
        return ({nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False},
                {nxt: dict(self.aec.infos.get(nxt, {}))})

    def render(self) -> Any:
        return self.aec.render()

    # --- internals ----------------------------------------------------------------------------
    def _observe(self, agent, final: bool = False) -> dict:
        o = self.aec.observe(agent)
        mask = np.zeros(NUM_ACTIONS, np.float32) if final else o["action_mask"].astype(np.float32)
        return {OBS_KEY: o["observation"], MASK_KEY: mask}

    def _play(self, action, rewards) -> bool:
        """One move of the agent to act; adds the step's rewards; True when the episode ended."""
        self.aec.step(action)
        for a in rewards:
            rewards[a] += float(self.aec.rewards[a])
        first = self.possible_agents[0]
        return bool(self.aec.terminations[first] or self.aec.truncations[first])

    def _play_opponent(self, rewards) -> bool:
        """The opponent's moves until the learner is to act; True when the episode ended."""
        uses_obs = getattr(self.opponent, "uses_observations", True)
        while self.aec.agent_selection == self._opp:
            obs = self.aec.observe(self._opp)["observation"][None] if uses_obs else None
            mask = self.aec.state.legal_action_mask[0][None].copy()
            act = np.asarray(self.opponent(obs, mask)).reshape(-1)
            if act.shape != (1,):
                raise ValueError(f"the opponent must return one action for the one position it is asked about, "
                                 f"got shape {np.asarray(act).shape}")
            if self._play(int(act[0]), rewards):
                return True
        return False


def _masked(logits, mask):
    return logits.masked_fill(mask <= 0.5, MASKED_LOGIT)


class ActionMaskingTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module on the ``"observations"`` part of a ``Dict`` observation
    space, with the logits of the actions that ``"action_mask"`` forbids set to
    :data:`MASKED_LOGIT` (as RLlib's ``ActionMaskingTorchRLModule`` example does). PPO only."""

    def __init__(self, *, observation_space=None, action_space=None, inference_only=None, learner_only=False,
                 model_config=None, catalog_class=None, **kwargs):
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {OBS_KEY, MASK_KEY}:
            raise ValueError(f"ActionMaskingTorchRLModule needs a Dict observation space with the keys {OBS_KEY!r} and "
                             f"{MASK_KEY!r} (HollywoodGinMultiAgentEnv's), got {observation_space}")
        # the default module's networks are built for the observations alone; setup() puts the
        # whole space back (as RLlib's example does)
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], action_space=action_space,
                         inference_only=inference_only, learner_only=learner_only, model_config=model_config,
                         catalog_class=catalog_class, **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def _split(batch):
        """``(mask, batch with the observations alone)``; the caller's batch is left as it is."""
        obs = batch[Columns.OBS]
        inner = dict(batch)
        if isinstance(obs, dict):
            if MASK_KEY not in obs or OBS_KEY not in obs:
                raise ValueError(f"the observations must hold {OBS_KEY!r} and {MASK_KEY!r}, got {sorted(obs)}")
            inner[Columns.OBS] = obs[OBS_KEY]
            return obs[MASK_KEY], inner
        return batch[MASK_KEY], inner

    def _forward(self, batch, **kwargs):
        mask, inner = self._split(batch)
        out = super()._forward(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = _masked(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_train(self, batch, **kwargs):
        mask, inner = self._split(batch)
        out = super()._forward_train(inner, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = _masked(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict, embeddings: Any = None) -> torch.Tensor:
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


def _shared_module(agent_id, episode=None, **kwargs):
    return MODULE_ID


def ppo_config(env_config: dict | None = None, *, opponent: Callable[..., np.ndarray] | None = None,
               opponent_seat: int | str = "alternate", hiddens: Sequence[int] = (256, 256), activation: str = "tanh",
               num_env_runners: int = 0, **training: Any) -> PPOConfig:
    """A ``PPOConfig`` (RLlib's new API stack, torch) for :class:`HollywoodGinMultiAgentEnv`:
    both seats map to one :class:`ActionMaskingTorchRLModule` (:data:`MODULE_ID`) -- self-play --,
    or the learner plays ``opponent`` (a batched policy, see the module docstring; a named bot:
    :func:`agents.interop.rllib_support.ppo_config`). ``env_config``: the env's keywords; ``hiddens`` and
    ``activation``: the MLP (RLlib's ``fcnet_hiddens`` / ``fcnet_activation``, separate actor and
    critic layers); ``num_env_runners``: RLlib's sampling workers (0: sample in the driver);
    ``training``: passed to ``PPOConfig.training`` (``lr``, ``train_batch_size_per_learner``,
    ``minibatch_size``, ``num_epochs``, ...). Adjust the result further as any ``PPOConfig``."""
    env_config = dict(env_config or {})
    if opponent is not None:
        env_config["opponent"] = opponent
        env_config["opponent_seat"] = opponent_seat
    spec = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": list(hiddens), "fcnet_activation": activation,
                                      "vf_share_layers": False})
    config = (
        PPOConfig()
        .environment(HollywoodGinMultiAgentEnv, env_config=env_config)
        .framework("torch")
        .env_runners(num_env_runners=num_env_runners)
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=_shared_module, policies_to_train=[MODULE_ID])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: spec}))
    )
    if training:
        config = config.training(**training)
    return config


# --- export --------------------------------------------------------------------------------------

_ACTIVATIONS = ("Tanh", "ReLU", "ELU", "LeakyReLU", "GELU", "SiLU", "Sigmoid")


def policy_layers(module: Any) -> list[dict]:
    """The actor of an :class:`ActionMaskingTorchRLModule` (or RLlib's default PPO module) as a
    list of ``{"weight", "bias", "activation"}`` (CPU tensors; ``activation`` a name of
    ``torch.nn``, ``""`` for none): observations -> logits. Refuses layers other than ``Linear``
    and the activations ``Tanh``, ``ReLU``, ``ELU``, ``LeakyReLU``, ``GELU``, ``SiLU``,
    ``Sigmoid`` (e.g. LayerNorm, a CNN or an LSTM encoder) with a ``ValueError``."""
    enc = module.encoder
    parts = [getattr(enc, "actor_encoder", None) or enc.encoder, module.pi]
    layers: list[dict] = []
    for part in parts:
        for m in part.modules():
            if any(True for _ in m.children()):
                continue  # a container: its leaves come next
            name = type(m).__name__
            if isinstance(m, torch.nn.Linear):
                layers.append({"weight": m.weight.detach().cpu().clone(),
                               "bias": (m.bias.detach().cpu().clone() if m.bias is not None
                                        else torch.zeros(m.out_features)),
                               "activation": ""})
            elif name in _ACTIVATIONS:
                if not layers or layers[-1]["activation"]:
                    raise ValueError(f"the actor has an activation ({name}) that follows no Linear layer")
                if name == "LeakyReLU" and m.negative_slope != 0.01:
                    raise ValueError(f"LeakyReLU with negative_slope {m.negative_slope} is not supported (0.01 only)")
                layers[-1]["activation"] = name
            elif name in ("Identity", "Flatten"):
                continue
            else:
                raise ValueError(f"the actor has a {name} layer: only Linear layers and the activations "
                                 f"{', '.join(_ACTIVATIONS)} can be exported")
    if not layers:
        raise ValueError("the module's actor has no Linear layer")
    return layers


def _run_layers(layers, x):
    for layer in layers:
        x = torch.nn.functional.linear(x, layer["weight"], layer["bias"])
        if layer["activation"]:
            x = getattr(torch.nn, layer["activation"])()(x)
    return x


def _module_of(source):
    if isinstance(source, (str, pathlib.Path)):
        from ray.rllib.core.rl_module.rl_module import RLModule

        path = pathlib.Path(source).resolve()  # RLlib (pyarrow) wants an absolute path
        for sub in (pathlib.Path("learner_group", "learner", "rl_module", MODULE_ID), pathlib.Path(MODULE_ID),
                    pathlib.Path()):
            if (path / sub / "class_and_ctor_args.pkl").is_file() or (path / sub / "module_state.pt").is_file():
                return RLModule.from_checkpoint(str(path / sub))
        raise ValueError(f"{path}: not an RLlib algorithm or RLModule checkpoint with a module {MODULE_ID!r} "
                         f"(looked for learner_group/learner/rl_module/{MODULE_ID})")
    if hasattr(source, "get_module"):  # an Algorithm
        module = source.get_module(MODULE_ID)
        if module is None:
            raise ValueError(f"the algorithm has no module {MODULE_ID!r}")
        return module
    return source


def export_policy(source: Any, path: str | pathlib.Path, rules: Rules | str | None = None) -> pathlib.Path:
    """Write the actor of ``source`` -- an RLlib ``Algorithm`` (its module :data:`MODULE_ID`), an
    RLModule, or the folder of an RLlib checkpoint (``algo.save(...)``; loading it unpickles it)
    -- to ``path`` as a dict that ``torch.load(..., weights_only=True)`` reads: ``format``
    (:data:`EXPORT_FORMAT`), ``version`` 1, ``obs_dim``, ``num_actions``, ``columns`` (of the
    rules it was trained with, when given) and ``layers`` (:func:`policy_layers`). Checks that
    the exported layers give the module's own logits. Returns the path."""
    module = _module_of(source)
    layers = policy_layers(module)
    obs_dim, num_actions = int(layers[0]["weight"].shape[1]), int(layers[-1]["weight"].shape[0])
    if num_actions != NUM_ACTIONS:
        raise ValueError(f"the module has {num_actions} actions, Hollywood Gin has {NUM_ACTIONS}")
    x = torch.rand(8, obs_dim, generator=torch.Generator().manual_seed(0))
    mask = torch.ones(8, NUM_ACTIONS)
    with torch.no_grad():
        ref = module.forward_inference({Columns.OBS: {OBS_KEY: x, MASK_KEY: mask}})[Columns.ACTION_DIST_INPUTS]
        mine = _run_layers(layers, x)
    if not torch.allclose(ref.cpu(), mine, atol=1e-5, rtol=1e-4):
        raise ValueError("the exported layers do not reproduce the module's logits (an architecture this export "
                         "does not understand)")
    blob = {"format": EXPORT_FORMAT, "version": 1, "obs_dim": obs_dim, "num_actions": num_actions, "layers": layers}
    if rules is not None:
        from .rules import resolve_rules

        blob["columns"] = int(resolve_rules(rules).columns)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(blob, path)
    return path
