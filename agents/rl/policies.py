"""Trained agents as batched policies ``(obs, mask) -> actions``, loaded from checkpoints.

* :class:`PPOPolicy`: an actor-critic network (:class:`agents.rl.networks.ActorCritic`), greedy
  (the argmax over the legal actions) or sampled from the masked distribution with its own
  ``torch.Generator``.
* :class:`PPOEnsemblePolicy`: several PPO networks acting on the mean of their log-probabilities
  (the spec ``ppo-ensemble:A+B``, and a shipped model whose file holds several networks).
* :class:`DQNPolicy`: a Q-network (:class:`agents.rl.networks.DuelingQNetwork`), greedy over the
  legal actions, or epsilon-greedy with its own numpy generator.

* :class:`MaskedActorPolicy`: a plain actor network (``nn.Sequential`` of linear layers and
  activations) read from another library's files: the base of :class:`agents.interop.sb3_policy.SB3Policy`
  and :class:`agents.interop.rllib_support.RLlibPolicy`.

PPO and DQN read the observation with the derived features of :mod:`agents.rl.features` appended (a
PPO network trained with ``ppo.belief_input`` also the learned belief's 52 probabilities,
:class:`agents.search.belief.BeliefFeatures`), and load from checkpoints only through
:func:`agents.checkpoint.load_checkpoint` (weights-only: a file can never run code). The agent
specs ``ppo:PATH`` (:func:`load_ppo_policy`), ``ppo-ensemble:PATH+PATH`` and ``dqn:PATH`` of
:mod:`agents.registry` build them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.checkpoint import load_checkpoint
from agents.rl.features import BELIEF_SIZE, NUM_FEATURES, augment, input_size
from agents.rl.features import VERSION as FEATURES_VERSION
from agents.rl.networks import ENCODERS, ActorCritic, DuelingQNetwork, MaskedCategorical, load_weights, masked_logits
from hollywood_env.rules import Rules
from hollywood_env.sampling import SeedLike, as_generator, int_seed, random_legal_actions


def torch_generator(seed: SeedLike = None) -> torch.Generator:
    """The ``torch.Generator`` of a policy that samples, seeded with one int drawn from ``seed``
    (:func:`hollywood_env.sampling.int_seed`)."""
    return torch.Generator().manual_seed(int_seed(seed))


def _load_for(path: str | Path, algo: str, rules: Rules | str | None = None) -> dict:
    """The ``algo`` checkpoint at ``path``, each of its networks checked by :func:`_check_network`."""
    ckpt = load_checkpoint(path, expect_algo=algo)
    for fields in [ckpt, *ckpt.get("ensemble", [])]:
        _check_network(fields, f"{algo}:{path}", rules)
    return ckpt


def _check_network(fields: Mapping[str, Any], name: str, rules: Rules | str | None) -> None:
    """One network's fields checked against this code's features and, when ``rules`` are given,
    against the observation size those rules give (a network trained with another number of
    columns cannot read them)."""
    if fields.get("features") != FEATURES_VERSION:
        raise ValueError(f"{name}: made with features {fields.get('features')!r}, this code computes {FEATURES_VERSION!r}")
    if rules is not None:
        from hollywood_env.observation import observation_size
        from hollywood_env.rules import resolve_rules

        d = input_size(observation_size(resolve_rules(rules)), bool(fields.get("belief_input", False)))
        if d != fields["obs_dim"]:
            raise ValueError(f"{name} was trained on observations of size {fields['obs_dim']}, "
                             f"these rules give {d} (other number of columns?)")


class PPOPolicy:
    """A PPO network as a batched policy ``(obs, mask) -> actions`` (greedy or sampled).

    The network reads the observation with the derived features of :mod:`agents.rl.features`
    appended (``forbid_taken``: the rules' ``forbid_discard_of_taken_card``), and with ``belief``
    (a :class:`agents.search.belief.BeliefFeatures`, for a network trained with ``ppo.belief_input``)
    the learned belief's probabilities after them, computed once per call for the whole batch.
    """

    def __init__(self, net: ActorCritic, greedy: bool = True, seed: SeedLike = None, device: str = "cpu",
                 name: str = "ppo", forbid_taken: bool = True, belief: Callable[..., np.ndarray] | None = None):
        extra = BELIEF_SIZE if belief is not None else 0
        if getattr(net, "extra_inputs", 0) != extra:
            raise ValueError(f"{name}: the network reads {getattr(net, 'extra_inputs', 0)} values after the features, "
                             f"the policy gives it {extra} (belief_input and the belief must go together)")
        self.net = net.to(device).eval()
        self.forbid_taken = forbid_taken
        self.belief = belief
        self.greedy = greedy
        self.device = device
        self.name = name
        self.generator = torch_generator(seed)

    @torch.no_grad()
    def distribution(self, obs: np.ndarray, mask: np.ndarray) -> MaskedCategorical:
        """The network's distribution over the legal actions of each row."""
        if input_size(obs.shape[1], self.belief is not None) != self.net.obs_dim:
            raise ValueError(f"{self.name}: observation size {obs.shape[1]} does not match the network's "
                             f"{self.net.base_dim} (trained with other rules?)")
        o = torch.as_tensor(augment(obs, mask, self.forbid_taken, self.belief), device=self.device)
        logits, _ = self.net(o)
        return MaskedCategorical(logits, torch.as_tensor(mask, device=self.device))

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        dist = self.distribution(obs, mask)
        a = dist.mode() if self.greedy else dist.sample(self.generator)
        return a.cpu().numpy()

    @classmethod
    def from_weights(cls, net: ActorCritic, weights: Mapping[str, Any], greedy: bool = True, seed: SeedLike = None,
                     device: str = "cpu", name: str = "ppo", forbid_taken: bool = True,
                     belief: Callable[..., np.ndarray] | None = None) -> PPOPolicy:
        """The policy of ``net`` (a network of the weights' shape) once ``weights`` are loaded into
        it (a state dict of tensors or numpy arrays, :func:`agents.rl.networks.load_weights`): the one
        way a PPO policy is built from weights (checkpoints, league snapshots). ``belief``: the
        :class:`agents.search.belief.BeliefFeatures` a network trained with ``ppo.belief_input`` reads."""
        load_weights(net, weights)
        return cls(net, greedy=greedy, seed=seed, device=device, name=name, forbid_taken=forbid_taken, belief=belief)

    @classmethod
    def from_checkpoint(cls, path: str | Path, rules: Rules | str | None = None, seed: SeedLike = None,
                        greedy: bool = True, device: str = "cpu") -> PPOPolicy:
        """The policy of a PPO checkpoint of one network (a file or a run folder) for ``rules``
        (default: the checkpoint's); :func:`load_ppo_policy` also reads a shipped ensemble. One
        trained with ``ppo.belief_input`` reads the shipped learned belief
        (:func:`agents.search.belief.default_belief_path`, weights-only)."""
        ckpt = _load_for(path, "ppo", rules)
        if ckpt.get("ensemble"):
            raise ValueError(f"ppo:{path} holds {1 + len(ckpt['ensemble'])} networks that play as one agent: "
                             f"load it with agents.rl.policies.load_ppo_policy (the spec ppo:PATH)")
        return cls.from_fields(ckpt, f"ppo:{path}", rules, seed=seed, greedy=greedy, device=device)

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any], name: str, rules: Rules | str | None = None,
                    seed: SeedLike = None, greedy: bool = True, device: str = "cpu") -> PPOPolicy:
        """The policy of one network's checkpoint fields (``model`` to ``rules``,
        :mod:`agents.checkpoint`), already checked by :func:`_check_network`."""
        encoder = fields.get("encoder", "mlp")  # checkpoints from before the option hold an MLP
        if encoder not in ENCODERS:
            raise ValueError(f"{name}: unknown encoder {encoder!r} (this code builds {', '.join(ENCODERS)})")
        belief = None
        if fields.get("belief_input", False):  # checkpoints from before the option read no belief
            from agents.checkpoint import CheckpointError
            from agents.search.belief import belief_features
            from hollywood_env.rules import resolve_rules

            try:
                belief = belief_features(resolve_rules(rules) if rules is not None else Rules.from_dict(fields["rules"]))
            except CheckpointError as e:
                raise CheckpointError(f"{name} reads the learned belief (ppo.belief_input): {e}") from None
        net = ActorCritic(fields["obs_dim"], fields["num_actions"], fields["hidden"], int(fields.get("critic_inputs", 0)),
                          encoder=encoder, extra_inputs=BELIEF_SIZE if belief is not None else 0)
        forbid = fields["rules"].get("forbid_discard_of_taken_card", True)
        return cls.from_weights(net, fields["model"], greedy=greedy, seed=seed, device=device, name=name,
                                forbid_taken=forbid, belief=belief)


