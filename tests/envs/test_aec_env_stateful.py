"""Stateful (Hypothesis ``RuleBasedStateMachine``) tests of the PettingZoo AEC env: random
sequences of legal, illegal and out-of-order calls on ``hollywood_env.env()`` (the classic
wrappers' behaviour built in) and ``hollywood_env.aec_env.raw_env``, checked against the module
docstring of :mod:`hollywood_env.aec_env` and against the engine state (``env.state``):

* every failure is a documented error (raw_env: ``IllegalActionError`` / ``ValueError``,
  ``TypeError`` for a non-integer, ``ResetNeededError``; env(): PettingZoo's ``AssertionError``
  for an action out of bounds or a call before reset, the illegal-move termination with -1);
* a refused call changes nothing (engine state, observations, masks, rewards, infos,
  ``agent_selection``, ``agents``);
* the legal mask is the engine's, agrees with a brute-force deadwood count, and every action it
  allows is accepted; the 52 cards are all somewhere;
* no observation, info or render output shows a hidden card: the observation's planes equal an
  independent record of the public events, a copy of the env with the hidden cards (the other
  hand's unknown cards, the stock order) swapped observes and renders the same, the render text
  names only cards the viewer may see, and a hand's infos hold only what its end reveals;
* rewards are zero-sum, accumulate until an agent acts, and in ``hollywood`` mode add up to the
  scoresheet difference / 100; episodes end when the match (or, per hand, the hand) ends or at
  ``max_steps``; ``reset`` after an end works (seeded: the same deal as a fresh env).

Fast settings: a low target so matches end, ``derandomize=True`` and no example database, so the
default suite is deterministic. ``-m slow`` runs a heavier profile.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import warnings

import numpy as np
import pytest
from helpers import revealed_at_hand_end, stateful_settings, swap_hidden, visible_to
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule, run_state_machine_as_test
from pettingzoo.utils.env_logger import EnvLogger

import hollywood_env
from hollywood_env.actions import (
    BIG_GIN,
    DRAW_STOCK,
    KIND_NAMES,
    KIND_WALL,
    KNOCK,
    NUM_ACTIONS,
    PASS,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_FIRST_UPCARD,
    TAKE_DISCARD,
)
from hollywood_env.aec_env import IllegalActionError, ResetNeededError, raw_env
from hollywood_env.cards import mask_to_cards, parse_card
from hollywood_env.melds import deadwood_after_discard_masks
from hollywood_env.observation import HAND, OPP_DISCARDED, OPP_KNOWN, OWN_DISCARDED, PILE, PILE_TOP, SheetCache
from hollywood_env.reference import min_deadwood  # brute force: independent of the engine's fast path
from hollywood_env.rules import Rules

NAMES = ("player_0", "player_1")
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][cdhs])(?![A-Za-z0-9])")

#: rules whose hands and matches end within a few dozen decisions (a low target, a high knock
#: limit or an early wall), covering one and three columns, Oklahoma, big gin, straight gin and
#: the taken-card rule off; the plain rules last
FAST_RULES = (
    Rules.preset("gin-rummy-simple").replace(target=40, knock_limit=40, wall_stock_size=20),
    Rules.preset("hollywood").replace(target=25, knock_limit=40, wall_stock_size=12),
    Rules.preset("oklahoma").replace(target=30, wall_stock_size=22),
    Rules.preset("gin-rummy").replace(target=30, knock_limit=25, wall_stock_size=16, big_gin=True,
                                      forbid_discard_of_taken_card=False),
    Rules.preset("straight-gin").replace(target=10, columns=1, wall_stock_size=24),
    Rules.preset("gin-rummy-simple").replace(target=10),
)
RULES_IDS = ("gin-rummy-simple", "hollywood", "oklahoma", "gin-rummy+big_gin", "straight-gin", "plain")

#: values that are no action of Discrete(108) (bools: see test_env_refuses_a_bool_action)
NOT_ACTIONS = (-1, 108, 1000, -(2**40), 2**63, 1.0, 2.5, float("nan"), "3", "draw", [104], (104,),
               np.array([104, 105]), np.float32(104), np.int64(-5), np.int64(108), np.uint64(104))
#: what raw_env takes as an action (one integer, as an array of one) but env() refuses
RAW_ONLY = ("[104]", "(104,)", "np.uint64(104)")


def cards_of(plane) -> set[int]:
    return {int(c) for c in np.flatnonzero(plane)}


def hand_cards(state, p: int) -> set[int]:
    return set(mask_to_cards(int(state.hands[0, p])))


def hidden_from(state, viewer: int) -> set[int]:
    """What ``viewer`` may not see now: the stock and the other hand's cards not taken from the pile."""
    opp = 1 - viewer
    stock = {int(c) for c in state.deck[0, int(state.stock_pos[0]):]}
    return stock | (hand_cards(state, opp) - set(mask_to_cards(int(state.known[0, opp]))))


