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


#: the trunk inputs of :class:`ActorCritic` (``PPOConfig.encoder``)
ENCODERS = ("mlp", "conv")


def card_grid(obs: torch.Tensor, base_dim: int) -> torch.Tensor:
    """The per-card planes of ``obs`` (observation + derived features, the observation's part
    ``base_dim`` long) as a ``(n, 9, 4, 13)`` grid: channels the six 52-card planes of
    :mod:`hollywood_env.observation` then the three card planes of :mod:`agents.rl.features`;
    rows the suits, columns the ranks (card index ``suit * 13 + rank``,
    :mod:`hollywood_env.cards`), so a run lies along one row and a set down one column."""
    from agents.rl.features import NUM_CARD_PLANES
    from hollywood_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS

    n = obs.shape[0]
    planes = obs[:, : 6 * NUM_CARDS].reshape(n, 6, NUM_CARDS)
    derived = obs[:, base_dim: base_dim + NUM_CARD_PLANES * NUM_CARDS].reshape(n, NUM_CARD_PLANES, NUM_CARDS)
    return torch.cat([planes, derived], dim=1).reshape(n, 6 + NUM_CARD_PLANES, NUM_SUITS, NUM_RANKS)


def _conv_init(conv: nn.Conv2d, std: float = math.sqrt(2)) -> nn.Conv2d:
    nn.init.orthogonal_(conv.weight, std)
    nn.init.zeros_(conv.bias)
    return conv


class CardPlaneEncoder(nn.Module):
    """The card planes seen as a suits x ranks grid (:func:`card_grid`), for a trunk that "sees
    runs and sets".

    * runs: two convolutions along the ranks within each suit (kernel ``(1, 3)``, ``channels``
      then ``out_channels``, ReLU), so each card's features cover the two ranks either side of
      it in its suit (the ends of a suit see zero padding: the ace is low);
    * sets: one convolution across the four suits at each rank (kernel ``(4, 1)``,
      ``out_channels``, ReLU), which can count a rank's cards in each plane.

    Output: both feature maps flattened (``out_channels * (52 + 13)`` values, in the order suit,
    rank, channel), then the non-card part of the input (the observation's scalars and
    scoresheet, and the derived features that are not per card, then the ``extra_inputs`` values
    that follow the features, e.g. the learned belief's); ``out_dim`` values in all (559 for
    Hollywood's observation, close to the MLP's 507 inputs: the trunks cost about the same).
    """

    def __init__(self, obs_dim: int, channels: int = 16, out_channels: int = 8, extra_inputs: int = 0):
        super().__init__()
        from agents.rl.features import NUM_CARD_PLANES, NUM_FEATURES
        from hollywood_env.cards import NUM_CARDS, NUM_RANKS

        self.obs_dim, self.channels, self.out_channels = obs_dim, int(channels), int(out_channels)
        self.base_dim = obs_dim - NUM_FEATURES - int(extra_inputs)
        self.derived_end = self.base_dim + NUM_CARD_PLANES * NUM_CARDS  # the derived scalars follow
        planes = 6 + NUM_CARD_PLANES
        self.run1 = _conv_init(nn.Conv2d(planes, channels, kernel_size=(1, 3), padding=(0, 1)))
        self.run2 = _conv_init(nn.Conv2d(channels, out_channels, kernel_size=(1, 3), padding=(0, 1)))
        self.sets = _conv_init(nn.Conv2d(planes, out_channels, kernel_size=(4, 1)))
        rest = (self.base_dim - 6 * NUM_CARDS) + (obs_dim - self.derived_end)
        self.out_dim = out_channels * (NUM_CARDS + NUM_RANKS) + rest

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        n = obs.shape[0]
        # channels-last memory: the same values, several times faster for these small kernels on CPU
        grid = card_grid(obs, self.base_dim).contiguous(memory_format=torch.channels_last)
        runs = torch.relu(self.run2(torch.relu(self.run1(grid))))  # (n, C, 4, 13)
        sets = torch.relu(self.sets(grid))  # (n, C, 1, 13)
        # flattened as (suit, rank, channel): a view of the channels-last maps, no copy
        return torch.cat([runs.permute(0, 2, 3, 1).reshape(n, -1), sets.permute(0, 2, 3, 1).reshape(n, -1),
                          obs[:, 6 * 52: self.base_dim], obs[:, self.derived_end:]], dim=-1)


