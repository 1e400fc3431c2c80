"""Env safety: no hidden card in infos or render at any hand end, seeding of every
opponent, atomic vector-env steps, and clear errors for calls out of order."""

import copy
import dataclasses
import io
import re
import warnings
from contextlib import redirect_stdout

import gymnasium
import numpy as np
import pytest
from helpers import revealed_at_hand_end, swap_hidden, visible_to

from agents.bots import SimpleBot
from agents.registry import make_agent, registered_names
from hollywood_env import Rules, core
from hollywood_env.actions import BIG_GIN, KIND_NAMES, KIND_WALL, KNOCK, NUM_ACTIONS
from hollywood_env.aec_env import raw_env
from hollywood_env.cards import mask_to_cards, parse_card
from hollywood_env.render import hand_summary, render_state
from hollywood_env.selfplay import SelfPlayBatch, random_legal_actions
from hollywood_env.vector_env import HollywoodGinEnv, HollywoodGinVectorEnv, IllegalActionError, ResetNeededError

NAMES = ("player_0", "player_1")
FAST = Rules(target=30)
_CARD = re.compile(r"(?<![A-Za-z0-9_])([A2-9TJQK][cdhs])(?![A-Za-z0-9_])")


def cards_in_text(text: str) -> set[int]:
    return {parse_card(t) for t in _CARD.findall(text)}


def test_card_pattern_reads_the_cards_of_a_render():
    state = core.init(1, FAST, seed=3)
    text = render_state(state, 0, viewer=0)
    own = set(mask_to_cards(int(state.hands[0, 0])))
    assert cards_in_text(text) == own | {int(state.pile_top[0])}


def no_knock(rng):
    """Uniformly random legal moves that never knock: every hand between two of them is a wall."""
    def policy(obs, mask):
        m = np.array(mask, dtype=bool, copy=True).reshape(-1, NUM_ACTIONS)
        m[:, KNOCK:KNOCK + 52] = False
        m[:, BIG_GIN] = False
        if m.shape[0] == 1:
            return np.array([rng.choice(np.flatnonzero(m[0]))], dtype=np.int64)
        return random_legal_actions(m, rng)
    policy.uses_observations = False
    return policy


def info_cards(info: dict) -> set[int]:
    out = set()
    for cards in info.get("hands", {}).values():
        out |= set(cards)
    for key in ("knocker_melds", "defender_melds"):
        for meld in info.get(key, []):
            out |= set(meld)
    return out | set(info.get("laid_off", []))


def render_text(env) -> str:
    if env.render_mode == "ansi":
        return env.render()
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert env.render() is None
    return buf.getvalue()


def quiet_step(env, action):
    with redirect_stdout(io.StringIO()):
        env.step(action)


def clone(env):
    """A deep copy of an env (``copy.deepcopy`` of an ``EzPickle`` env rebuilds it from its arguments)."""
    new = object.__new__(type(env))
    new.__dict__.update(copy.deepcopy(env.__dict__))
    return new


def ends_hand(state, a: int) -> bool:
    wall = a < 52 and int(state.stock_size[0]) == state.rules.wall_stock_size
    return KNOCK <= a < KNOCK + 52 or a == BIG_GIN or wall


# --- 5. no hidden card in infos or render, at every kind of hand end --------------------------------