def copy_env(env):
    """A copy of ``env`` with its own engine state, to read (observe, render) but not to step
    (``copy.deepcopy`` goes through EzPickle, which builds a fresh env from the constructor's
    arguments instead)."""
    other = type(env).__new__(type(env))
    other.__dict__.update(env.__dict__)
    other.state = copy.deepcopy(env.state)
    other._obs_cache = {}
    other._sheet_cache = SheetCache()
    return other


def state_snapshot(state) -> dict:
    out = {}
    for f in dataclasses.fields(state):
        v = getattr(state, f.name)
        if isinstance(v, np.ndarray):
            out[f.name] = v.copy()
        elif f.name == "sheet":
            out[f.name] = {k: (x.copy() if isinstance(x, np.ndarray) else copy.deepcopy(x)) for k, x in vars(v).items()}
        else:
            out[f.name] = copy.deepcopy(v)
    return out


def assert_same(a, b, where=""):
    """Deep equality of snapshots holding numpy arrays."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), (where, a.keys(), getattr(b, "keys", lambda: b)())
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (where, a, b)
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b), where
    else:
        assert a == b, (where, a, b)


def greedy_action(state, mask, pick: int) -> int:
    """A legal action that ends hands soon: big gin, else the lowest knock, else the discard
    leaving the least deadwood; draws chosen by ``pick``."""
    legal = np.flatnonzero(mask)
    if mask[BIG_GIN]:
        return BIG_GIN
    if int(state.phase[0]) != PHASE_DISCARD:
        return int(legal[pick % len(legal)])
    after = deadwood_after_discard_masks(state.hands[:1, int(state.current_player[0])])[0]
    knocks = [a for a in legal if KNOCK <= a < DRAW_STOCK]
    if knocks:
        return int(min(knocks, key=lambda a: (int(after[a - KNOCK]), a)))
    return int(min((a for a in legal if a < KNOCK), key=lambda a: (int(after[a]), a)))


class AECMachine(RuleBasedStateMachine):
    """One env, driven by random calls; the model holds what the docstring says must follow."""

    def __init__(self):
        super().__init__()
        self.env = None

    # --- setup -----------------------------------------------------------------------------
    RULES = FAST_RULES[0]  # each test runs a subclass per rules set (machine_for)

    @initialize(kind=st.sampled_from(["env", "raw"]),
                reward=st.sampled_from(["hollywood", "hollywood", "hand", "match"]), per_hand=st.booleans(),
                max_steps=st.sampled_from([None, 5000, 40, 12]), render_mode=st.sampled_from([None, "ansi", "ansi", "rgb_array"]),
                swap_seed=st.integers(0, 2**16))
    def build(self, kind, reward, per_hand, max_steps, render_mode, swap_seed):
        rules = self.RULES
        self.kind = kind
        self.config = dict(rules=rules, reward=reward, per_hand_episodes=per_hand, max_steps=max_steps,
                           render_mode=render_mode)
        self.env = hollywood_env.env(**self.config) if kind == "env" else raw_env(**self.config)
        self.rules, self.reward_mode, self.per_hand, self.max_steps = rules, reward, per_hand, max_steps
        self.render_mode = render_mode
        self.rng = np.random.default_rng(swap_seed)  # the swaps of the hidden cards
        self.has_reset = False
        self.iter_ready = False  # env(): agent_iter may yield (a step or reset since its last yield)

    def teardown(self):
        if self.env is not None:
            self.env.close()

    # --- the model ---------------------------------------------------------------------------
    def _new_match(self):
        self.match_reward = 0.0     # player_0's rewards of this match's legal steps
        self.match_steps = 0        # decisions of this match
        self._new_hand()

    def _new_hand(self):
        self.taken = {0: set(), 1: set()}       # cards taken from the pile this hand, still held
        self.discards = {0: set(), 1: set()}    # cards discarded this hand

    def _after_reset(self):
        env = self.env
        self.has_reset = True
        self.iter_ready = True
        self.accum = dict.fromkeys(NAMES, 0.0)
        self.infos = {a: {} for a in NAMES}
        self.done = dict.fromkeys(NAMES, False)
        self.next_hand = False
        assert env.agents == list(NAMES)
        assert not any(env.terminations.values()) and not any(env.truncations.values())
        assert env.rewards == dict.fromkeys(NAMES, 0.0) and env.infos == {a: {} for a in NAMES}
        assert env.agent_selection == NAMES[int(env.state.current_player[0])]
        assert env.observe(env.agent_selection)["action_mask"].any()

    def snapshot(self) -> dict:
        env = self.env
        snap = {"state": state_snapshot(env.state) if env.state is not None else None}
        if self.has_reset:
            snap.update(rewards=dict(env.rewards), cumulative=dict(env._cumulative_rewards),
                        terminations=dict(env.terminations), truncations=dict(env.truncations),
                        infos=copy.deepcopy(env.infos), agent_selection=env.agent_selection, agents=list(env.agents),
                        observations={a: env.observe(a) for a in NAMES})
        return snap

    def expect_refused(self, call, errors, match=None):
        """``call()`` raises one of ``errors`` (with ``match`` in its message) and changes nothing."""
        before = self.snapshot()
        with pytest.raises(errors) as info:
            call()
        if match is not None:
            assert re.search(match, str(info.value)), str(info.value)
        assert str(info.value).strip(), "an error without a message"
        assert_same(before, self.snapshot(), "refused call changed")
        return info.value

    @property
    def to_act(self):
        return self.env.agent_selection

    def alive_to_act(self) -> bool:
        return self.has_reset and bool(self.env.agents) and not self.done[self.to_act]

    # --- out of order: before the first reset --------------------------------------------------
    @precondition(lambda self: not self.has_reset)
    @rule(call=st.sampled_from(["step", "step_none", "observe", "last", "render", "agent_iter", "attribute"]))
    def call_before_reset(self, call):
        env = self.env
        if self.kind == "env":
            # PettingZoo's OrderEnforcingWrapper: AssertionError for calls, AttributeError for attributes
            if call == "attribute":
                for name in ("rewards", "terminations", "truncations", "infos", "agent_selection", "agents",
                             "num_agents"):
                    with pytest.raises(AttributeError, match="before reset"):
                        getattr(env, name)
                return
            fns = {"step": lambda: env.step(DRAW_STOCK), "step_none": lambda: env.step(None),
                   "observe": lambda: env.observe("player_0"), "last": env.last, "render": env.render,
                   "agent_iter": lambda: next(iter(env.agent_iter()))}
            # last() reads agent_selection first: the wrapper's AttributeError
            errors = (AssertionError, AttributeError) if call == "last" else AssertionError
            self.expect_refused(fns[call], errors, "reset")
        else:
            if call in ("agent_iter", "attribute"):
                return  # raw_env has no order checks of its own there (PettingZoo's base class)
            if call == "render" and self.render_mode is None:
                with pytest.warns(UserWarning, match="render_mode"):
                    assert env.render() is None
                return
            fns = {"step": lambda: env.step(DRAW_STOCK), "step_none": lambda: env.step(None),
                   "observe": lambda: env.observe("player_0"), "last": env.last, "render": env.render}
            self.expect_refused(fns[call], ResetNeededError, r"reset\(\)")
        assert env.state is None

    # --- resets ---------------------------------------------------------------------------------
    @rule(seed=st.integers(0, 2**31 - 1))
    def reset_seeded(self, seed):
        self.env.reset(seed=seed)
        self._after_reset()
        self._new_match()
        # the same deal as a fresh env reset with the same seed
        fresh = hollywood_env.env(**self.config) if self.kind == "env" else raw_env(**self.config)
        fresh.reset(seed=seed)
        assert fresh.agent_selection == self.env.agent_selection
        for a in NAMES:
            assert_same(fresh.observe(a), self.env.observe(a), f"reset(seed={seed}) observation of {a}")
        assert_same(state_snapshot(fresh.state)["deck"], state_snapshot(self.env.state)["deck"])

    @precondition(lambda self: self.has_reset)
    @rule()
    def reset_unseeded(self):
        st_ = self.env.state
        before = state_snapshot(st_)
        continues = self.next_hand
        self.env.reset()
        self._after_reset()
        after = state_snapshot(self.env.state)
        if continues:  # per-hand episodes: the next hand of the same match, dealt at the last hand's end
            for name in ("deck", "hands", "pile", "sheet", "hand_number", "step_count", "match_seed"):
                assert_same(before[name], after[name], f"reset() continuing the match changed {name}")
            self._new_hand()
        else:  # a new match
            assert int(after["step_count"][0]) == 0 and not after["terminated"][0] and not after["truncated"][0]
            assert self.env.state.sheet.totals(np.array([0]))[0].sum() == 0
            assert int(after["match_seed"][0]) != int(before["match_seed"][0])
            self._new_match()

    # --- steps ----------------------------------------------------------------------------------
    @precondition(lambda self: self.alive_to_act())
    @rule(policy=st.sampled_from(["greedy", "greedy", "random"]), n=st.integers(1, 60), pick_seed=st.integers(0, 2**16),
          form=st.sampled_from(["int", "int", "np.int64", "0-d array", "1-element array"]))
    def step_legal(self, policy, n, pick_seed, form):
        """Up to ``n`` legal moves read from the observed mask (fewer if the episode ends), the
        invariants checked after each."""
        picks = np.random.default_rng(pick_seed)
        for i in range(n):
            if not self.alive_to_act():
                return
            if i:
                self.consistent()
            env, agent = self.env, self.to_act
            p = NAMES.index(agent)
            mask = env.observe(agent)["action_mask"]
            legal = np.flatnonzero(mask)
            pick = int(picks.integers(10**6))
            a = greedy_action(env.state, mask, pick) if policy == "greedy" else int(legal[pick % len(legal)])
            assert mask[a]
            value = {"int": a, "np.int64": np.int64(a), "0-d array": np.array(a), "1-element array": np.array([a])}[form]
            if form == "1-element array" and self.kind == "env":
                # not in Discrete(108): AssertOutOfBoundsWrapper refuses it, and nothing changes
                self.expect_refused(lambda e=env, v=value: e.step(v), AssertionError, "not in action space")
                self.iter_ready = True
                value = a
            top = int(env.state.pile_top[0])
            env.step(value)
            self.iter_ready = True
            self._after_legal_step(agent, p, a, top)

    def _after_legal_step(self, agent, p, a, top):
        env, st_ = self.env, self.env.state
        self.match_steps += 1
        self.infos[agent] = {}
        # rewards: zero-sum, paid to both, accumulated until the agent acts
        r = env.rewards
        assert set(r) == set(NAMES) and abs(r["player_0"] + r["player_1"]) < 1e-12, r
        if not st_.hand_ended[0]:
            assert r == dict.fromkeys(NAMES, 0.0), "a reward at a step that ended no hand"
        self.accum[agent] = 0.0
        for name in NAMES:
            self.accum[name] += r[name]
        self.match_reward += r["player_0"]
        if self.reward_mode == "hollywood":
            tot = st_.sheet.totals(np.array([0]))[0].sum(axis=1)
            assert abs(self.match_reward - (int(tot[0]) - int(tot[1])) / 100.0) < 1e-9, (self.match_reward, tot)
        # the public record, and what a hand's end reveals
        if st_.hand_ended[0]:
            self._check_hand_end_infos()
        if st_.hand_ended[0] and not st_.terminated[0]:
            self._new_hand()  # the next hand is dealt at once
        else:  # (the match's last hand stays on the table)
            if a == TAKE_DISCARD:
                self.taken[p].add(top)
            elif a < DRAW_STOCK:
                card = a % KNOCK
                self.discards[p].add(card)
                self.taken[p].discard(card)
        # episode ends: the match (or the hand, per hand), or max_steps decisions of the match
        terminated = bool(st_.terminated[0]) or (self.per_hand and bool(st_.hand_ended[0]))
        truncated = not terminated and self.max_steps is not None and self.match_steps >= self.max_steps
        assert self.max_steps is None or self.match_steps <= self.max_steps
        assert env.terminations == dict.fromkeys(NAMES, terminated), (env.terminations, terminated)
        assert env.truncations == dict.fromkeys(NAMES, truncated), (env.truncations, truncated)
        if terminated or truncated:
            self.done = dict.fromkeys(NAMES, True)
            self.next_hand = terminated and not st_.terminated[0] and not st_.truncated[0]
        assert env.agent_selection == NAMES[int(st_.current_player[0])]

    def _check_hand_end_infos(self):
        """Each agent's info is its view of the ended hand: both hands after a knock, gin or big
        gin, its own only after a wall; every card in it is one the end revealed to it."""
        env, st_ = self.env, self.env.state
        kind = int(st_.hand_kind[0])
        for name in NAMES:
            seat = NAMES.index(name)
            info = env.infos[name]
            assert info["hand_ended"] is True and info["kind"] == KIND_NAMES[kind]
            shown = {NAMES[0]: 0, NAMES[1]: 1} if kind != KIND_WALL else {name: seat}
            assert set(info["hands"]) == set(shown), (info["kind"], info["hands"].keys())
            for who, s in shown.items():
                assert info["hands"][who] == mask_to_cards(int(st_.ended_hands[0, s]))
            cards = {c for h in info["hands"].values() for c in h} | set(info["laid_off"])
            cards |= {c for m in info["knocker_melds"] + info["defender_melds"] for c in m}
            assert cards <= revealed_at_hand_end(st_, 0, seat), "an info shows a card the hand's end did not reveal"
            if kind == KIND_WALL:
                assert info["winner"] is None and info["points"] == 0 and info["knocker_melds"] == []
            assert info["match_over"] == bool(st_.terminated[0])
            self.infos[name] = copy.deepcopy(info)

    @precondition(lambda self: self.alive_to_act())
    @rule(pick=st.integers(0, 10**6))
    def step_illegal(self, pick):
        env, agent = self.env, self.to_act
        mask = env.observe(agent)["action_mask"]
        illegal = np.flatnonzero(mask == 0)
        a = int(illegal[pick % len(illegal)])
        if self.kind == "raw":
            err = self.expect_refused(lambda: env.step(a), IllegalActionError)
            assert isinstance(err, ValueError) and agent in str(err) and str(a) in str(err)
            return
        # env(): TerminateIllegalWrapper(illegal_reward=-1): the game ends, the engine is untouched
        before = state_snapshot(env.state)
        EnvLogger.mqueue.clear()
        env.step(a)
        self.iter_ready = True
        assert any("Illegal move" in m for m in EnvLogger.mqueue)
        assert_same(before, state_snapshot(env.state), "an illegal move changed the engine state")
        assert env.terminations == dict.fromkeys(NAMES, True) and env.truncations == dict.fromkeys(NAMES, True)
        assert env.rewards == {agent: -1.0, NAMES[1 - NAMES.index(agent)]: 0}
        self.accum[agent] = -1.0
        self.done = dict.fromkeys(NAMES, True)
        self.next_hand = False

    @precondition(lambda self: self.has_reset and bool(self.env.agents))
    @rule(value=st.sampled_from(NOT_ACTIONS))
    def step_not_an_action(self, value):
        env = self.env
        if self.kind == "env":
            if self.done[self.to_act] and value is None:
                return
            self.expect_refused(lambda: env.step(value), AssertionError, "not in action space")
            self.iter_ready = True
        elif self.done[self.to_act]:
            self.expect_refused(lambda: env.step(value), ValueError, "only valid action is None")
        elif repr(value) in RAW_ONLY:
            return  # an action for raw_env (step_legal plays such forms)
        elif isinstance(value, (int, np.integer)):
            self.expect_refused(lambda: env.step(value), IllegalActionError, "out of range")
        else:
            self.expect_refused(lambda: env.step(value), TypeError, "one integer")

    @precondition(lambda self: self.alive_to_act())
    @rule()
    def step_none_while_alive(self):
        err = ValueError if self.kind == "raw" else AssertionError
        self.expect_refused(lambda: self.env.step(None), err, "None")
        self.iter_ready = True

    @precondition(lambda self: self.has_reset and bool(self.env.agents) and self.done[self.to_act])
    @rule(a=st.integers(0, NUM_ACTIONS - 1))
    def step_action_when_done(self, a):
        # a terminated or truncated agent must step with None
        self.expect_refused(lambda: self.env.step(a), ValueError, "only valid action is None")
        self.iter_ready = True

    @precondition(lambda self: self.has_reset and bool(self.env.agents) and self.done[self.to_act])
    @rule()
    def step_dead(self):
        env, agent = self.env, self.to_act
        state_before = state_snapshot(env.state)
        env.step(None)
        self.iter_ready = True
        assert agent not in env.agents and agent not in env.rewards and agent not in env.infos
        del self.accum[agent], self.infos[agent]
        assert env.rewards == dict.fromkeys(env.agents, 0)
        assert_same(state_before, state_snapshot(env.state), "a dead step changed the engine state")
        if env.agents:
            assert env.agent_selection in env.agents

    @precondition(lambda self: self.has_reset and not self.env.agents)
    @rule(action=st.sampled_from([None, 0, DRAW_STOCK, 107]))
    def step_after_every_agent_is_done(self, action):
        env = self.env
        if action is None or self.kind == "env":
            before = self.snapshot()
            EnvLogger.mqueue.clear()
            env.step(action)  # ignored, with PettingZoo's warning
            self.iter_ready = True
            assert any("step() called after all agents are terminated" in m for m in EnvLogger.mqueue)
            assert_same(before, self.snapshot(), "an ignored step changed")
        else:
            self.expect_refused(lambda: env.step(action), ResetNeededError, r"call reset\(\)")

    # --- reading --------------------------------------------------------------------------------
    @precondition(lambda self: self.has_reset and bool(self.env.agents))
    @rule()
    def last(self):
        env = self.env
        before = self.snapshot()
        obs, reward, terminated, truncated, info = env.last()
        agent = self.to_act
        assert_same(obs, env.observe(agent))
        assert reward == pytest.approx(self.accum[agent], abs=1e-12)
        assert terminated == env.terminations[agent] and truncated == env.truncations[agent]
        assert info == self.infos[agent]
        if self.done[agent]:
            assert terminated or truncated
            assert not obs["action_mask"].any()
        assert_same(before, self.snapshot(), "last() changed")

    @precondition(lambda self: self.has_reset)
    @rule()
    def render(self):
        env = self.env
        before = self.snapshot()
        if self.render_mode is None:
            with pytest.warns(UserWarning, match="render_mode"):
                assert env.render() is None
            return
        out = env.render()
        viewer = NAMES.index(env.agent_selection)
        # a copy whose hidden cards (from the viewer's seat) are swapped renders the same
        other = copy_env(env)
        swap_hidden(other.state, 0, viewer, self.rng)
        got = other.render()
        if self.render_mode == "rgb_array":
            assert out.dtype == np.uint8 and out.ndim == 3 and out.shape[2] == 3
            assert np.array_equal(out, got), "the picture depends on a hidden card"
        else:
            assert out == got, f"the text depends on a hidden card:\n{out}\n---\n{got}"
            shown = {parse_card(t) for t in CARD_TOKEN.findall(out)}
            allowed = visible_to(env.state, 0, viewer)
            assert shown <= allowed, f"hidden cards rendered: {sorted(shown - allowed)}\n{out}"
        assert_same(before, self.snapshot(), "render() changed")

    @precondition(lambda self: self.kind == "env" and self.has_reset)
    @rule()
    def agent_iter(self):
        # env(): agent_iter yields the agent to act only after a step() or reset() since its last yield
        env = self.env
        it = env.agent_iter()
        if not env.agents:
            with pytest.raises(StopIteration):
                next(it)
        elif self.iter_ready:
            assert next(it) == env.agent_selection
            self.iter_ready = False
        else:
            with pytest.raises(AssertionError, match="need to call step"):
                next(it)

    # --- invariants -------------------------------------------------------------------------------
    @invariant()
    def consistent(self):
        if self.env is None or not self.has_reset:
            return
        env, st_ = self.env, self.env.state
        assert env.agents == [a for a in NAMES if a in self.accum]
        assert env._cumulative_rewards == pytest.approx(self.accum, abs=1e-12)
        for a in env.agents:
            assert env.infos[a] == self.infos[a], f"{a}'s info changed before it acted"
            assert self.done[a] == (env.terminations[a] or env.truncations[a])
        self._check_cards(st_)
        for a in NAMES:
            self._check_observation(a)

    def _check_cards(self, st_):
        """The 52 cards: both hands, the pile and the stock, each card in one place (while a hand is played)."""
        if int(st_.phase[0]) not in (PHASE_FIRST_UPCARD, PHASE_DRAW, PHASE_DISCARD):
            return
        pile = [int(c) for c in st_.pile[0, :int(st_.pile_size[0])]]
        stock = [int(c) for c in st_.deck[0, int(st_.stock_pos[0]):]]
        places = [hand_cards(st_, 0), hand_cards(st_, 1), set(pile), set(stock)]
        assert len(pile) == len(set(pile)) and len(stock) == len(set(stock)) == int(st_.stock_size[0])
        assert sum(map(len, places)) == 52 and set().union(*places) == set(range(52))
        p = int(st_.current_player[0])
        sizes = (len(places[p]), len(places[1 - p]))
        assert sizes == ((11, 10) if int(st_.phase[0]) == PHASE_DISCARD else (10, 10)), sizes

    def _check_observation(self, agent):
        env, st_ = self.env, self.env.state
        p, opp = NAMES.index(agent), 1 - NAMES.index(agent)
        obs = env.observe(agent)
        o, mask = obs["observation"], obs["action_mask"]
        assert o.dtype == np.float32 and o.shape == env.observation_space(agent)["observation"].shape
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        # the card planes: own hand, the pile, and the public record kept here
        assert cards_of(o[HAND]) == hand_cards(st_, p)
        pile = [int(c) for c in st_.pile[0, :int(st_.pile_size[0])]]
        assert cards_of(o[PILE_TOP]) == ({pile[-1]} if pile else set())
        assert [int(c) for c in np.argsort(o[PILE])[52 - len(pile):]] == pile and cards_of(o[PILE]) == set(pile)
        assert cards_of(o[OPP_KNOWN]) == self.taken[opp] <= hand_cards(st_, opp)
        assert cards_of(o[OPP_DISCARDED]) == self.discards[opp] and cards_of(o[OWN_DISCARDED]) == self.discards[p]
        seen = set().union(*(cards_of(o[s]) for s in (HAND, PILE_TOP, PILE, OPP_KNOWN, OPP_DISCARDED, OWN_DISCARDED)))
        assert not seen & hidden_from(st_, p), "an observation shows a hidden card"
        # swap test: the hidden cards exchanged, the observation is the same
        other = copy_env(env)
        swap_hidden(other.state, 0, p, self.rng)
        assert_same(obs, other.observe(agent), f"{agent}'s observation depends on a hidden card")
        # the mask: the engine's legal actions for the agent to act, all 0 otherwise
        if agent == env.agent_selection and agent in env.agents and not self.done[agent]:
            assert np.array_equal(mask, st_.legal_action_mask[0].astype(np.int8))
            self._check_mask(st_, p, mask)
        else:
            assert not mask.any(), f"{agent} is not to act but its mask allows {np.flatnonzero(mask)}"

    def _check_mask(self, st_, p, mask):
        legal = set(np.flatnonzero(mask).tolist())
        assert legal, "the agent to act has no legal action"
        phase = int(st_.phase[0])
        hand = hand_cards(st_, p)
        if phase == PHASE_FIRST_UPCARD:
            assert legal == {TAKE_DISCARD, PASS}
        elif phase == PHASE_DRAW:
            assert legal == {DRAW_STOCK, TAKE_DISCARD} if int(st_.pile_size[0]) else {DRAW_STOCK}
        else:
            assert phase == PHASE_DISCARD and len(hand) == 11
            taken = int(st_.taken_card[0])
            locked = {taken} if taken >= 0 and self.rules.forbid_discard_of_taken_card else set()
            limit = int(st_.knock_limit[0])
            assert {a for a in legal if a < KNOCK} == hand - locked
            after = {c: min_deadwood(sorted(hand - {c})) for c in hand - locked}
            assert {a - KNOCK for a in legal if KNOCK <= a < DRAW_STOCK} == {c for c, d in after.items() if d <= limit}
            assert (BIG_GIN in legal) == (self.rules.big_gin and min_deadwood(sorted(hand)) == 0)
            assert not legal & {DRAW_STOCK, TAKE_DISCARD, PASS}


FAST = stateful_settings(5, 40)
HEAVY = stateful_settings(60, 150)


def machine_for(rules: Rules) -> type:
    return type(f"AECMachine_{FAST_RULES.index(rules)}", (AECMachine,), {"RULES": rules})


@pytest.mark.parametrize("rules", FAST_RULES, ids=RULES_IDS)
def test_aec_env_random_call_sequences(rules):
    run_state_machine_as_test(machine_for(rules), settings=FAST)


@pytest.mark.slow
@pytest.mark.parametrize("rules", FAST_RULES, ids=RULES_IDS)
def test_aec_env_random_call_sequences_heavy(rules):
    run_state_machine_as_test(machine_for(rules), settings=HEAVY)


# --- regressions: bugs the machine found ---------------------------------------------------------


def test_env_refuses_a_bool_action():
    env = hollywood_env.env(rules="gin-rummy-simple")
    env.reset(seed=1)  # player_0 to take the first upcard or pass: action 1 (discard 2c) is illegal
    assert not env.observe(env.agent_selection)["action_mask"][1]
    with pytest.raises(AssertionError, match="not in action space"):
        env.step(np.True_)
    before = (state_snapshot(env.state), dict(env.terminations), dict(env.rewards))
    with pytest.raises((AssertionError, TypeError)):
        env.step(True)
    assert_same(before, (state_snapshot(env.state), dict(env.terminations), dict(env.rewards)))


@pytest.mark.parametrize("make", [hollywood_env.env, raw_env], ids=["env", "raw_env"])
def test_last_once_every_agent_is_done_says_to_reset(make):
    env = make(rules="gin-rummy-simple", max_steps=3)
    env.reset(seed=1)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agents == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=r"reset\(\)"):
            env.last()


@pytest.mark.parametrize("make,end", [(hollywood_env.env, "per_hand"), (raw_env, "per_hand"), (hollywood_env.env, "illegal")],
                         ids=["env-hand_end", "raw_env-hand_end", "env-illegal_move"])
def test_mask_is_all_0_once_every_agent_is_done(make, end):
    env = make(rules=dict(columns=1, knock_limit=100), per_hand_episodes=end == "per_hand")
    env.reset(seed=1)
    if end == "per_hand":
        env.step(TAKE_DISCARD)  # player_0 takes the first upcard...
        env.step(KNOCK + 10)    # ...and knocks discarding Jc: the hand, and so the episode, ends
    else:
        env.step(0)             # an illegal move: env() ends the game with -1
    assert all(env.terminations.values())
    env.step(None)
    env.step(None)
    assert env.agents == []
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any(), (agent, np.flatnonzero(env.observe(agent)["action_mask"]))