class ActorCritic(nn.Module):
    """Actor-critic for Gin: an MLP trunk with policy and value heads, plus a shared card term.

    Each card action (``DISCARD + c``, ``KNOCK + c``) also gets ``w . f_c``: one small linear map,
    shared by all 52 cards, of that card's own features ``f_c`` (its entries in the six 52-card
    planes of the observation and its melded / best-discard / discard-value features from
    :mod:`agents.rl.features`). So "discard the card whose removal leaves the least deadwood" is a
    couple of weights to learn, the same for every card, instead of 52 separate mappings through
    the trunk; the trunk's logits refine it from the whole observation.

    ``obs_dim`` is the size of the observation plus the derived features (the layout of
    :mod:`hollywood_env.observation` followed by :mod:`agents.rl.features`), plus ``extra_inputs``
    values after them (``PPOConfig.belief_input``: the learned belief's 52 probabilities), which
    the trunk reads like the rest of its input.

    ``critic_inputs > 0`` makes it an *asymmetric* actor-critic: the value comes from a critic
    trunk of its own that reads the observation plus ``critic_inputs`` privileged values (in
    training: the opponent's hand, see ``PPOConfig.privileged_critic``), a baseline with far less
    variance than one that must guess the hidden cards. The policy never reads them: the logits
    depend on ``obs`` only, so the agent that plays (and ships) uses public information alone.
    Without the privileged values ``forward`` gives no value (``None``).

    ``encoder`` chooses what the trunk reads: ``"mlp"`` (the default) the flat observation as it
    is; ``"conv"`` the card planes through a :class:`CardPlaneEncoder` (convolutions along the
    ranks of each suit for runs, a mixing across the suits of each rank for sets), with the
    non-card part of the observation appended. An asymmetric critic then has an encoder of its
    own. The card term is the same for both.
    """

    def __init__(self, obs_dim: int, num_actions: int, hidden: Sequence[int] = (256, 256), critic_inputs: int = 0,
                 encoder: str = "mlp", extra_inputs: int = 0):
        super().__init__()
        from agents.rl.features import NUM_CARD_PLANES, NUM_FEATURES

        if num_actions != 108:
            raise ValueError(f"ActorCritic is built for the 108-action table, got {num_actions}")
        if encoder not in ENCODERS:
            raise ValueError(f"unknown encoder {encoder!r}: one of {', '.join(ENCODERS)}")
        self.obs_dim, self.num_actions, self.hidden = obs_dim, num_actions, tuple(hidden)
        self.extra_inputs = int(extra_inputs)
        self.base_dim = obs_dim - NUM_FEATURES - self.extra_inputs  # where the derived features start
        self.critic_inputs = int(critic_inputs)
        self.encoder_name = encoder
        if encoder == "conv":
            self.encoder = CardPlaneEncoder(obs_dim, extra_inputs=self.extra_inputs)
            self.critic_encoder = CardPlaneEncoder(obs_dim, extra_inputs=self.extra_inputs) if self.critic_inputs else None
            trunk_in = self.encoder.out_dim
        else:  # the flat observation (modules and their order as before the option: same weights, same seed)
            self.encoder = self.critic_encoder = None
            trunk_in = obs_dim
        self.trunk = mlp([trunk_in, *hidden])
        self.policy = layer_init(nn.Linear(hidden[-1], num_actions), std=0.01)
        self.critic = mlp([trunk_in + self.critic_inputs, *hidden]) if self.critic_inputs else None
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
        h = self.trunk(obs if self.encoder is None else self.encoder(obs))
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
        x = obs if self.critic_encoder is None else self.critic_encoder(obs)
        return self.value(self.critic(torch.cat([x, critic_obs], dim=-1))).squeeze(-1)

    def get_value(self, obs: torch.Tensor, critic_obs: torch.Tensor | None = None) -> torch.Tensor:
        if self.critic is not None:
            return self._value(obs, None, critic_obs)
        return self._value(obs, self.trunk(obs if self.encoder is None else self.encoder(obs)), critic_obs)


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
