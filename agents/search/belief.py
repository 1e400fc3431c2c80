"""Beliefs over the opponent's hand: for each of the 52 cards, the probability that the opponent
holds it, from what the viewer has seen; and worlds drawn from a belief.

A player of Gin Rummy sees its own hand, the pile, the cards the opponent took from the pile and
still holds, and the public history of the hand (:mod:`hollywood_env.history`): every take, every
declined upcard, every discard, in order. The rest of the opponent's hand is hidden. A planner
(:mod:`agents.search.search`) plays its candidate moves in *worlds*, full games consistent with what it
saw; the better the worlds' opponent hands resemble the real one, the better its plans. Three
beliefs are provided, each a function of the viewer's information only:

=============  ==================================================================================
belief         how the opponent's unknown cards are guessed
=============  ==================================================================================
``learned``    a neural network (:class:`BeliefNet`) trained on the true hands of games played by
               many kinds of opponents (bots, search, trained agents): it reads the observation
               and the public history and outputs a probability per card
               (``models/belief_hollywood.pt``; its card says how it was trained and how it does)
``heuristic``  opponent hands *built up* as a player builds them (one draw-and-throw turn of the
               simple bot per turn the opponent has played) and the worlds *ranked* by how well
               the hand explains what the opponent passed on (:func:`heuristic_worlds`)
``uniform``    every unseen card equally likely (:func:`uniform_probabilities`)
=============  ==================================================================================

Hard facts are exact in every belief: a card the viewer can place elsewhere (its hand, the pile)
has probability 0, a card the opponent took from the pile and still holds has probability 1, and
the probabilities of the unseen cards sum to the number of unknown cards the opponent holds
(:func:`apply_hard_facts`). Worlds drawn from a belief (:func:`hollywood_env.determinize.
sample_worlds` with ``weights``) are always consistent with the viewer's information.

Inputs of the network (:func:`belief_inputs`): the card planes and scalars of the observation
(its first ``SHEET_START`` values), the scoresheet features padded to three columns (so one model
serves every preset), and the history encoding (``HISTORY_SIZE``). When no history is given the
history part is all zero with its ``GIVEN`` flag 0; the network is trained with such rows too, so
it degrades gracefully to the observation alone.

Files: :func:`save_belief` / :func:`load_belief` write and read a model file weights-only (tensors
and plain values; a file that holds code is refused).

As inputs of a network (``PPOConfig.belief_input``): :func:`belief_features` gives a
:class:`BeliefFeatures`, the learned belief read from the observation and the legal mask alone
(no history), which :func:`agents.rl.features.augment` appends to the features; the model file is
read once per process.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents import bots as B
from agents.checkpoint import CheckpointError, atomic_write, read_model_file
from agents.paths import MODELS_DIR
from hollywood_env import core
from hollywood_env import melds as M
from hollywood_env import observation as O
from hollywood_env.cards import CARD_BITS, NUM_CARDS, masks_to_bools
from hollywood_env.determinize import InfoSet, opponent_hand_size, sample_worlds, unseen_cards
from hollywood_env.history import HISTORY_SIZE, no_history
from hollywood_env.rules import Rules, resolve_rules

__all__ = [
    "BELIEFS", "BeliefNet", "LearnedBelief", "belief_inputs", "apply_hard_facts", "uniform_probabilities",
    "heuristic_worlds", "heuristic_probabilities", "save_belief", "load_belief", "default_belief_path",
    "INPUT_SIZE", "BELIEF_FORMAT", "BeliefFeatures", "belief_features",
]

BELIEFS = ("learned", "heuristic", "uniform")
#: columns of scoresheet features the network reads (presets with fewer are zero-padded)
SHEET_COLUMNS = 3
INPUT_SIZE = O.SHEET_START + O.SHEET_FEATURES * SHEET_COLUMNS + HISTORY_SIZE
BELIEF_FORMAT = "hollywood-belief"
BELIEF_VERSION = 1
_RANK = np.arange(NUM_CARDS) % 13
_EPS = 1e-4


def default_belief_path() -> Path:
    """``models/belief_hollywood.pt`` of the shipped models folder."""
    return Path(MODELS_DIR) / "belief_hollywood.pt"


# --- hard facts -----------------------------------------------------------------------------------


def _facts(info: InfoSet):
    """``(unseen (n, 52) bool, held (n, 52) bool, need (n,))``: the cards the viewer cannot place,
    the cards the opponent is known to hold, and how many unknown cards it holds."""
    unseen = masks_to_bools(unseen_cards(info))
    held = masks_to_bools(info.opp_known)
    need = opponent_hand_size(info) - held.sum(axis=1)
    return unseen, held, need


def apply_hard_facts(info: InfoSet, logits: np.ndarray, iterations: int = 30) -> np.ndarray:
    """``(n, 52)`` probabilities from per-card ``logits`` with the hard facts enforced: 0 for a
    card the viewer can place, 1 for a card the opponent is known to hold, and on the unseen cards
    ``sigmoid(logit + c)`` with the per-row shift ``c`` chosen (Newton's method) so that they sum
    to the number of unknown cards the opponent holds."""
    unseen, held, need = _facts(info)
    z = np.where(unseen, np.asarray(logits, dtype=np.float64), -np.inf)
    shift = np.zeros(z.shape[0])
    target = need.astype(np.float64)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(z + shift[:, None])))
        total = p.sum(axis=1)
        slope = (p * (1 - p)).sum(axis=1)
        step = np.where(slope > 1e-12, (target - total) / np.maximum(slope, 1e-12), 0.0)
        shift += np.clip(step, -5.0, 5.0)
    p = np.where(unseen, 1.0 / (1.0 + np.exp(-(z + shift[:, None]))), 0.0)
    p = np.where(need[:, None] <= 0, 0.0, p)
    return np.where(held, 1.0, p)


def uniform_probabilities(info: InfoSet) -> np.ndarray:
    """``(n, 52)``: every unseen card equally likely, with the hard facts."""
    unseen, held, need = _facts(info)
    p = np.where(unseen, (need / np.maximum(unseen.sum(axis=1), 1))[:, None], 0.0)
    return np.where(held, 1.0, p)


# --- the learned belief -----------------------------------------------------------------------------


def belief_inputs(obs: np.ndarray, history: np.ndarray | None, rules: Rules) -> np.ndarray:
    """``(n, INPUT_SIZE)`` float32 network inputs from observations ``(n, D)`` of ``rules`` and
    history encodings ``(n, HISTORY_SIZE)`` (``None``: no history)."""
    obs = np.asarray(obs, dtype=np.float32)
    n = obs.shape[0]
    c = rules.columns
    if c > SHEET_COLUMNS:
        raise ValueError(f"the belief network reads at most {SHEET_COLUMNS} scoresheet columns, these rules have {c}")
    out = np.zeros((n, INPUT_SIZE), dtype=np.float32)
    out[:, :O.SHEET_START] = obs[:, :O.SHEET_START]
    width = O.SHEET_FEATURES * c
    out[:, O.SHEET_START:O.SHEET_START + width] = obs[:, O.sheet_slice(rules)]
    hist = no_history(n) if history is None else np.asarray(history, dtype=np.float32)
    if hist.shape != (n, HISTORY_SIZE):
        raise ValueError(f"history must have shape ({n}, {HISTORY_SIZE}), got {hist.shape}")
    out[:, O.SHEET_START + O.SHEET_FEATURES * SHEET_COLUMNS:] = hist
    return out


#: card planes of the inputs: the six card planes of the observation, then the history's planes
CARD_PLANES = 6 + HISTORY_SIZE // NUM_CARDS
#: scalars of the inputs: the observation's 8 scalars, the padded scoresheet and the history flag
GLOBALS = (O.SHEET_START - 6 * NUM_CARDS) + O.SHEET_FEATURES * SHEET_COLUMNS + 1
#: ranks on each side of a card that its features see (runs reach two ranks either way)
RANK_WINDOW = 2


def _split_inputs(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(planes (N, CARD_PLANES, 4, 13), globals (N, GLOBALS))`` of :func:`belief_inputs` rows."""
    n = x.shape[0]
    obs_cards = x[:, :6 * NUM_CARDS].reshape(n, 6, NUM_CARDS)
    hist_start = INPUT_SIZE - HISTORY_SIZE
    hist_cards = x[:, hist_start:INPUT_SIZE - 1].reshape(n, HISTORY_SIZE // NUM_CARDS, NUM_CARDS)
    planes = torch.cat([obs_cards, hist_cards], dim=1).reshape(n, CARD_PLANES, 4, 13)
    glob = torch.cat([x[:, 6 * NUM_CARDS:hist_start], x[:, INPUT_SIZE - 1:]], dim=1)
    return planes, glob


class BeliefNet(nn.Module):
    """A card-centric network: one small MLP, shared by the 52 cards, scores each card from its
    neighbourhood, so what it learns of one card holds for all (suits are interchangeable and
    melds look the same at every rank).

    The features of card (suit ``s``, rank ``r``): every input plane at the ranks ``r - 2 .. r + 2``
    of suit ``s`` (its run neighbourhood; zeros off the ends), the sum of every plane over the other
    three suits at rank ``r`` (its set neighbourhood), its rank (one-hot) and the scalars. Layer
    one embeds them (``hidden``); the mean embedding over the 52 cards is added to each card's
    input of layer two (a summary of the whole position); a last linear layer gives the logit."""

    def __init__(self, hidden: int = 64, layers: int = 2):
        super().__init__()
        if hidden < 1 or layers < 1:
            raise ValueError(f"hidden and layers must be positive, got {hidden}, {layers}")
        self.hidden, self.layers = int(hidden), int(layers)
        # layer one is linear in the card's features, so it is computed part by part: a convolution
        # along the ranks of each suit (the run neighbourhood), a 1x1 convolution of the other
        # suits' sums (the set neighbourhood), a per-rank bias and a projection of the scalars
        self.run = nn.Conv2d(CARD_PLANES, self.hidden, kernel_size=(1, 2 * RANK_WINDOW + 1),
                             padding=(0, RANK_WINDOW))
        self.same_rank = nn.Conv2d(CARD_PLANES, self.hidden, kernel_size=1, bias=False)
        self.rank_bias = nn.Parameter(torch.zeros(1, self.hidden, 1, 13))
        self.scalars = nn.Linear(GLOBALS, self.hidden, bias=False)
        self.mix = nn.ModuleList([nn.Linear(2 * self.hidden, self.hidden) for _ in range(self.layers - 1)])
        self.out = nn.Linear(self.hidden, 1)

    def card_embeddings(self, x: torch.Tensor) -> torch.Tensor:
        """``(N, 52, hidden)``: layer one, each card's embedding of its own neighbourhood."""
        planes, glob = _split_inputs(x)
        n = planes.shape[0]
        others = planes.sum(dim=2, keepdim=True) - planes
        h = self.run(planes) + self.same_rank(others) + self.rank_bias + self.scalars(glob)[:, :, None, None]
        return torch.relu(h).reshape(n, self.hidden, NUM_CARDS).transpose(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[0]
        h = self.card_embeddings(x)
        for layer in self.mix:
            ctx = h.mean(dim=1, keepdim=True).expand_as(h)
            h = torch.relu(layer(torch.cat([h, ctx], dim=2)))
        return self.out(h).reshape(n, NUM_CARDS)


class LearnedBelief:
    """The probabilities of a :class:`BeliefNet` with the hard facts (:func:`apply_hard_facts`)."""

    def __init__(self, net: BeliefNet, meta: dict | None = None):
        self.net = net.eval()
        self.meta = dict(meta or {})

    @classmethod
    def from_file(cls, path: str | Path | None = None) -> LearnedBelief:
        net, meta = load_belief(path if path is not None else default_belief_path())
        return cls(net, meta)

    def logits(self, obs: np.ndarray, history: np.ndarray | None, rules: Rules) -> np.ndarray:
        x = torch.from_numpy(belief_inputs(obs, history, rules))
        with torch.no_grad():
            return self.net(x).numpy().astype(np.float64)

    def probabilities(self, info: InfoSet, obs: np.ndarray, history: np.ndarray | None = None) -> np.ndarray:
        """``(n, 52)`` for the information sets ``info`` read from ``obs`` (and ``history``)."""
        return apply_hard_facts(info, self.logits(obs, history, info.rules))


class BeliefFeatures:
    """The learned belief as inputs of a network (``PPOConfig.belief_input``): ``(obs, mask) ->
    (n, 52)`` float32, for each card the probability that the opponent holds it, read from the
    observations ``obs`` of ``rules`` and the legal masks alone (``history=None``) with the hard
    facts: ``belief.probabilities(InfoSet.from_observation(obs, mask, rules), obs, None)``, in
    pieces of at most :attr:`chunk` rows. Rows with no legal action (games waiting for a reset)
    get zeros."""

    def __init__(self, belief: LearnedBelief, rules: Rules | str | None = None):
        self.belief, self.rules = belief, resolve_rules(rules)
        if self.rules.columns > SHEET_COLUMNS:
            raise ValueError(f"the learned belief reads at most {SHEET_COLUMNS} scoresheet columns, "
                             f"these rules have {self.rules.columns}")

    #: rows per forward pass of the belief network: larger batches only cost more per row (their
    #: activations no longer fit in the caches; measured by ``experiments/research/belief_input.py``)
    chunk = 1024

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, mask = np.asarray(obs, dtype=np.float32), np.asarray(mask, dtype=bool)
        out = np.zeros((obs.shape[0], NUM_CARDS), dtype=np.float32)
        rows = np.flatnonzero(mask.any(axis=1))
        for start in range(0, rows.size, self.chunk):
            r = rows[start:start + self.chunk]
            if r.size == obs.shape[0]:  # every row, in one piece: no copies
                o, m = obs, mask
            else:
                o, m = obs[r], mask[r]
            out[r] = self.belief.probabilities(InfoSet.from_observation(o, m, self.rules), o, None)
        return out


_SHARED: dict[tuple, LearnedBelief] = {}


def belief_features(rules: Rules | str | None = None, path: str | Path | None = None) -> BeliefFeatures:
    """:class:`BeliefFeatures` of the model file ``path`` (default :func:`default_belief_path`) for
    ``rules``. The file is read once per process (again only if it changes); a missing or bad file
    is a :class:`CheckpointError` naming it (and, missing, how to make one)."""
    p = Path(path if path is not None else default_belief_path()).resolve()
    key = (str(p), p.stat().st_mtime_ns, p.stat().st_size) if p.is_file() else None
    belief = _SHARED.get(key) if key is not None else None
    if belief is None:
        belief = LearnedBelief.from_file(p)  # missing: the error names the file and how to train one
        if key is not None:
            _SHARED[key] = belief
    return BeliefFeatures(belief, rules)


def save_belief(path: str | Path, net: BeliefNet, meta: dict) -> None:
    """Write ``net`` and ``meta`` (plain values: the model card's facts) weights-only."""
    data = {"format": BELIEF_FORMAT, "version": BELIEF_VERSION, "hidden": net.hidden, "layers": net.layers,
            "input_size": INPUT_SIZE, "model": {k: v.detach().clone() for k, v in net.state_dict().items()},
            "meta": meta}
    atomic_write(path, lambda f: torch.save(data, f))


def load_belief(path: str | Path) -> tuple[BeliefNet, dict]:
    """``(net, meta)`` of a file written by :func:`save_belief`; a :class:`CheckpointError` for
    anything else (missing, empty, not a belief file, another input size, code in the file).
    Reading a file leaves torch's global random state as it was."""
    data, what = read_model_file(path, "belief model", BELIEF_FORMAT, "train one with `hollywood belief train`")
    if data.get("version") != BELIEF_VERSION or data.get("input_size") != INPUT_SIZE:
        raise CheckpointError(f"{what}: version {data.get('version')!r} with {data.get('input_size')!r} inputs "
                              f"(this code reads version {BELIEF_VERSION} with {INPUT_SIZE})")
    try:
        with torch.random.fork_rng(devices=[]):  # the initial weights are overwritten: leave torch's RNG as it was
            net = BeliefNet(int(data["hidden"]), int(data["layers"]))
        net.load_state_dict(data["model"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{what}: {type(e).__name__}: {str(e).splitlines()[0][:200]}") from None
    meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
    return net, meta


# --- the heuristic belief -----------------------------------------------------------------------------


def heuristic_worlds(info: InfoSet, w: int, rng: np.random.Generator, oversample: int = 4,
                     improve: float = 1.0, weights: np.ndarray | None = None) -> core.State:
    """``w`` worlds per information set under the heuristic belief: the most believable
    (:func:`believability`) of ``w * oversample`` uniform worlds whose opponent hands were built
    up (:func:`build_up_opponent_hands`, ``improve`` draw-and-throw turns per opponent turn).
    ``weights``: the pool is drawn from these card weights instead of uniformly (a learned
    belief's worlds refined by the heuristic)."""
    k = w * oversample
    pool = sample_worlds(info, k, rng, weights=weights)
    build_up_opponent_hands(pool, info, k, rng, improve)
    if oversample == 1:
        return pool
    score = believability(pool, info, k) + rng.random(pool.batch_size) * 0.5
    # keep, per row, the w most believable worlds (ties broken at random)
    n = len(info)
    order = np.argsort(-score.reshape(n, k), axis=1, kind="stable")[:, :w]
    keep = (np.arange(n)[:, None] * k + order).reshape(-1)
    return core.take(pool, keep)


def heuristic_probabilities(info: InfoSet, rng: np.random.Generator, worlds: int = 64, oversample: int = 4,
                            improve: float = 1.0) -> np.ndarray:
    """``(n, 52)``: how often each card is in the opponent's hand over the heuristic belief's
    worlds (smoothed towards uniform by one world), with the hard facts."""
    pool = heuristic_worlds(info, worlds, rng, oversample, improve)
    n = len(info)
    opp = 1 - pool.current_player.astype(np.int64)
    hands = masks_to_bools(pool.hands[np.arange(pool.batch_size), opp]).reshape(n, worlds, NUM_CARDS)
    freq = (hands.sum(axis=1) + uniform_probabilities(info)) / (worlds + 1)
    unseen, held, _ = _facts(info)
    return np.where(held, 1.0, np.where(unseen, freq, 0.0))


def build_up_opponent_hands(pool: core.State, info: InfoSet, k: int, rng: np.random.Generator, rate: float) -> None:
    """Make each world's opponent hand look like one a player has built: for each turn the
    opponent has played this hand (its discards, times ``rate``), it draws a random card of the
    world's stock and throws back, in its place, the highest-ranked card outside its best melds
    (never a card it took from the pile). The world stays consistent with what the viewer saw
    (the opponent's hand and the stock only exchange unseen cards); its opponent hand is no longer
    a uniform draw but one shaped by the simple bot's play, as the real one was."""
    if rate <= 0:
        return
    m = pool.batch_size
    rows = np.arange(m)
    opp = 1 - pool.current_player.astype(np.int64)  # the viewer is to act in every world
    turns = np.rint(M.popcount(np.repeat(info.discarded[:, 1], k)).astype(np.float64) * rate).astype(np.int64)
    known = pool.known[rows, opp]
    for t in range(int(turns.max(initial=0))):
        g = np.flatnonzero(turns > t)
        stock = NUM_CARDS - pool.stock_pos[g]
        pos = pool.stock_pos[g] + (rng.random(g.size) * stock).astype(np.int64)
        card = pool.deck[g, pos].astype(np.int64)
        h11 = pool.hands[g, opp[g]] | CARD_BITS[card]
        allowed = h11 & ~known[g]
        _, sets, runs = M.best_arrangement_masks(h11)
        out = B.highest_card(h11 & ~(sets | runs) & allowed)
        out = np.where(out < 0, B.highest_card(allowed), out)
        pool.hands[g, opp[g]] = h11 & ~CARD_BITS[out]
        pool.deck[g, pos] = out


def believability(pool: core.State, info: InfoSet, k: int) -> np.ndarray:
    """``(n * k,)`` scores of the sampled worlds under a model of an opponent that keeps melds
    and throws its highest deadwood, as the bots do; each disagreement costs one point:

    * each card the opponent passed on (its discards this hand, and our discards it did not take)
      that would lie in a meld with its world hand (a player that keeps melds neither throws nor
      declines such a card);
    * each deadwood card of its world hand ranked above its last discard, when that discard is the
      top of the pile (it would have thrown the higher card first);
    * a world hand that could knock (it would have knocked rather than discard and wait).
    """
    rows = np.arange(pool.batch_size)
    me = pool.current_player.astype(np.int64)  # the viewer is to act in every world
    opp_hand = pool.hands[rows, 1 - me]
    passed = np.repeat(info.discarded[:, 1] | (info.discarded[:, 0] & ~info.opp_known), k)
    score = -M.popcount(B.meldable_with(opp_hand) & passed).astype(np.float64)
    size = pool.pile_size
    top = np.where(size > 0, pool.pile[rows, np.maximum(size - 1, 0)].astype(np.int64), -1)
    opp_disc = np.repeat(info.discarded[:, 1], k)
    g = np.flatnonzero((top >= 0) & ((opp_disc & CARD_BITS[np.maximum(top, 0)]) != 0))
    if g.size:
        _, sets, runs = M.best_arrangement_masks(opp_hand[g])
        dead = masks_to_bools(opp_hand[g] & ~(sets | runs))
        score[g] -= (dead & (_RANK[None, :] > _RANK[top[g]][:, None])).sum(axis=1)
    score -= M.min_deadwood_masks(opp_hand) <= pool.knock_limit
    return score


def odds(p: np.ndarray) -> np.ndarray:
    """Card weights for :func:`hollywood_env.determinize.sample_worlds` from probabilities."""
    q = np.clip(p, _EPS, 1 - _EPS)
    return np.where(p > 0, q / (1 - q), 0.0)
