"""No observation path reads a hidden State field (``core.HIDDEN_FIELDS``).

Each check takes a position, gives every hidden field other contents that agree with what the
viewer knows (the opponent's unseen cards and the stock redrawn from the cards the viewer has not
seen, the deck re-ordered, the seeds replaced), and asks each observation path again: the
batched and single-game encoders (compiled, packed and numpy), the history planes, the AEC env's
``observe`` and ``render``, the vector env's observations and ``render``, and the renderers for a
player. A path that read a hidden field would answer differently for some of the positions.
"""

import dataclasses

import numpy as np
import pytest
from helpers import driver_policy

from hollywood_env import core, kernels
from hollywood_env.aec_env import raw_env
from hollywood_env.cards import NUM_CARDS, mask_to_cards
from hollywood_env.history import encode_history
from hollywood_env.observation import PackedObserver, SheetCache, encode, encode_one
from hollywood_env.render import render_rgb, render_state, table_view
from hollywood_env.rules import Rules
from hollywood_env.sampling import random_legal_actions
from hollywood_env.vector_env import HollywoodGinVectorEnv

RULES = [Rules.preset("hollywood").replace(target=40), Rules.preset("oklahoma").replace(target=40)]
#: the hidden fields resample_hidden gives other contents (a new hidden field needs its own)
RESAMPLED = {"slot_seed", "match_seed", "deck", "hands"}


def test_every_state_field_says_its_shape_dtype_and_who_sees_it():
    rules = Rules.preset("hollywood")
    b = 3
    state = core.init(b, rules, seed=1)
    dims = {"B": b, "C": rules.columns, "A": core.NUM_ACTIONS, "L": state.log.shape[1], "52": NUM_CARDS,
            "2": 2, "...": None}
    seen = {core.PUBLIC, core.TO_ACT, core.OWN_ROW, core.SHOWN, core.HIDDEN}
    for f in dataclasses.fields(core.State):
        meta = f.metadata
        assert {"shape", "dtype", "seen_by", "doc"} <= set(meta), f.name
        assert meta["seen_by"] in seen and meta["doc"].strip(), f.name
        value = getattr(state, f.name)
        if isinstance(value, np.ndarray):
            shape = tuple(dims[d.strip()] for d in meta["shape"].strip("()").split(",") if d.strip())
            assert value.shape == shape, (f.name, value.shape, meta["shape"])
            assert value.dtype == np.dtype(meta["dtype"]), (f.name, value.dtype, meta["dtype"])
    assert set(core.HIDDEN_FIELDS) == {"slot_seed", "match_seed", "deck", "hands"}
    assert core.OWN_ROW_FIELDS == ("hands",)
    assert set(core.HIDDEN_FIELDS) == RESAMPLED, "a new hidden field: teach resample_hidden to redraw it"


def resample_hidden(state, g: int, viewer: int, rng) -> bool:
    """Give every hidden field of game ``g`` other contents that agree with what ``viewer`` knows,
    in place (a packed one-game State keeps its buffer). The opponent keeps the cards it took
    from the pile; its other cards and the stock are redrawn from the cards ``viewer`` has not
    seen, in a new order. Returns whether the opponent's hand changed."""
    opp = 1 - viewer
    hand, known = int(state.hands[g, opp]), int(state.known[g, opp])
    pos = int(state.stock_pos[g])
    unseen = rng.permutation(np.concatenate([mask_to_cards(hand & ~known), state.deck[g, pos:]]).astype(np.int64))
    k = len(mask_to_cards(hand & ~known))
    new_hand = known | sum(1 << int(c) for c in unseen[:k])
    stock = unseen[k:]
    rest = rng.permutation(np.setdiff1d(np.arange(NUM_CARDS), stock))
    state.deck[g] = np.concatenate([rest, stock]).astype(np.int8)
    state.hands[g, opp] = np.uint64(new_hand)
    state.slot_seed[g] = rng.integers(2**63, dtype=np.uint64)
    state.match_seed[g] = rng.integers(2**63, dtype=np.uint64)
    return new_hand != hand


def hidden_rows(state, g: int) -> dict:
    return {name: getattr(state, name)[g].copy() for name in core.HIDDEN_FIELDS}


def put_rows(state, g: int, rows: dict) -> None:
    for name, value in rows.items():
        getattr(state, name)[g] = value