@pytest.mark.parametrize("rules, per_hand, render_mode, kinds", [
    (FAST, False, "ansi", {"knock", "undercut", "wall"}),
    (FAST.replace(knock_limit=3), True, "human", {"knock", "gin", "wall"}),
    (Rules.preset("straight-gin").replace(big_gin=True, target=60), False, "ansi", {"gin", "big_gin", "wall"}),
    (Rules.preset("oklahoma").replace(target=40), True, "ansi", {"knock", "wall"}),
], ids=["hollywood", "low-knock-limit-per-hand-human", "straight-gin-big-gin", "oklahoma-per-hand"])
def test_aec_infos_and_render_show_only_revealed_cards(rules, per_hand, render_mode, kinds):
    """At every hand end, for each agent: its info and the render from its view hold only the
    cards the rules reveal, and they (and its observation) do not change when the cards it cannot
    see are exchanged before the step that ends the hand."""
    rng = np.random.default_rng(1)
    bots = {"simple": SimpleBot(rules), "noknock": no_knock(np.random.default_rng(2))}
    pairings = [("simple", "simple")] * 3 + [("simple", "noknock"), ("simple", "simple"), ("noknock", "noknock")]
    e = raw_env(rules=rules, render_mode=render_mode, per_hand_episodes=per_hand)
    seen = {}
    swapped_cards = 0
    for match in range(60):
        if sum(seen.values()) >= 50 and all(seen.get(k, 0) >= 3 for k in kinds):
            break
        pair = pairings[match % len(pairings)]
        with redirect_stdout(io.StringIO()):
            e.reset(seed=100 + match)
        hands_here = 0
        for _ in range(3000):
            if not e.agents:
                if per_hand and hands_here < 6 and not e.state.done[0]:
                    with redirect_stdout(io.StringIO()):
                        e.reset()
                    continue
                break
            agent = e.agent_selection
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                quiet_step(e, None)
                continue
            seat = NAMES.index(agent)
            a = int(bots[pair[seat]](obs["observation"][None], obs["action_mask"][None].astype(bool))[0])
            if not ends_hand(e.state, a):
                quiet_step(e, a)
                continue
            before = clone(e)
            quiet_step(e, a)
            st = e.state
            assert st.hand_ended[0]
            kind = KIND_NAMES[int(st.hand_kind[0])]
            seen[kind] = seen.get(kind, 0) + 1
            hands_here += 1
            ended = [set(mask_to_cards(int(st.ended_hands[0, p]))) for p in (0, 1)]
            for v in (0, 1):
                name = NAMES[v]
                info = e.infos[name]
                assert info["hand_ended"] and info["kind"] == kind
                # direct: only what the rules reveal
                if kind == "wall":
                    assert info["hands"] == {name: sorted(ended[v])}, "after a wall an agent sees only its own hand"
                    assert not info["knocker_melds"] and not info["defender_melds"] and not info["laid_off"]
                else:
                    assert {n: set(c) for n, c in info["hands"].items()} == {NAMES[0]: ended[0], NAMES[1]: ended[1]}
                assert info_cards(info) <= revealed_at_hand_end(st, 0, v)
                if e.agent_selection == name:
                    assert cards_in_text(render_text(e)) <= visible_to(st, 0, v)
                # the same step with the cards v cannot see exchanged
                other = clone(before) if v == 0 else before
                keep = {a % 52} if a < KNOCK + 52 else set()
                if kind == "wall":
                    swapped_cards += swap_hidden(other.state, 0, v, rng, keep=keep)
                else:  # both hands are laid out: only the unread stock stays hidden
                    pos = int(other.state.stock_pos[0])
                    other.state.deck[0, pos:] = rng.permutation(other.state.deck[0, pos:])
                other._obs_cache = {}
                quiet_step(other, a)
                assert other.infos[name] == info
                got, want = other.observe(name), e.observe(name)
                np.testing.assert_array_equal(got["observation"], want["observation"])
                np.testing.assert_array_equal(got["action_mask"], want["action_mask"])
                if e.agent_selection == name:
                    assert render_text(other) == render_text(e)
    missing = [k for k in kinds if seen.get(k, 0) < 3]
    assert not missing, f"hand ends reached fewer than 3 times: {missing} (seen {seen})"
    assert swapped_cards >= 10


