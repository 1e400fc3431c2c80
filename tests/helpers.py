"""Plain helpers shared by the test modules of every folder below ``tests/`` (fixtures stay in
``tests/conftest.py``). pytest puts ``tests/`` on ``sys.path`` (``pythonpath = [".", "tests"]`` in
pyproject.toml's ``[tool.pytest.ini_options]``; no ``__init__.py`` anywhere under ``tests/``), so a
test module imports them as ``from helpers import ...``."""

import numpy as np

from hollywood_env import actions as A
from hollywood_env import core
from hollywood_env import melds as M
from hollywood_env.actions import KIND_WALL
from hollywood_env.cards import mask_to_cards
from hollywood_env.observation import encode
from hollywood_env.rules import PRESETS

# --- fixed seeds -----------------------------------------------------------------------------------


def preset_seed(preset: str, offset: int = 0) -> int:
    """A fixed seed per rules preset (not ``hash(preset)``, which changes with PYTHONHASHSEED)."""
    return offset + 101 * sorted(PRESETS).index(preset)


# --- engine play (test_core.py, test_core_single.py, test_perf_paths.py) ---------------------------


def driver_policy(state, rng):
    """Random legal actions biased toward play that ends hands (knocks, low-deadwood discards),
    so matches finish in a few hundred decisions. Any legal policy would do for the tests."""
    mask = state.legal_action_mask
    b = mask.shape[0]
    actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
    disc = np.flatnonzero(mask[:, : A.DRAW_STOCK].any(axis=1))
    if disc.size:
        hands = state.hands[disc, state.current_player[disc].astype(np.int64)]
        after = M.deadwood_after_discard_masks(hands).astype(float)
        allowed = mask[disc, : A.KNOCK]
        after[~allowed] = np.inf
        greedy = np.argmin(after + rng.random(after.shape) * 3, axis=1)
        use_greedy = rng.random(disc.size) < 0.7
        actions[disc[use_greedy]] = greedy[use_greedy]
        knocks = mask[disc, A.KNOCK : A.DRAW_STOCK]
        # a third of the games hold out for gin, the others knock at once (mostly)
        gin_only = disc % 3 == 0
        knocks = knocks & np.where(gin_only[:, None], after == 0, True)
        can = knocks.any(axis=1) & (rng.random(disc.size) < 0.85)
        pick = np.argmax(rng.random(knocks.shape) * knocks, axis=1)
        actions[disc[can]] = A.KNOCK + pick[can]
        if state.rules.big_gin:
            big = mask[disc, A.BIG_GIN]
            actions[disc[big]] = A.BIG_GIN
    del b
    return actions


def play_in_engine(policy, games: int, steps: int, seed: int) -> None:
    """``steps`` decisions of ``games`` Hollywood games of the engine, ``policy(obs, mask) -> actions``
    on every seat, each ended game dealt again: ``core.step`` raises on any illegal action."""
    state = core.init(games, "hollywood", seed=seed)
    for _ in range(steps):
        a = policy(encode(state), state.legal_action_mask)
        core.step(state, np.where(state.done, 0, a))  # raises on any illegal action
        if state.done.any():
            core.reset_games(state, state.done)


def random_hands(rng, n):
    """Half uniform 10/11-card hands, half meld-rich ones (cards drawn from four ranks and a few
    extra cards), so sets of 3 and 4 and long runs all occur."""
    hands = []
    for i in range(n):
        k = 10 + i % 2
        if i % 2:
            cards = rng.choice(52, size=k, replace=False)
        else:
            ranks = rng.choice(13, size=4, replace=False)
            pool = np.unique(np.concatenate([[s * 13 + r for s in range(4) for r in ranks],
                                             rng.choice(52, size=8, replace=False)]))
            cards = rng.choice(pool, size=k, replace=False)
        hands.append(sum(1 << int(c) for c in cards))
    return hands


# --- scripted positions (test_bots.py, test_marjj.py) ----------------------------------------------