class PPOEnsemblePolicy:
    """Several PPO networks as one policy (the spec ``ppo-ensemble:A.pt+B.pt``).

    It acts on the mean of the members' log-probabilities over the legal actions (the normalised
    geometric mean of their distributions): greedy, its argmax; sampled, from it with its own
    ``torch.Generator``. Each member reads the observation as it was trained to (its own features
    and rules checks). Two training seeds of the ``ppo-gin-rummy`` recipe as one agent win about 2
    points of games more against ``marjj`` than either alone (docs/results.md, "The EAAI game").
    """

    def __init__(self, members: list[PPOPolicy], greedy: bool = True, seed: SeedLike = None,
                 name: str = "ppo-ensemble"):
        if len(members) < 2:
            raise ValueError(f"{name}: an ensemble needs two or more PPO networks, got {len(members)}")
        self.members = members
        self.greedy = greedy
        self.name = name
        self.generator = torch_generator(seed)

    @torch.no_grad()
    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mean = torch.stack([p.distribution(obs, mask).log_probs for p in self.members]).mean(0)
        dist = MaskedCategorical(mean, torch.as_tensor(mask, device=mean.device))
        a = dist.mode() if self.greedy else dist.sample(self.generator)
        return a.cpu().numpy()


def load_ppo_policy(path: str | Path, rules: Rules | str | None = None, seed: SeedLike = None,
                    greedy: bool = True, device: str = "cpu") -> PPOPolicy | PPOEnsemblePolicy:
    """The agent of a PPO checkpoint (the spec ``ppo:PATH``): a :class:`PPOPolicy`, or for a
    shipped ensemble (the checkpoint field ``ensemble``) a :class:`PPOEnsemblePolicy` of its
    networks, the first one first. A sampling ensemble draws with its own generator; its networks
    stay greedy (only their log-probabilities are read)."""
    ckpt = _load_for(path, "ppo", rules)
    if not ckpt.get("ensemble"):
        return PPOPolicy.from_fields(ckpt, f"ppo:{path}", rules, seed=seed, greedy=greedy, device=device)
    networks = [ckpt, *ckpt["ensemble"]]
    members = [PPOPolicy.from_fields(f, f"ppo:{path} network {i + 1}", rules, device=device)
               for i, f in enumerate(networks)]
    return PPOEnsemblePolicy(members, greedy=greedy, seed=seed, name=f"ppo:{path}")