def test_hand_summary_and_render_state_of_a_viewer_hide_the_opponent_at_a_wall():
    rng = np.random.default_rng(0)
    policy = no_knock(rng)
    state = core.init(32, FAST, seed=4)
    walls = 0
    for _ in range(400):
        core.step(state, policy(None, state.legal_action_mask))
        for g in np.flatnonzero(state.hand_ended & (state.hand_kind == KIND_WALL)):
            walls += 1
            own = [mask_to_cards(int(state.ended_hands[g, p])) for p in (0, 1)]
            # the omniscient record (viewer=None) keeps both hands, for analysis tools
            assert hand_summary(state, g, NAMES)["hands"] == {NAMES[0]: own[0], NAMES[1]: own[1]}
            for v in (0, 1):
                assert hand_summary(state, g, NAMES, viewer=v)["hands"] == {NAMES[v]: own[v]}
                text = render_state(state, g, viewer=v)
                assert "the wall" in text
                assert cards_in_text(text) <= visible_to(state, g, v)
                other = copy.deepcopy(state)
                other.ended_hands[g, 1 - v] = np.uint64(sum(1 << c for c in range(52) if c not in own[v]))
                swap_hidden(other, g, v, rng)
                assert render_state(other, g, viewer=v) == text
    assert walls >= 20


def _opponent_pool(rules, rng):
    simple = SimpleBot(rules)
    nk = no_knock(rng)

    def mixed(obs, mask):  # every third row faces a knocker, the others a wall-maker
        out = nk(obs, mask)
        knocker = np.arange(mask.shape[0]) % 3 == 2
        if knocker.any():
            out[knocker] = simple(obs[knocker], mask[knocker])
        return out
    return mixed


@pytest.mark.parametrize("num_envs, per_hand", [(1, False), (3, True)])
def test_vector_env_infos_and_render_show_only_revealed_cards(num_envs, per_hand):
    rules = FAST
    rng = np.random.default_rng(5)
    v = HollywoodGinVectorEnv(num_envs, opponent=_opponent_pool(rules, np.random.default_rng(6)), rules=rules,
                              render_mode="ansi", per_hand_episodes=per_hand)
    obs, info = v.reset(seed=7)
    learner = no_knock(np.random.default_rng(8))
    walls_shown = checked = 0
    for step in range(300):
        acts = learner(None, info["action_mask"])
        if step % 4 == 0:  # the learner knocks too, sometimes
            acts = SimpleBot(rules)(obs, info["action_mask"])
        obs, r, term, trunc, info = v.step(acts)
        assert set(info) == {"action_mask", "learner_seat", "hands_ended"}
        np.testing.assert_array_equal(info["action_mask"], v.action_masks())
        assert info["hands_ended"].dtype.kind == "i" and info["hands_ended"].shape == (num_envs,)
        texts = v.render()
        st = v.state
        other = copy.deepcopy(v)
        for i, text in enumerate(texts):
            seat = int(v.learner_seat[i])
            assert cards_in_text(text) <= visible_to(st, i, seat), f"env {i}: {text}"
            walls_shown += "the wall" in text
            swap_hidden(other.state, i, seat, rng)
            if st.hand_ended[i] and st.hand_kind[i] == KIND_WALL:
                mine = int(st.ended_hands[i, seat])
                other.state.ended_hands[i, 1 - seat] = np.uint64(((1 << 52) - 1) & ~mine)
        assert other.render() == texts
        np.testing.assert_array_equal(other._observe(), obs)
        np.testing.assert_array_equal(other.action_masks(), v.action_masks())
        checked += 1
    assert walls_shown >= 3 and checked == 300