def scripted_position(hand, top=None, pile=(), phase="draw", rules=None, knock_limit=10, taken=None,
                      opp_known=(), opp_discarded=(), own_discarded=(), stock=20, first_upcard=False):
    """One position written as cards, set into a real one-game ``core`` State: its observation (the
    package's encoder, seen by the player to act) and its legal mask (the engine's). ``hand``: the
    player to act's cards (10 to draw, 11 to discard); ``pile`` bottom first, ``top`` laid on it;
    ``opp_known``: cards the opponent took from the pile and holds; ``taken``: the card just taken
    (not discardable); ``stock``: cards left in the stock."""
    from hollywood_env import core
    from hollywood_env.cards import cards_to_mask, parse_card, parse_cards
    from hollywood_env.observation import encode

    def cards(spec):
        return parse_cards(spec) if isinstance(spec, str) else list(spec)

    hand, pile, known = cards(hand), cards(pile), cards(opp_known)
    if top is not None:
        pile = pile + [parse_card(top)]
    state = core.init(1, rules or "hollywood", seed=0)
    me = int(state.current_player[0])
    opp_hand = known + [c for c in range(52) if c not in {*hand, *pile, *known}][:10 - len(known)]
    rest = [c for c in range(52) if c not in {*hand, *pile, *opp_hand}]
    state.deck[0, 52 - len(rest):] = rest  # the stock: the cards nobody holds or has seen
    state.stock_pos[0] = 52 - stock
    state.hands[0, me], state.hands[0, 1 - me] = cards_to_mask(hand), cards_to_mask(opp_hand)
    state.pile[0, :] = 0
    state.pile[0, :len(pile)] = pile
    state.pile_size[0] = len(pile)
    state.known[0, 1 - me] = cards_to_mask(known)
    state.discarded[0, 1 - me], state.discarded[0, me] = cards_to_mask(cards(opp_discarded)), cards_to_mask(cards(own_discarded))
    state.phase[0] = (A.PHASE_FIRST_UPCARD if first_upcard else A.PHASE_DRAW) if phase == "draw" else A.PHASE_DISCARD
    state.taken_card[0] = -1 if taken is None else parse_card(taken)
    state.knock_limit[0] = knock_limit
    state.legal_action_mask[:] = core.legal_action_mask(state)
    return encode(state), state.legal_action_mask.copy()


# --- hidden information (test_safety_env.py, test_ecosystem.py) ------------------------------------


def public_cards(state, g: int) -> set[int]:
    """Cards every player has seen: the discard pile, every discard, the cards taken from the pile."""
    cards = set(int(c) for c in state.pile[g, :int(state.pile_size[g])])
    for p in (0, 1):
        cards |= set(mask_to_cards(int(state.discarded[g, p]))) | set(mask_to_cards(int(state.known[g, p])))
    return cards


def revealed_at_hand_end(state, g: int, viewer: int) -> set[int]:
    """docs/rules.md sections 2.5-2.7: after a knock, gin or big gin both hands are laid out; at a
    wall nobody lays down, so the viewer sees only its own hand."""
    if not state.hand_ended[g]:
        return set()
    if int(state.hand_kind[g]) == KIND_WALL:
        return set(mask_to_cards(int(state.ended_hands[g, viewer])))
    return set(mask_to_cards(int(state.ended_hands[g, 0]))) | set(mask_to_cards(int(state.ended_hands[g, 1])))


def visible_to(state, g: int, viewer: int) -> set[int]:
    """Every card ``viewer`` may read now: its hand, the public cards, what the last hand's end revealed."""
    own = set(mask_to_cards(int(state.hands[g, viewer])))
    return own | public_cards(state, g) | revealed_at_hand_end(state, g, viewer)


def swap_hidden(state, g: int, viewer: int, rng, keep=()):
    """Exchange cards ``viewer`` cannot see in game ``g``: shuffle the unread stock and swap the
    opponent's unrevealed cards (not those in ``keep``) with stock cards."""
    opp = 1 - viewer
    pos = int(state.stock_pos[g])
    state.deck[g, pos:] = rng.permutation(state.deck[g, pos:])
    hidden = [c for c in mask_to_cards(int(state.hands[g, opp] & ~state.known[g, opp])) if c not in keep]
    k = min(len(hidden), 52 - pos)
    for h, p in zip(rng.permutation(hidden)[:k], range(pos, pos + k), strict=True):
        s = int(state.deck[g, p])
        state.hands[g, opp] = (state.hands[g, opp] & ~np.uint64(1 << int(h))) | np.uint64(1 << s)
        state.deck[g, p] = h
    return k


# --- tiny training runs (test_collectors.py, test_ray.py) ------------------------------------------
# the training stack (torch) is imported inside the functions, so the engine tests need not load it