def ppo_ensemble_from_spec(paths: str, rules: Rules | str | None = None, seed: SeedLike = None) -> PPOEnsemblePolicy:
    """``ppo-ensemble:A.pt+B.pt+...`` (:mod:`agents.registry`): the PPO checkpoints joined by
    ``+`` as one :class:`PPOEnsemblePolicy`; each is loaded as ``ppo:PATH`` is (a shipped PPO's
    short name, such as ``ppo-gin-rummy``, stands for its model file), and the networks of a
    shipped ensemble among them each join as one member."""
    from agents.registry import CHECKPOINT_LOADERS, AgentSpecError, checkpoint_loader

    parts = [p.strip() for p in paths.split("+")]
    if len(parts) < 2 or not all(parts):
        raise AgentSpecError(f"ppo-ensemble:{paths}: give two or more PPO checkpoints joined by '+' (files, run "
                             f"folders or shipped PPO names), e.g. ppo-ensemble:runs/a/checkpoints/best.pt+runs/b "
                             f"or ppo-ensemble:ppo-gin-rummy+runs/c")
    load = checkpoint_loader("ppo", CHECKPOINT_LOADERS["ppo"])
    members = []
    for p in parts:
        policy = load(p, rules=rules)
        members += policy.members if isinstance(policy, PPOEnsemblePolicy) else [policy]
    return PPOEnsemblePolicy(members, seed=seed, name=f"ppo-ensemble:{paths}")