def views(state, g: int, viewer: int, monkeypatch, draw: bool) -> dict:
    """What each observation path gives ``viewer`` of game ``g`` of a State of several games."""
    out = {
        "encode": encode(state, np.full(state.batch_size, viewer))[g],
        "encode games": encode(state, viewer, [g], sheet_cache=SheetCache())[0],
        "encode_one": encode_one(state, g, viewer),
        "history": encode_history(state, viewer, [g])[0],
        "render_state": render_state(state, g, viewer=viewer),
        "table_view": repr(table_view(state, g, viewer=viewer)),
    }
    if int(state.current_player[g]) == viewer:
        out["encode to act"] = encode(state, None, [g])[0]
    with monkeypatch.context() as m:  # the numpy path of encode_one
        m.setattr(kernels, "AVAILABLE", False)
        out["encode_one numpy"] = encode_one(state, g, viewer)
    if draw:
        out["render_rgb"] = render_rgb(state, g, viewer=viewer)
    return out


def packed_views(one, viewer: int) -> dict:
    """What the single-game paths give ``viewer`` of the packed one-game State ``one``."""
    out = {"encode_one packed": encode_one(one, 0, viewer)}
    if one.packed is not None:
        observer = PackedObserver(one.rules)
        observer.set_sheets(one, SheetCache())
        observer.observe(one.packed, viewer)
        out["PackedObserver"] = observer.observation.copy()
    return out


def assert_same(before: dict, after: dict, where: str) -> None:
    assert before.keys() == after.keys()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value, err_msg=f"{key} read a hidden field ({where})")
        else:
            assert after[key] == value, f"{key} read a hidden field ({where})"


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.preset_name or "custom")
def test_observations_and_renders_read_no_hidden_field(rules, monkeypatch):
    rng = np.random.default_rng(11)
    state = core.init(12, rules, seed=5, max_steps=400)
    changed = checked = 0
    for step in range(160):
        if step % 8 == 0:
            for g in range(0, state.batch_size, 3):
                for viewer in (0, 1):
                    draw = step % 40 == 0 and g == 0
                    before = views(state, g, viewer, monkeypatch, draw)
                    one = core.take(state, [g])
                    packed_before = packed_views(one, viewer)
                    rows = hidden_rows(state, g)
                    changed += resample_hidden(state, g, viewer, rng)
                    resample_hidden(one, 0, viewer, rng)
                    where = f"step {step}, game {g}, viewer {viewer}"
                    assert_same(before, views(state, g, viewer, monkeypatch, draw), where)
                    assert_same(packed_before, packed_views(one, viewer), where)
                    put_rows(state, g, rows)
                    checked += 1
        core.step(state, driver_policy(state, rng))
        done = np.flatnonzero(state.terminated | state.truncated)
        if done.size:
            core.reset_games(state, done)
    assert checked >= 150 and changed >= checked * 0.8, (checked, changed)


def test_aec_env_observe_and_render_read_no_hidden_field():
    rng = np.random.default_rng(3)
    env = raw_env(rules=RULES[0], render_mode="ansi")
    env.reset(seed=9)
    checked = 0
    for step in range(400):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset()
            continue
        if step % 5 == 0:
            st = env.state
            before = {a: env.observe(a) for a in env.agents}
            text = env.render()
            for viewer, name in enumerate(env.possible_agents):
                rows = hidden_rows(st, 0)
                resample_hidden(st, 0, viewer, rng)  # in place: the packed buffer the compiled code reads
                env._prepare()  # the observation of the agent to act, written again from the State
                got = env.observe(name)
                np.testing.assert_array_equal(got["observation"], before[name]["observation"], err_msg=name)
                np.testing.assert_array_equal(got["action_mask"], before[name]["action_mask"], err_msg=name)
                if name == agent:
                    assert env.render() == text
                put_rows(st, 0, rows)
                env._prepare()
                checked += 1
        mask = env.observe(agent)["action_mask"].astype(bool)
        env.step(int(random_legal_actions(mask[None], rng)[0]))
    assert checked >= 100


def test_vector_env_observations_and_render_read_no_hidden_field():
    rng = np.random.default_rng(4)
    venv = HollywoodGinVectorEnv(4, opponent="random", rules=RULES[0], render_mode="ansi", seed=2)
    obs, info = venv.reset(seed=2)
    checked = 0
    for step in range(120):
        if step % 6 == 0:
            st = venv.state
            before_obs, before_text = venv._observe().copy(), venv.render()
            saved = {i: hidden_rows(st, i) for i in range(venv.num_envs)}
            for i in range(venv.num_envs):
                resample_hidden(st, i, int(venv.learner_seat[i]), rng)
            np.testing.assert_array_equal(venv._observe(), before_obs)
            assert venv.render() == before_text
            for i, rows in saved.items():
                put_rows(st, i, rows)
            checked += 1
        obs, _, _, _, info = venv.step(random_legal_actions(info["action_mask"].astype(bool), rng))
    assert checked == 20