# the tiny run of test_ppo.py: 4 updates of 16 games x 32 steps, evaluated against `simple` only
# (it knocks at once: short matches); an untrained policy against `random` plays every hand to
# the stock's end, and those matches were most of a tiny run's time
TINY = ["--total_steps", "2048", "--ppo.num_games", "16", "--ppo.num_steps", "32", "--ppo.hidden", "[32, 32]",
        "--ppo.num_minibatches", "2", "--ppo.update_epochs", "2", "--league.snapshot_every", "2",
        "--league.gate_pairs", "2", "--eval.every", "2", "--eval.pairs", "2", "--eval.bots", "[simple]",
        "--env.max_steps", "100",
        "--league.bot_weight", "0.8", "--league.snapshot_weight", "0.1", "--log.progress", "false",
        "--torch_threads", "1", "--env.rule_options", "{target: 25}"]


def tiny(tmp_path, *extra):
    from experiments.config.loader import load_config
    from experiments.config.schema import TrainConfig

    return load_config(TrainConfig, "configs/ppo_tiny.yaml", TINY + ["--log.root", str(tmp_path)] + list(extra))


def tiny_dqn_two_shards(tmp_path, *extra):
    """A tiny DQN run in two shards."""
    from experiments.config.loader import load_config
    from experiments.config.schema import TrainConfig

    return load_config(TrainConfig, "configs/dqn_tiny.yaml",
                       ["--total_steps", "2048", "--dqn.num_games", "16", "--dqn.num_steps", "32",
                        "--dqn.hidden", "[32, 32]", "--dqn.learning_starts", "128", "--eval.bots", "[simple]",
                        "--log.progress", "false", "--log.root", str(tmp_path), "--collector.num_workers", "2",
                        *extra])


def assert_restarts_left_the_run_unchanged(run, caplog, reference) -> None:
    """A 4-update run whose workers were killed after updates 1 and 3: two restarts counted and
    logged, and every other metric equal to the uninterrupted ``reference`` (a worker restarted
    from its last state collects what it would have)."""
    from experiments.training.run_writer import read_metrics
    from experiments.training.train import compare_metrics

    got = read_metrics(run)
    assert [x["update"] for x in got] == [1, 2, 3, 4]
    assert [x["charts/worker_restarts"] for x in got] == [0, 1, 1, 2]
    assert sum("rollout worker" in r.getMessage() and "restarting" in r.getMessage() for r in caplog.records) == 2
    strip = lambda xs: [{k: v for k, v in x.items() if k != "charts/worker_restarts"} for x in xs]  # noqa: E731
    assert compare_metrics(strip(reference), strip(got)) == []


def assert_the_seed_decides_the_run(config, tmp_path, lines) -> None:
    """A run of ``config(tmp_path)`` (a tiny-config builder, extra flags after ``tmp_path``) writes
    the metric ``lines`` again (SPS aside); one with ``--seed 1`` writes others."""
    from experiments.training.run_writer import read_metrics
    from experiments.training.train import compare_metrics, run_training

    assert compare_metrics(lines, read_metrics(run_training(config(tmp_path))[0])) == []
    assert compare_metrics(lines, read_metrics(run_training(config(tmp_path, "--seed", "1"))[0])) != []


def assert_expert_term_taught(run) -> list[dict]:
    """The metric lines of a tiny 8-update ``run`` with an expert term (``expert_coef`` 5,
    ``expert_until`` 0.75), checked: the term's coefficient falls linearly over the first 6 updates
    and is off after them, the agreement with the bot is logged while it is on and rises by more than 0.1."""
    from experiments.training.run_writer import read_metrics

    lines = read_metrics(run)
    agreement = [x.get("charts/expert_agreement") for x in lines]
    assert all(a is not None for a in agreement[:6]) and agreement[6] is None and agreement[7] is None
    assert [round(x["charts/expert_coef"], 6) for x in lines[:6]] == [5.0, 4.166667, 3.333333, 2.5, 1.666667,
                                                                      0.833333]
    assert agreement[5] > agreement[0] + 0.1
    return lines


def stateful_settings(max_examples: int, steps: int):
    """Hypothesis settings for the suite's state machines: deterministic (``derandomize``, no
    example database), no deadline, ``max_examples`` runs of up to ``steps`` calls each."""
    from hypothesis import HealthCheck, settings

    return settings(max_examples=max_examples, stateful_step_count=steps, deadline=None, derandomize=True,
                    database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
                    print_blob=False)


def assert_same_weights(run_a, run_b) -> None:
    """The latest checkpoints of two runs hold the same update, step count and weights."""
    import torch

    from agents.checkpoint import load_checkpoint

    a = load_checkpoint(run_a / "checkpoints" / "latest.pt")
    b = load_checkpoint(run_b / "checkpoints" / "latest.pt")
    assert a["update"] == b["update"] and a["global_step"] == b["global_step"]
    assert a["model"].keys() == b["model"].keys()
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