@pytest.mark.parametrize("render_mode", ["ansi", "human"])
def test_gym_env_infos_and_render_show_only_revealed_cards(render_mode):
    rng = np.random.default_rng(9)
    env = gymnasium.make("HollywoodGin-v0", opponent=no_knock(np.random.default_rng(10)), rules=FAST,
                         render_mode=render_mode, disable_env_checker=True).unwrapped
    with redirect_stdout(io.StringIO()):
        obs, info = env.reset(seed=3)
    learner = no_knock(np.random.default_rng(11))
    walls = 0
    for _ in range(400):
        a = int(learner(None, info["action_mask"][None])[0])
        with redirect_stdout(io.StringIO()):
            obs, r, term, trunc, info = env.step(a)
        assert set(info) == {"action_mask", "hands_ended"}
        text = render_text(env)
        st = env.venv.state
        seat = int(env.venv.learner_seat[0])
        assert cards_in_text(text) <= visible_to(st, 0, seat)
        walls += "the wall" in text
        other = copy.deepcopy(env)
        swap_hidden(other.venv.state, 0, seat, rng)
        if st.hand_ended[0]:
            other.venv.state.ended_hands[0, 1 - seat] = np.uint64(((1 << 52) - 1) & ~int(st.ended_hands[0, seat]))
        assert render_text(other) == text
        if term or trunc:
            with redirect_stdout(io.StringIO()):
                obs, info = env.reset()
    assert walls >= 3


def test_selfplay_batch_info_carries_no_cards():
    batch = SelfPlayBatch(8, rules=FAST, seed=0)
    obs, mask, player = batch.reset()
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs, mask, player, r, term, trunc, info = batch.step(random_legal_actions(mask, rng))
        assert set(info) == {"hand_ended", "hand_kind", "hand_knocker", "hand_winner", "hand_points",
                             "knocker_deadwood", "defender_deadwood", "columns_credited", "games_ended",
                             "match_winner", "autoreset"}
        for value in info.values():  # per-game scalars or per-column flags: no card mask
            assert value.dtype != np.uint64 and value.shape[0] == 8 and value.ndim <= 2
            assert value.ndim == 1 or value.shape[1] == FAST.columns


# --- 6. seeding: the same seed gives the same match with every opponent ----------------------------

STOCHASTIC = {"random": True, "neller": True, "simple": False, "hollywood": False}
# the default search plans with 64 worlds and marjj rollouts (minutes here): the default suite
# checks a small search of the same code, the slow suite the registered default
BOT_NAMES = [pytest.param(n, marks=pytest.mark.slow) if n == "search" else n for n in registered_names()]
BOT_NAMES.append("search:worlds=4,rollout=simple")


def _rules_for(name: str) -> Rules:
    """FAST, or for a shipped model the rules it was trained on (its observation size), short."""
    from agents.checkpoint import load_checkpoint
    from agents.registry import MODELS_DIR, SHIPPED_MODELS

    path = MODELS_DIR / f"{SHIPPED_MODELS.get(name, '')}.pt"
    if name in SHIPPED_MODELS and path.is_file():
        return Rules.from_dict(load_checkpoint(path)["rules"]).replace(target=30)
    return FAST


def _trajectory(env, seed, steps=50):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(123)
    out = [obs.tobytes()]
    for _ in range(steps):
        mask = np.asarray(info["action_mask"]).reshape(-1, NUM_ACTIONS)
        a = random_legal_actions(mask, rng)
        obs, r, term, trunc, info = env.step(a if np.ndim(obs) == 2 else int(a[0]))
        out.append((np.asarray(obs).tobytes(), np.asarray(r).tobytes(), np.asarray(term).tobytes()))
        if np.ndim(obs) == 1 and (term or trunc):
            obs, info = env.reset()
            out.append(obs.tobytes())
    return out


@pytest.mark.parametrize("name", BOT_NAMES)
def test_same_seed_same_match_with_every_registry_opponent(name):
    rules = _rules_for(name)

    def opp():  # a fresh agent of the registry, as a user builds it (seeded or not: reset reseeds it)
        return make_agent(name, rules)

    v = HollywoodGinVectorEnv(6, opponent=opp(), rules=rules)
    first = _trajectory(v, 11)
    assert _trajectory(v, 11) == first, f"{name}: reset(seed=11) twice played different games"
    assert _trajectory(HollywoodGinVectorEnv(6, opponent=opp(), rules=rules), 11) == first
    assert _trajectory(HollywoodGinVectorEnv(6, opponent=opp(), rules=rules, seed=11), None) == first
    assert _trajectory(v, 12) != first
    g = gymnasium.make("HollywoodGin-v0", opponent=opp(), rules=rules)
    gfirst = _trajectory(g, 11, steps=120)
    assert _trajectory(g, 11, steps=120) == gfirst
    assert _trajectory(gymnasium.make("HollywoodGin-v0", opponent=opp(), rules=rules), 11, steps=120) == gfirst
    assert _trajectory(g, 12, steps=120) != gfirst