def greedy_actions(q: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The argmax of ``q`` over the legal actions (``mask`` True) of each row."""
    return masked_logits(q, mask).argmax(-1)


def epsilon_greedy(q: torch.Tensor, mask: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Greedy legal actions, replaced with probability ``epsilon`` by a uniformly random legal one."""
    actions = greedy_actions(q, torch.as_tensor(mask, device=q.device)).cpu().numpy()
    if epsilon > 0 and len(actions):
        explore = rng.random(len(actions)) < epsilon
        if explore.any():
            actions[explore] = random_legal_actions(mask[explore], rng)
    return actions


class DQNPolicy:
    """A Q-network as a batched policy ``(obs, mask) -> actions``: greedy over the legal actions
    (with probability ``epsilon`` a uniformly random legal action instead)."""

    def __init__(self, net: DuelingQNetwork, epsilon: float = 0.0, seed: SeedLike = None, device: str = "cpu",
                 name: str = "dqn", forbid_taken: bool = True):
        self.net = net.to(device).eval()
        self.forbid_taken = forbid_taken  # the rules' forbid_discard_of_taken_card, for the features
        self.epsilon = float(epsilon)
        self.device = device
        self.name = name
        self.rng = as_generator(seed)

    @torch.no_grad()
    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if obs.shape[1] + NUM_FEATURES != self.net.obs_dim:
            raise ValueError(f"{self.name}: observation size {obs.shape[1]} does not match the network's "
                             f"{self.net.obs_dim - NUM_FEATURES} (trained with other rules?)")
        m = torch.as_tensor(mask, device=self.device)
        q = self.net(torch.as_tensor(augment(obs, mask, self.forbid_taken), device=self.device), m)
        return epsilon_greedy(q, np.asarray(mask, bool), self.epsilon, self.rng)

    @classmethod
    def from_weights(cls, net: DuelingQNetwork, weights: Mapping[str, Any], epsilon: float = 0.0, seed: SeedLike = None,
                     device: str = "cpu", name: str = "dqn", forbid_taken: bool = True) -> DQNPolicy:
        """The policy of ``net`` (a network of the weights' shape) once ``weights`` are loaded into
        it (a state dict of tensors or numpy arrays, :func:`agents.rl.networks.load_weights`): the one
        way a DQN policy is built from weights (checkpoints, league snapshots)."""
        load_weights(net, weights)
        return cls(net, epsilon=epsilon, seed=seed, device=device, name=name, forbid_taken=forbid_taken)

    @classmethod
    def from_checkpoint(cls, path: str | Path, rules: Rules | str | None = None, seed: SeedLike = None,
                        epsilon: float = 0.0, device: str = "cpu") -> DQNPolicy:
        ckpt = _load_for(path, "dqn", rules)
        net = DuelingQNetwork(ckpt["obs_dim"], ckpt["num_actions"], ckpt["hidden"])
        forbid = ckpt["rules"].get("forbid_discard_of_taken_card", True)
        return cls.from_weights(net, ckpt["model"], epsilon=epsilon, seed=seed, device=device, name=f"dqn:{path}",
                                forbid_taken=forbid)


class MaskedActorPolicy:
    """An actor network as a batched policy ``(obs, mask) -> actions``: the logits of illegal
    actions are set to ``-inf``; greedy (argmax) or sampled with its own ``torch.Generator``.
    Reads the observation as it is (no derived features). ``name`` prefixes its error messages."""

    def __init__(self, actor: torch.nn.Sequential, greedy: bool = True, seed: SeedLike = None, name: str = "actor"):
        self.actor = actor
        self.obs_dim = actor[0].in_features
        self.num_actions = [m for m in actor if isinstance(m, torch.nn.Linear)][-1].out_features
        self.greedy = greedy
        self.name = name
        self.generator = torch_generator(seed)

    @torch.no_grad()
    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if obs.shape[1] != self.obs_dim:
            raise ValueError(f"{self.name}: observation size {obs.shape[1]} does not match the model's {self.obs_dim} "
                             f"(trained with other rules?)")
        logits = self.actor(torch.as_tensor(obs, dtype=torch.float32))
        m = torch.as_tensor(np.asarray(mask, bool))
        logits = logits.masked_fill(~m, -torch.inf)
        if self.greedy:
            return logits.argmax(-1).numpy()
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=self.generator)[:, 0].numpy()
