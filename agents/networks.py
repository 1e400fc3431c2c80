"""Torch networks for the learning agents, and the masked categorical used by PPO.

Masking convention (shared by PPO and DQN): an illegal action's logit (or Q-value) is replaced by
the most negative finite value of its dtype, so it is never sampled or chosen; the entropy is
taken over the legal actions only.
"""

from __future__ import annotations

import math
from typing import Sequence

import torch
from torch import nn


def layer_init(layer: nn.Linear, std: float = math.sqrt(2), bias: float = 0.0) -> nn.Linear:
    """Orthogonal initialisation (CleanRL's ``layer_init``)."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


def mlp(sizes: Sequence[int], activation=nn.ReLU) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [layer_init(nn.Linear(a, b)), activation()]
    return nn.Sequential(*layers)


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
    """Shared MLP trunk with a policy head (logits over all actions) and a value head."""

    def __init__(self, obs_dim: int, num_actions: int, hidden: Sequence[int] = (256, 256)):
        super().__init__()
        self.obs_dim, self.num_actions, self.hidden = obs_dim, num_actions, tuple(hidden)
        self.trunk = mlp([obs_dim, *hidden])
        self.policy = layer_init(nn.Linear(hidden[-1], num_actions), std=0.01)
        self.value = layer_init(nn.Linear(hidden[-1], 1), std=1.0)

    def forward(self, obs: torch.Tensor):
        h = self.trunk(obs)
        return self.policy(h), self.value(h).squeeze(-1)

    def get_value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value(self.trunk(obs)).squeeze(-1)


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