@pytest.mark.parametrize("name", BOT_NAMES)
def test_every_registry_bot_has_a_seed_method(name):
    rules = _rules_for(name)
    state = core.init(256, rules, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):  # a spread of positions, discard phases included
        core.step(state, random_legal_actions(state.legal_action_mask, rng))
    from hollywood_env.observation import encode
    obs, mask = encode(state), state.legal_action_mask
    bot = make_agent(name, rules, seed=5)
    assert callable(getattr(bot, "seed", None)), f"{name} has no seed(seed) method"
    bot.seed(1)
    a1 = bot(obs, mask)
    bot(obs, mask)
    bot.seed(1)
    np.testing.assert_array_equal(bot(obs, mask), a1)
    bot.seed(2)
    a2 = bot(obs, mask)
    if name in STOCHASTIC:
        assert (not np.array_equal(a1, a2)) == STOCHASTIC[name], name


def _learned_prefixes(monkeypatch):
    torch = pytest.importorskip("torch")
    from agents import registry
    from agents.rl.features import NUM_FEATURES
    from agents.rl.networks import ActorCritic, DuelingQNetwork
    from agents.rl.policies import DQNPolicy, PPOPolicy
    from hollywood_env.observation import observation_size

    d = observation_size(FAST) + NUM_FEATURES

    def ppo(arg, rules=None, seed=None):  # a sampling PPO policy, as a league snapshot plays
        torch.manual_seed(0)
        return PPOPolicy(ActorCritic(d, NUM_ACTIONS, (16,)), greedy=False, seed=seed)

    def dqn(arg, rules=None, seed=None):
        torch.manual_seed(0)
        return DQNPolicy(DuelingQNetwork(d, NUM_ACTIONS, (16,)), epsilon=0.5, seed=seed)

    monkeypatch.setitem(registry._PREFIXES, "sampledppo", (ppo, "test"))
    monkeypatch.setitem(registry._PREFIXES, "sampleddqn", (dqn, "test"))
    return ["sampledppo:x", "sampleddqn:x"]


def test_sampling_learned_policies_are_reseeded_too(monkeypatch):
    for spec in _learned_prefixes(monkeypatch):
        policy = make_agent(spec, FAST, seed=3)
        assert callable(getattr(policy, "seed", None)), spec
        v = HollywoodGinVectorEnv(4, opponent=make_agent(spec, FAST), rules=FAST)
        first = _trajectory(v, 11, steps=20)
        assert _trajectory(v, 11, steps=20) == first, spec
        policy.seed(1)
        state = core.init(64, FAST, seed=0)
        from hollywood_env.observation import encode
        a1 = policy(encode(state), state.legal_action_mask)
        policy.seed(1)
        np.testing.assert_array_equal(policy(encode(state), state.legal_action_mask), a1)
        policy.seed(1)
        twin = copy.deepcopy(policy)  # a copy's seed() reseeds the copy, not the original
        twin.seed(2)
        np.testing.assert_array_equal(policy(encode(state), state.legal_action_mask), a1)
        twin.seed(1)
        np.testing.assert_array_equal(twin(encode(state), state.legal_action_mask), a1)


# --- 7. a rejected vector step changes nothing ---------------------------------------------------


