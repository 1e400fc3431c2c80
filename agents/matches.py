"""Batched duplicate-deal matches: agent A against agent B on shared deals.

:func:`play_pairing` plays ``n_pairs`` duplicate pairs of agent A against agent B in one batch of
the core engine: game ``i`` and game ``i + n_pairs`` get the same slot seed, hence the same deals
and the same first dealer (cut from the seed); A sits in seat 0 of game ``i`` and in seat 1 of
game ``i + n_pairs``, so every deal is played twice with the seats swapped and the luck of the
cards cancels. Each step, the rows where A is to move go to A (one call), the others to B.
A ``max_steps`` cap (decisions per match) ends runaway matches; they count as *truncated*.

An agent that fails mid-match raises its error; an error that asks for the results so far (a
``match_interrupted`` method, as ``proc:`` agents' :class:`~agents.interop.proc_agent.ProcAgentError`)
is first given them as its ``partial_result``: the games with ``terminated | truncated`` finished.

With ``per_hand=True`` each game stops after its first hand (a wall included), so a pair is one
deal played twice.

This is the one place matches between agents are played: training evaluations and league gates
(:mod:`agents.rl.loop`), ``hollywood evaluate`` and the round robins of
:mod:`experiments.evaluation.tournament` all call it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.registry import Policy, call_policy, make_agent
from hollywood_env import core
from hollywood_env.actions import KIND_BIG_GIN, KIND_GIN, KIND_KNOCK, KIND_UNDERCUT, KIND_WALL
from hollywood_env.cards import STOCK_START
from hollywood_env.observation import encode
from hollywood_env.rules import Rules, resolve_rules

DEFAULT_MAX_STEPS = 5000
DEFAULT_BATCH_PAIRS = 4096


@dataclass
class PairingResult:
    """Raw per-game results of A against B; game ``i`` and ``i + n_pairs`` form duplicate pair ``i``.

    Per-game arrays have length ``2 * n_pairs``; counts are from A's and B's point of view
    (``a_*`` / ``b_*``), not seats. Hands are counted in every game, truncated ones included.
    """

    agent_a: str
    agent_b: str
    rules: Rules
    n_pairs: int
    per_hand: bool
    seed: int | None
    max_steps: int | None
    a_seat: np.ndarray
    slot_seed: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    match_winner: np.ndarray  # 0: A, 1: B, 2: draw, -1: not finished
    hands: np.ndarray  # hands dealt (walls included)
    walls: np.ndarray
    a_hands: np.ndarray  # hands won
    b_hands: np.ndarray
    a_points: np.ndarray  # hand points won (after any Oklahoma multiplier)
    b_points: np.ndarray
    a_gins: np.ndarray  # gins and big gins
    b_gins: np.ndarray
    a_undercuts: np.ndarray  # A, defending, undercut B's knock
    b_undercuts: np.ndarray
    a_knocks: np.ndarray  # knocks that were not gin (won or undercut)
    b_knocks: np.ndarray
    a_games: np.ndarray  # Hollywood games (columns) won
    b_games: np.ndarray
    a_total: np.ndarray  # final scoresheet totals (columns plus bonuses, summed)
    b_total: np.ndarray
    first_hand_a: np.ndarray  # (2N,) uint64: A's cards in the first deal (for checks)
    first_hand_b: np.ndarray
    decisions: int = 0
    a_decisions: int = 0
    b_decisions: int = 0
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def n_games(self) -> int:
        return 2 * self.n_pairs

    def pair(self, x: np.ndarray) -> np.ndarray:
        """Sum a per-game array over each duplicate pair -> (n_pairs,)."""
        x = np.asarray(x)
        return x[: self.n_pairs] + x[self.n_pairs:]

    @staticmethod
    def concat(parts: list[PairingResult]) -> PairingResult:
        """Join results of consecutive chunks (pairs keep their order: all first halves then all second halves)."""
        if len(parts) == 1:
            return parts[0]
        first = parts[0]
        arrays = {}
        for name, value in vars(first).items():
            if isinstance(value, np.ndarray):
                halves = [np.concatenate([p.__dict__[name][: p.n_pairs] for p in parts]),
                          np.concatenate([p.__dict__[name][p.n_pairs:] for p in parts])]
                arrays[name] = np.concatenate(halves)
        out = PairingResult(**{**vars(first), **arrays})
        out.n_pairs = sum(p.n_pairs for p in parts)
        out.decisions = sum(p.decisions for p in parts)
        out.a_decisions = sum(p.a_decisions for p in parts)
        out.b_decisions = sum(p.b_decisions for p in parts)
        out.seconds = sum(p.seconds for p in parts)
        return out


def deal_seeds(seed: int | None, n_pairs: int) -> np.ndarray:
    """The slot seeds of ``n_pairs`` deals (a pure function of ``seed``)."""
    return core.slot_seeds(seed, n_pairs)


def agent_generators(seed: int | None, k: int) -> list[np.random.Generator]:
    """``k`` independent generators for the agents of a match set seeded ``seed``."""
    ss = np.random.SeedSequence(None if seed is None else [int(seed), 0x5EED])
    return [np.random.default_rng(s) for s in ss.spawn(k)]


def play_pairing(agent_a: str | Policy, agent_b: str | Policy, rules: Rules | str | None = None, n_pairs: int = 1000,
                 seed: int | None = 0, *,
                 max_steps: int | None = DEFAULT_MAX_STEPS, per_hand: bool = False, slot_seeds: np.ndarray | None = None,
                 batch_pairs: int = DEFAULT_BATCH_PAIRS, progress: Any = None, names: tuple[str, str] | None = None,
                 agent_seeds: tuple[Any, Any] | None = None) -> PairingResult:
    """Play ``n_pairs`` duplicate pairs (``2 * n_pairs`` matches, or hands with ``per_hand``) of
    ``agent_a`` against ``agent_b``.

    Agents are specs for :func:`agents.registry.make_agent` or policies. ``seed`` fixes the deals
    (unless ``slot_seeds`` gives them) and the agents' randomness. ``progress``: an object with
    ``update(n)`` (a tqdm bar) told of the games' progress, in games (fractional:
    :func:`game_progress`, at most every 0.2 s; the ``2 * n_pairs`` games in all). Pairs are played ``batch_pairs`` at
    a time.
    """
    rules = resolve_rules(rules)
    if n_pairs < 1:
        raise ValueError(f"n_pairs must be at least 1, got {n_pairs}")
    if slot_seeds is None:
        slot_seeds = deal_seeds(seed, n_pairs)
    slot_seeds = np.asarray(slot_seeds, dtype=np.uint64)
    if slot_seeds.shape != (n_pairs,):
        raise ValueError(f"slot_seeds must have shape ({n_pairs},), got {slot_seeds.shape}")
    name_a = names[0] if names else (agent_a if isinstance(agent_a, str) else getattr(agent_a, "name", "A"))
    name_b = names[1] if names else (agent_b if isinstance(agent_b, str) else getattr(agent_b, "name", "B"))
    rng_a, rng_b = agent_seeds if agent_seeds is not None else agent_generators(seed, 2)
    pa = make_agent(agent_a, rules, seed=rng_a)
    pb = make_agent(agent_b, rules, seed=rng_b)
    parts = []
    for s in range(0, n_pairs, batch_pairs):
        try:
            parts.append(_play_batch(pa, pb, rules, slot_seeds[s: s + batch_pairs], max_steps, per_hand, progress,
                                     (str(name_a), str(name_b))))
        except Exception as exc:
            _interrupted(exc, parts, (str(name_a), str(name_b)), seed)
            raise
    out = PairingResult.concat(parts)
    out.agent_a, out.agent_b, out.seed = str(name_a), str(name_b), seed
    return out


def _interrupted(exc: BaseException, parts: list[PairingResult], names: tuple[str, str], seed) -> None:
    """An agent failed: an error that asks for them (a ``match_interrupted(partial)`` method and a
    ``partial_result`` attribute, as :class:`agents.interop.proc_agent.ProcAgentError`) is given
    the results so far, the earlier batches included; other errors pass unchanged."""
    hook, batch = getattr(exc, "match_interrupted", None), getattr(exc, "partial_result", None)
    if callable(hook) and isinstance(batch, PairingResult):
        out = PairingResult.concat([*parts, batch])
        out.agent_a, out.agent_b, out.seed = names[0], names[1], seed
        hook(out)


def act(policy: Policy, name: str, state: core.State, rows: np.ndarray) -> np.ndarray:
    """The policy's actions for the games ``rows``, checked (shape, integers, legality) so that a
    faulty agent is named in the error. A policy with ``reads_history = True`` is also given the
    public history of the hand (``history=``, :func:`hollywood_env.history.encode_history`)."""
    mask = state.legal_action_mask[rows]
    a = call_policy(policy, encode(state, games=rows), mask, state, games=rows)
    if a.shape != (rows.size,):
        raise ValueError(f"agent {name!r} returned actions of shape {a.shape} for {rows.size} observations; "
                         f"a policy maps (n, D) observations and (n, 108) masks to (n,) actions")
    if not np.issubdtype(a.dtype, np.integer):
        if np.issubdtype(a.dtype, np.floating) and np.all(a == np.round(a)):
            a = a.astype(np.int64)
        else:
            raise ValueError(f"agent {name!r} returned non-integer actions (dtype {a.dtype})")
    ok = (a >= 0) & (a < mask.shape[1])
    ok[ok] = mask[np.flatnonzero(ok), a[ok]]
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"agent {name!r} played the illegal action {int(a[i])} in game {int(rows[i])} "
                         f"(legal: {np.flatnonzero(mask[i]).tolist()})")
    return a


def game_progress(state: core.State, stopped: np.ndarray, per_hand: bool) -> np.ndarray:
    """(B,) float in [0, 1]: how far each game is, for progress bars. A batch's games all end at
    about the same time, so counting finished games stays near 0 until the end; instead a match
    counts the points of each column towards the target (a finished column: 1), a single hand
    the cards drawn from the stock towards the wall; finished games count 1."""
    rules = state.rules
    if per_hand:
        drawable = max(1, 31 - rules.wall_stock_size)
        frac = np.clip((state.stock_pos - STOCK_START) / drawable, 0.0, 0.99)
    else:
        sheet = state.sheet
        cols = np.where(sheet.game_winner >= 0, 1.0, np.minimum(sheet.columns.max(axis=1) / rules.target, 0.99))
        frac = cols.mean(axis=1)
    return np.where(state.terminated | state.truncated | stopped, 1.0, frac)


def _play_batch(pa, pb, rules, seeds, max_steps, per_hand, progress, names=("A", "B")) -> PairingResult:
    n = seeds.shape[0]
    b = 2 * n
    t0 = time.perf_counter()
    state = core.init(b, rules, seed=np.concatenate([seeds, seeds]), max_steps=max_steps)
    a_seat = np.concatenate([np.zeros(n, np.int8), np.ones(n, np.int8)])
    b_seat = 1 - a_seat
    first_hand_a = state.hands[np.arange(b), a_seat.astype(np.int64)].copy()
    first_hand_b = state.hands[np.arange(b), 1 - a_seat.astype(np.int64)].copy()
    z = lambda: np.zeros(b, dtype=np.int64)  # noqa: E731
    hands, walls, ah, bh, ap, bp, ag, bg, au, bu, ak, bk = (z() for _ in range(12))
    stopped = np.zeros(b, dtype=bool)  # per-hand mode: games stopped after their first hand
    actions = np.zeros(b, dtype=np.int64)
    decisions = a_dec = b_dec = 0
    done_before, last_report = 0.0, t0
    failure = None
    while True:
        idx = np.flatnonzero(~(state.terminated | state.truncated | stopped))
        if idx.size == 0:
            break
        on_a = state.current_player[idx] == a_seat[idx]
        ia, ib = idx[on_a], idx[~on_a]
        try:
            if ia.size:
                actions[ia] = act(pa, names[0], state, ia)
            if ib.size:
                actions[ib] = act(pb, names[1], state, ib)
        except Exception as exc:  # kept to attach the results so far (see _interrupted)
            failure = exc
            break
        decisions += idx.size
        a_dec += ia.size
        b_dec += ib.size
        core.step(state, actions, games=idx)
        e = np.flatnonzero(state.hand_ended)
        if e.size:
            kind = state.hand_kind[e]
            win = state.hand_winner[e]
            pts = state.hand_points[e]
            knocker = state.hand_knocker[e]
            sa, sb = a_seat[e], b_seat[e]
            wall = kind == KIND_WALL
            hands[e] += 1
            walls[e] += wall
            a_won, b_won = ~wall & (win == sa), ~wall & (win == sb)
            ah[e] += a_won
            bh[e] += b_won
            ap[e] += np.where(a_won, pts, 0)
            bp[e] += np.where(b_won, pts, 0)
            gin = (kind == KIND_GIN) | (kind == KIND_BIG_GIN)
            ag[e] += gin & (knocker == sa)
            bg[e] += gin & (knocker == sb)
            uc = kind == KIND_UNDERCUT
            au[e] += uc & (knocker == sb)
            bu[e] += uc & (knocker == sa)
            knock = (kind == KIND_KNOCK) | uc
            ak[e] += knock & (knocker == sa)
            bk[e] += knock & (knocker == sb)
            if per_hand:
                stopped[e] = True  # not stepped any more
        if progress is not None and time.perf_counter() - last_report >= 0.2:
            last_report = time.perf_counter()
            done_now = float(game_progress(state, stopped, per_hand).sum())
            if done_now > done_before:
                progress.update(done_now - done_before)
                done_before = done_now
    if progress is not None and b > done_before and failure is None:
        progress.update(b - done_before)
    totals = state.sheet.totals().sum(axis=2)  # (b, 2)
    gw = state.sheet.game_winner
    rows = np.arange(b)
    a_idx, b_idx = a_seat.astype(np.int64), b_seat.astype(np.int64)
    mw = state.match_winner.astype(np.int64)
    truncated = state.truncated & ~stopped
    terminated = state.terminated | stopped
    if per_hand:
        match_winner = np.full(b, -1, dtype=np.int64)
    else:
        match_winner = np.where(mw == 2, 2, np.where(mw < 0, -1, np.where(mw == a_idx, 0, 1)))
    result = PairingResult(
        agent_a="A", agent_b="B", rules=rules, n_pairs=n, per_hand=per_hand, seed=None, max_steps=state.max_steps,
        a_seat=a_seat, slot_seed=state.slot_seed.copy(), terminated=terminated, truncated=truncated,
        match_winner=match_winner, hands=hands, walls=walls, a_hands=ah, b_hands=bh, a_points=ap, b_points=bp,
        a_gins=ag, b_gins=bg, a_undercuts=au, b_undercuts=bu, a_knocks=ak, b_knocks=bk,
        a_games=(gw == a_seat[:, None]).sum(axis=1), b_games=(gw == b_seat[:, None]).sum(axis=1),
        a_total=totals[rows, a_idx], b_total=totals[rows, b_idx], first_hand_a=first_hand_a,
        first_hand_b=first_hand_b,
        decisions=decisions, a_decisions=a_dec, b_decisions=b_dec, seconds=time.perf_counter() - t0,
    )
    if failure is not None:
        if callable(getattr(failure, "match_interrupted", None)):
            result.agent_a, result.agent_b = names
            failure.match_interrupted(result)
        raise failure
    return result
