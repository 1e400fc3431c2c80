"""Torch networks for the learning agents, and the masked categorical used by PPO.

Masking convention (shared by PPO and DQN): an illegal action's logit (or Q-value) is replaced by
the most negative finite value of its dtype, so it is never sampled or chosen; the entropy is
taken over the legal actions only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn


def layer_init(layer: nn.Linear, std: float = math.sqrt(2), bias: float = 0.0) -> nn.Linear:
    """Orthogonal initialisation (CleanRL's ``layer_init``)."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


def mlp(sizes: Sequence[int], activation: Callable[[], nn.Module] = nn.ReLU) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [layer_init(nn.Linear(a, b)), activation()]
    return nn.Sequential(*layers)


def load_weights(net: nn.Module, weights: Mapping[str, Any]) -> None:
    """Load ``weights`` into ``net``: a state dict of torch tensors (on any device) or of numpy
    arrays (the collectors send weights between processes as numpy)."""
    net.load_state_dict({k: v if isinstance(v, torch.Tensor) else torch.tensor(np.asarray(v)) for k, v in weights.items()})


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal actions get the dtype's minimum, so softmax gives them exactly 0."""
    return torch.where(mask, logits, torch.finfo(logits.dtype).min)


class MaskedCategorical:
    """A categorical over legal actions only (mask: bool, True = legal)."""

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor):
        self.mask = mask
        self.logits = masked_logits(logits, mask)
        self.log_probs = torch.log_softmax(self.logits, dim=-1)

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        probs = self.log_probs.exp()
        return torch.multinomial(probs, 1, generator=generator).squeeze(-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        p = self.log_probs.exp()
        return -(torch.where(self.mask, p * self.log_probs, 0.0)).sum(-1)

    def mode(self) -> torch.Tensor:
        return self.logits.argmax(-1)


class ActorCritic(nn.Module):
    """Actor-critic for Gin: an MLP trunk with policy and value heads, plus a shared card term.

    Each card action (``DISCARD + c``, ``KNOCK + c``) also gets ``w . f_c``: one small linear map,
    shared by all 52 cards, of that card's own features ``f_c`` (its entries in the six 52-card
    planes of the observation and its melded / best-discard / discard-value features from
    :mod:`agents.features`). So "discard the card whose removal leaves the least deadwood" is a
    couple of weights to learn, the same for every card, instead of 52 separate mappings through
    the trunk; the trunk's logits refine it from the whole observation.

    ``obs_dim`` is the size of the observation plus the derived features (the layout of
    :mod:`hollywood_env.observation` followed by :mod:`agents.features`).

    ``critic_inputs > 0`` makes it an *asymmetric* actor-critic: the value comes from a critic
    trunk of its own that reads the observation plus ``critic_inputs`` privileged values (in
    training: the opponent's hand, see ``PPOConfig.privileged_critic``), a baseline with far less
    variance than one that must guess the hidden cards. The policy never reads them: the logits
    depend on ``obs`` only, so the agent that plays (and ships) uses public information alone.
    Without the privileged values ``forward`` gives no value (``None``).
    """

    def __init__(self, obs_dim: int, num_actions: int, hidden: Sequence[int] = (256, 256), critic_inputs: int = 0):
        super().__init__()
        from agents.features import NUM_CARD_PLANES, NUM_FEATURES

        if num_actions != 108:
            raise ValueError(f"ActorCritic is built for the 108-action table, got {num_actions}")
        self.obs_dim, self.num_actions, self.hidden = obs_dim, num_actions, tuple(hidden)
        self.base_dim = obs_dim - NUM_FEATURES  # where the derived features start
        self.critic_inputs = int(critic_inputs)
        self.trunk = mlp([obs_dim, *hidden])
        self.policy = layer_init(nn.Linear(hidden[-1], num_actions), std=0.01)
        self.critic = mlp([obs_dim + self.critic_inputs, *hidden]) if self.critic_inputs else None
        self.value = layer_init(nn.Linear(hidden[-1], 1), std=1.0)
        self.card_planes = NUM_CARD_PLANES
        self.card_term = nn.Linear(6 + NUM_CARD_PLANES, 2)  # shared over cards: (discard, knock) logit terms
        nn.init.zeros_(self.card_term.weight)
        nn.init.zeros_(self.card_term.bias)

    def forward(self, obs: torch.Tensor,
                critic_obs: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``(logits, value)``; ``critic_obs``: the privileged values of an asymmetric critic
        (value ``None`` when it is one and they are not given)."""
        n = obs.shape[0]
        h = self.trunk(obs)
        planes = obs[:, : 6 * 52].reshape(n, 6, 52)
        derived = obs[:, self.base_dim: self.base_dim + 52 * self.card_planes].reshape(n, self.card_planes, 52)
        card = self.card_term(torch.cat([planes, derived], dim=1).transpose(1, 2))  # (n, 52, 2)
        logits = self.policy(h)
        logits = torch.cat([logits[:, :52] + card[..., 0], logits[:, 52:104] + card[..., 1], logits[:, 104:]], dim=-1)
        return logits, self._value(obs, h, critic_obs)

    def _value(self, obs, h, critic_obs):
        if self.critic is None:
            return self.value(h).squeeze(-1)
        if critic_obs is None:
            return None
        return self.value(self.critic(torch.cat([obs, critic_obs], dim=-1))).squeeze(-1)

    def get_value(self, obs: torch.Tensor, critic_obs: torch.Tensor | None = None) -> torch.Tensor:
        return self._value(obs, None if self.critic is not None else self.trunk(obs), critic_obs)


class DuelingQNetwork(nn.Module):
    """MLP with a dueling head: Q = V + A - mean(A) (the mean over legal actions)."""

    def __init__(self, obs_dim: int, num_actions: int, hidden: Sequence[int] = (256, 256)):
        super().__init__()
        self.obs_dim, self.num_actions, self.hidden = obs_dim, num_actions, tuple(hidden)
        self.trunk = mlp([obs_dim, *hidden])
        self.value = layer_init(nn.Linear(hidden[-1], 1), std=1.0)
        self.advantage = layer_init(nn.Linear(hidden[-1], num_actions), std=0.01)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        h = self.trunk(obs)
        adv = self.advantage(h)
        if mask is None:
            mean = adv.mean(-1, keepdim=True)
        else:
            m = mask.to(adv.dtype)
            mean = (adv * m).sum(-1, keepdim=True) / m.sum(-1, keepdim=True).clamp(min=1.0)
        return self.value(h) + adv - mean