class Flaky:
    """A deterministic opponent (the simple bot) that misbehaves when armed."""

    def __init__(self, rules, how):
        self.bot = SimpleBot(rules)
        self.how = how
        self.armed = False

    def __call__(self, obs, mask):
        out = self.bot(obs, mask)
        if self.armed:
            if self.how == "illegal":
                out[-1] = int(np.flatnonzero(~mask[-1])[0])
            elif self.how == "shape":
                out = out[:-1] if out.size > 1 else np.zeros(2, dtype=np.int64)
            elif self.how == "raises":
                raise ZeroDivisionError("a bug in the opponent")
        return out


def snapshot_state(st) -> dict:
    """Copies of every array of a core State and of its scoresheet."""
    out = {f.name: np.copy(getattr(st, f.name)) for f in dataclasses.fields(st)
           if isinstance(getattr(st, f.name), np.ndarray)}
    out.update({"sheet." + k: x.copy() for k, x in vars(st.sheet).items() if isinstance(x, np.ndarray)})
    return out


def snapshot(v) -> dict:
    """A vector env's state arrays and its own bookkeeping."""
    out = snapshot_state(v.state)
    out.update({"env." + k: np.copy(getattr(v, k)) for k in ("_waiting", "_next_hand", "_pending")})
    return out


def assert_same(a: dict, b: dict):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=str(k))


@pytest.mark.parametrize("who, error", [
    ("learner", IllegalActionError), ("illegal", IllegalActionError), ("shape", ValueError),
    ("raises", ZeroDivisionError)])
def test_rejected_vector_step_leaves_the_batch_unchanged(who, error):
    rules = Rules(target=20)
    opp = Flaky(rules, who)
    v = HollywoodGinVectorEnv(6, opponent=opp, rules=rules, per_hand_episodes=True)
    obs, info = v.reset(seed=2)
    rng = np.random.default_rng(0)
    rejected = 0
    for step in range(600):  # until three bad steps were tried (the chances depend on the bot's play)
        if rejected >= 3:
            break
        acts = random_legal_actions(info["action_mask"], rng)
        if step % 10 == 9 and v._waiting.any() and (~v._waiting).sum() >= 2:
            twin = copy.deepcopy(v)
            before = snapshot(v)
            bad = acts.copy()
            if who == "learner":  # a legal move in every env but the last acting one
                i = int(np.flatnonzero(~v._waiting)[-1])
                bad[i] = int(np.flatnonzero(~info["action_mask"][i])[0])
            else:
                opp.armed = True
            with pytest.raises(error):
                v.step(bad)
            opp.armed = False
            assert_same(snapshot(v), before)
            rejected += 1
            # stepping on: exactly what the twin (never given the bad move) does
            for _ in range(3):
                out, want = v.step(acts), twin.step(acts)
                for x, y in zip(out[:4], want[:4], strict=True):
                    np.testing.assert_array_equal(x, y)
                for key in want[4]:
                    np.testing.assert_array_equal(out[4][key], want[4][key])
                acts = random_legal_actions(out[4]["action_mask"], rng)
            info = out[4]
            continue
        obs, r, term, trunc, info = v.step(acts)
    assert rejected >= 3


def test_rejected_gym_step_leaves_the_env_unchanged():
    rules = Rules(target=20)
    opp = Flaky(rules, "illegal")
    env = HollywoodGinEnv(opponent=opp, rules=rules)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(1)
    rejected = 0
    for step in range(60):
        a = int(random_legal_actions(info["action_mask"][None], rng)[0])
        if step >= 20 and a < 52 and int(env.venv.state.stock_size[0]) > rules.wall_stock_size and not rejected:
            # a plain discard: the opponent moves next, after the learner's discard was played
            rejected += 1
            before = snapshot(env.venv)
            opp.armed = True
            with pytest.raises(IllegalActionError, match="the opponent played the illegal action"):
                env.step(a)
            opp.armed = False
            assert_same(snapshot(env.venv), before)
        obs, r, term, trunc, info = env.step(a)
        if term or trunc:
            obs, info = env.reset()
    assert rejected == 1


def test_a_failed_reset_leaves_the_env_as_it_was():
    rules = Rules(target=20)
    opp = Flaky(rules, "raises")
    v = HollywoodGinVectorEnv(16, opponent=opp, rules=rules)  # the opponent moves first in some envs
    obs, info = v.reset(seed=1)
    v.step(random_legal_actions(info["action_mask"], np.random.default_rng(0)))
    before, state = snapshot(v), v.state
    for seed in (None, 5):
        opp.armed = True
        with pytest.raises(ZeroDivisionError):
            v.reset(seed=seed)
        opp.armed = False
        assert v.state is state
        assert_same(snapshot(v), before)


# --- 8. calls out of order: clear errors ------------------------------------------------------------


def test_aec_step_observe_and_render_before_reset_say_to_reset():
    e = raw_env(render_mode="ansi")
    with pytest.raises(ResetNeededError, match=r"reset\(\) must be called before render\(\)"):
        e.render()
    with pytest.raises(ResetNeededError, match=r"reset\(\) must be called before step\(\)"):
        e.step(0)
    with pytest.raises(ResetNeededError, match=r"reset\(\) must be called before observe\(\)"):
        e.observe("player_0")
    with pytest.raises(ResetNeededError, match=r"reset\(\) must be called before observe\(\)"):
        e.last()
    assert issubclass(ResetNeededError, RuntimeError) and issubclass(ResetNeededError, gymnasium.error.ResetNeeded)
    e.reset(seed=0)
    assert e.observe("player_0")["observation"].shape == (347,)


def _play_to_the_end(e, rng):
    for _agent in e.agent_iter(20000):
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not e.agents


@pytest.mark.parametrize("per_hand", [False, True])
def test_aec_step_after_the_end_follows_pettingzoo(per_hand):
    from pettingzoo.utils.env_logger import EnvLogger

    e = raw_env(rules="gin-rummy-simple", per_hand_episodes=per_hand)
    e.reset(seed=1)
    _play_to_the_end(e, np.random.default_rng(0))
    state = snapshot_state(e.state)
    # a dead agent steps with None only (PettingZoo's rule) ...
    with pytest.raises(ResetNeededError, match=r"the episode is over.*call reset\(\)"):
        e.step(0)
    # ... and a None step once every agent is done is ignored with PettingZoo's warning
    EnvLogger.flush()
    e.step(None)
    assert any("Should reset() first" in str(m) for m in EnvLogger.mqueue)
    assert_same(snapshot_state(e.state), state)
    e.reset(seed=2)  # and the env plays on
    _play_to_the_end(e, np.random.default_rng(1))


def test_aec_dead_agent_must_step_with_none():
    e = raw_env(rules="gin-rummy-simple", per_hand_episodes=True)
    e.reset(seed=1)
    rng = np.random.default_rng(0)
    while True:
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            break
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    with pytest.raises(ValueError, match="only valid action is None"):
        e.step(0)
    e.step(None)


def test_vector_and_gym_env_before_reset_say_to_reset():
    v = HollywoodGinVectorEnv(2, render_mode="ansi")
    for call, what in ((v.action_masks, "action_masks"), (lambda: v.step([0, 0]), "step"), (v.render, "render")):
        with pytest.raises(ResetNeededError, match=rf"reset\(\) must be called before {what}\(\)"):
            call()
    g = HollywoodGinEnv(render_mode="ansi")
    for call, what in ((g.action_masks, "action_masks"), (lambda: g.step(0), "step"), (g.render, "render")):
        with pytest.raises(ResetNeededError, match=rf"reset\(\) must be called before {what}\(\)"):
            call()
    obs, info = g.reset(seed=0)
    assert g.action_masks().shape == (NUM_ACTIONS,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obs, r, term, trunc, info = g.step(int(np.flatnonzero(~info["action_mask"])[0]))  # illegal: ends the episode
    assert term
    with pytest.raises(ResetNeededError, match=r"the episode has ended: call reset\(\) before step\(\)"):
        g.step(0)
