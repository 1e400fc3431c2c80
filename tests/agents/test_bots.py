"""The baseline bots and the agent registry."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from helpers import scripted_position

from agents import AgentSpecError, HollywoodBot, NellerBot, RandomBot, SimpleBot, make_agent, register, register_prefix, registry
from agents.bots import View, decode, meldable_with, melds_with
from agents.bots.marjj import MarjjBot, PatientBot
from agents.matches import play_pairing
from hollywood_env import core
from hollywood_env import observation as O
from hollywood_env.actions import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD
from hollywood_env.cards import cards_to_mask, mask_to_cards, parse_card, parse_cards
from hollywood_env.rules import PRESETS, Rules

BOTS = {"random": RandomBot, "simple": SimpleBot, "neller": NellerBot, "hollywood": HollywoodBot}


# --- legality ------------------------------------------------------------------------------------


def _play_checked(rules, bots, batch=128, steps=400, seed=0):
    """Play ``steps`` batched steps with game ``g`` seating ``bots[g % k]`` against
    ``bots[(g // k) % k]``, restarting finished matches, and check that every action of every
    running game is legal. Returns the number of decisions checked per bot."""
    k = len(bots)
    state = core.init(batch, rules, seed=seed, max_steps=None)
    g = np.arange(batch)
    seat_bot = np.stack([g % k, (g // k) % k], axis=1)
    checked = np.zeros(k, dtype=np.int64)
    for _ in range(steps):
        done = state.done
        if done.any():
            core.reset_games(state, done)
        actions = np.zeros(batch, dtype=np.int64)
        who = seat_bot[g, state.current_player.astype(np.int64)]
        for i, bot in enumerate(bots):
            rows = np.flatnonzero(who == i)
            if rows.size:
                a = bot(O.encode(state, games=rows), state.legal_action_mask[rows])
                assert a.shape == (rows.size,) and np.issubdtype(a.dtype, np.integer)
                bad = ~state.legal_action_mask[rows, a]
                assert not bad.any(), f"{bot.name} played an illegal action {a[bad][:5]}"
                actions[rows] = a
                checked[i] += rows.size
        core.step(state, actions)
    return checked


@pytest.mark.parametrize("preset", list(PRESETS))
def test_bots_play_only_legal_actions(preset):
    """Every bot, in both seats, against every bot (itself included), in every preset."""
    rules = Rules.preset(preset)
    bots = [cls(rules, seed=i) for i, cls in enumerate(BOTS.values())]
    checked = _play_checked(rules, bots, seed=11)
    assert (checked > 5_000).all()


def test_bots_legal_with_rule_options():
    rules = Rules(big_gin=True, forbid_discard_of_taken_card=False, knock_limit=5, columns=2, target=60)
    bots = [cls(rules, seed=i) for i, cls in enumerate(BOTS.values())]
    assert (_play_checked(rules, bots, batch=96, steps=300, seed=5) > 3_000).all()


def test_bot_rejects_observations_of_other_rules():
    bot = SimpleBot("gin-rummy")  # 1 column
    state = core.init(4, "hollywood", seed=0)  # 3 columns
    with pytest.raises(ValueError, match="rules"):
        bot(O.encode(state), state.legal_action_mask)


def test_rows_without_legal_actions_get_zero_and_single_rows_work():
    rules = Rules()
    state = core.init(3, rules, seed=0)
    obs, mask = O.encode(state), state.legal_action_mask.copy()
    mask[1] = False
    for cls in BOTS.values():
        a = cls(rules, seed=0)(obs, mask)
        assert a[1] == 0 and mask[0, a[0]] and mask[2, a[2]]
        single = cls(rules, seed=0)(obs[0], mask[0])
        assert mask[0, int(single)]
        assert cls(rules)(obs[:0], mask[:0]).shape == (0,)


def test_random_bot_is_uniform_and_seeded():
    rules = Rules()
    state = core.init(1, rules, seed=0)
    obs = np.repeat(O.encode(state), 6000, axis=0)
    mask = np.repeat(state.legal_action_mask, 6000, axis=0)
    a = RandomBot(rules, seed=3)(obs, mask)
    legal = np.flatnonzero(mask[0])
    counts = np.array([(a == x).sum() for x in legal])
    assert counts.sum() == 6000 and counts.min() > 6000 / legal.size * 0.8
    assert np.array_equal(a, RandomBot(rules, seed=3)(obs, mask))


# --- decisions on hand-made positions ---------------------------------------------------------------


def _position(hand, **kw):
    """One observation row and its mask, of a real State set up by hand (helpers.scripted_position)."""
    return scripted_position(hand, **kw)


def test_decode_reads_the_observation_layout():
    obs, mask = _position("Ac 2c 3c 7h 8h Kd Ks Qs 9d 4s", top="Kh", pile="2d 5s", opp_known="Th", stock=17,
                          knock_limit=7)
    v = decode(obs, mask)
    assert isinstance(v, View)
    assert mask_to_cards(int(v.hand[0])) == sorted(parse_cards("Ac 2c 3c 7h 8h Kd Ks Qs 9d 4s"))
    assert v.top[0] == parse_card("Kh")
    assert mask_to_cards(int(v.pile[0])) == sorted(parse_cards("2d 5s Kh"))
    assert mask_to_cards(int(v.opp_known[0])) == [parse_card("Th")]
    assert v.stock[0] == 17 and v.knock_limit[0] == 7
    assert v.take_phase[0] and not v.discard_phase[0] and not v.first_upcard[0]


def test_meldable_with():
    hand = np.array([cards_to_mask(parse_cards("7c 7d 5h 6h 9s Js"))], dtype=np.uint64)
    got = set(mask_to_cards(int(meldable_with(hand)[0])))
    assert got == set(parse_cards("7h 7s 4h Ts"))
    assert melds_with(hand, np.array([parse_card("Ts")]))[0]
    assert not melds_with(hand, np.array([parse_card("8s")]))[0]
    assert not melds_with(hand, np.array([-1]))[0]


def test_simple_takes_upcard_that_melds_and_draws_otherwise():
    bot = SimpleBot()
    hand = "Ac 2c 5h 6h 9s Js Qd Kd 4c 8d"
    obs, mask = _position(hand, top="7h")  # 5h 6h 7h
    assert bot(obs, mask)[0] == TAKE_DISCARD
    obs, mask = _position(hand, top="3s")  # melds with nothing
    assert bot(obs, mask)[0] == DRAW_STOCK
    obs, mask = _position(hand, top="3s", first_upcard=True)
    assert bot(obs, mask)[0] == PASS
    # takes a card that lets it knock even if that card is deadwood
    obs, mask = _position("Ac 2c 3c 5h 6h 7h 9s 9d 9h Kd", top="Ad")  # discard Kd -> deadwood 1
    assert bot(obs, mask)[0] == TAKE_DISCARD


def test_simple_discards_highest_deadwood_and_knocks_when_legal():
    bot = SimpleBot()
    # 11 cards, runs Ac-3c and 5h-7h; deadwood 9s Js Qd Kd 4d -> highest rank: K (Kd)
    obs, mask = _position("Ac 2c 3c 5h 6h 7h 9s Js Qd Kd 4d", phase="discard")
    assert bot(obs, mask)[0] == DISCARD + parse_card("Kd")
    # the card just taken (Kd) may not be discarded: next highest rank Qd
    obs, mask = _position("Ac 2c 3c 5h 6h 7h 9s Js Qd Kd 4d", phase="discard", taken="Kd")
    assert bot(obs, mask)[0] == DISCARD + parse_card("Qd")
    # knock: melds Ac-3c, 5h-7h, 9s 9d 9h; deadwood Kd 2d -> knock with Kd (deadwood 2)
    obs, mask = _position("Ac 2c 3c 5h 6h 7h 9s 9d 9h Kd 2d", phase="discard")
    assert bot(obs, mask)[0] == KNOCK + parse_card("Kd")
    # gin beats a plain knock
    obs, mask = _position("Ac 2c 3c 5h 6h 7h 9s 9d 9h Kd Kh", phase="discard", knock_limit=10)
    a = bot(obs, mask)[0]
    assert a - KNOCK in parse_cards("Kd Kh")


def test_patient_knocks_with_deadwood_only_early_or_at_the_wall_and_always_goes_gin():
    bot = PatientBot()
    knock_hand = "Ac 2c 3c 5h 6h 7h 9s 9d 9h Kd 2d"  # simple knocks with Kd (deadwood 2)

    def late(obs, cards="4s 8c Qh"):  # three discards of its own this hand: its fourth turn
        obs[0, O.OWN_DISCARDED.start + np.array(parse_cards(cards))] = 1
        return obs

    obs, mask = _position(knock_hand, phase="discard")
    assert bot(obs, mask)[0] == SimpleBot()(obs, mask)[0] == KNOCK + parse_card("Kd")
    obs, mask = _position(knock_hand, phase="discard")
    assert bot(late(obs), mask)[0] == DISCARD + parse_card("Kd")  # it waits for gin
    wall = Rules().wall_stock_size
    obs, mask = _position(knock_hand, phase="discard", stock=wall)
    assert bot(late(obs), mask)[0] == KNOCK + parse_card("Kd")  # the last discard before the wall
    obs, mask = _position("Ac 2c 3c 4c 5h 6h 7h 9s 9d 9h Kd", phase="discard")
    assert bot(late(obs), mask)[0] == KNOCK + parse_card("Kd")  # gin


def test_patient_draws_and_knocks_as_marjj_and_discards_as_simple():
    """On many positions of real games: ``marjj``'s move whenever that is an upcard choice or a
    knock; otherwise ``simple``'s move on the same position with the knocks taken out of the mask."""
    assert _play_checked(Rules(), [PatientBot(seed=0), SimpleBot(seed=0)], batch=64, steps=300).min() > 1000
    state = core.init(256, "hollywood", seed=4)
    simple, marjj, patient, plain = SimpleBot(), MarjjBot(seed=0), PatientBot(), 0
    for _ in range(300):
        obs, mask = O.encode(state), state.legal_action_mask
        a, m = patient(obs, mask), marjj(obs, mask)
        knock = (m >= KNOCK) & (m < KNOCK + 52) | (m == BIG_GIN)
        choice = mask[:, TAKE_DISCARD] | knock | ~mask.any(axis=1)
        assert (a[choice] == m[choice]).all()
        no_knocks = mask.copy()
        no_knocks[:, KNOCK:KNOCK + 52] = False
        no_knocks[:, BIG_GIN] = False
        r = np.flatnonzero(~choice)
        assert (a[r] == simple(obs[r], no_knocks[r])).all()
        plain += int((a[r] != m[r]).sum())
        core.step(state, np.where(state.current_player == np.arange(256) % 2, a, m))  # a seat each
        if state.done.any():
            core.reset_games(state, state.done)
    assert plain > 100  # its discards often differ from marjj's


def test_simple_breaks_ties_as_openspiel():
    """Same-rank ties go to the higher suit in OpenSpiel's order (hearts > diamonds > clubs >
    spades), equal arrangements to the meld group OpenSpiel's BestMeldGroup lists first."""
    bot = SimpleBot()
    # deadwood Ks and Kh (and Kc): OpenSpiel's highest is Kh, ours by index would be Ks
    obs, mask = _position("Ac 2c 3c 5d 6d 7d 9c 9d 9h Ks Kh", phase="discard", knock_limit=0)
    assert bot(obs, mask)[0] == DISCARD + parse_card("Kh")
    obs, mask = _position("Ac 2c 3c 5d 6d 7d 9c 9d 9h Ks Kc", phase="discard", knock_limit=0)
    assert bot(obs, mask)[0] == DISCARD + parse_card("Kc")
    # knock with deadwood 4s 4d: discard the 4 OpenSpiel ranks higher (4d)
    obs, mask = _position("Ac 2c 3c 5h 6h 7h 9s 9d 9h 4s 4d", phase="discard")
    assert bot(obs, mask)[0] == KNOCK + parse_card("4d")
    # with 2s 2d instead, 2c 2d 2s and Ac 2c 3c meld the same: OpenSpiel lays the set (sets
    # are listed first), leaving Ac 3c: knock with 3c
    obs, mask = _position("Ac 2c 3c 5h 6h 7h 9s 9d 9h 2s 2d", phase="discard")
    assert bot(obs, mask)[0] == KNOCK + parse_card("3c")
    # Tc Td Th + Qd: the set of tens and the run Td Jd Qd meld the same value; OpenSpiel lists
    # the set first, so Qd would be deadwood: draw from the stock (ours by fewest set cards: take)
    obs, mask = _position("6c Tc Qc Ad 7d Td Jd 2h 7h Th", top="Qd", knock_limit=0)
    assert bot(obs, mask)[0] == DRAW_STOCK
    # and the discard: deadwood of the set arrangement 6c Qc Ad 7d Jd Qd 2h 7h -> Qd (d > c)
    obs, mask = _position("6c Tc Qc Ad 7d Td Jd Qd 2h 7h Th", phase="discard", knock_limit=0)
    assert bot(obs, mask)[0] == DISCARD + parse_card("Qd")


def test_openspiel_melded_matches_openspiel_best_meld_group():
    pyspiel = pytest.importorskip("pyspiel")
    from agents.bots import openspiel_melded

    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    ours = [3, 0, 1, 2]  # OpenSpiel suit s c d h -> ours
    rng = np.random.default_rng(7)
    hands = []
    for i in range(1500):
        k = 10 + i % 2
        if i % 2:  # meld-rich: cards of five ranks, many set/run overlaps
            ranks = rng.choice(13, 5, replace=False)
            cards = rng.choice([s * 13 + r for r in ranks for s in range(4)], k, replace=False)
        else:
            cards = rng.choice(52, k, replace=False)
        hands.append(sorted(int(c) for c in cards))
    masks = np.array([sum(1 << (ours[c // 13] * 13 + c % 13) for c in h) for h in hands], dtype=np.uint64)
    expected = [sum(1 << (ours[c // 13] * 13 + c % 13) for meld in utils.best_meld_group(h) for c in meld)
                for h in hands]
    for got in (openspiel_melded(masks), np.concatenate([openspiel_melded(masks[i:i + 5]) for i in range(0, len(hands), 5)])):
        assert got.tolist() == expected  # batched and small-batch paths


def test_simple_agrees_with_openspiel_simple_bot():
    """Replayed OpenSpiel games: our simple bot picks OpenSpiel's move (it did at 95.1% with our
    own tie-breaks; 100% of 25,000 decisions in 1,000 games with OpenSpiel's)."""
    pytest.importorskip("pyspiel")
    from experiments.research import openspiel_agreement as mod
    frac, n, per_kind, diffs = mod.agreement(games=30, seed=3, epsilon=0.2)
    assert n > 500 and set(per_kind) == {"upcard", "discard", "knock"}
    assert frac >= 0.99, [mod.describe(o, m, a, b) for o, m, a, b, _ in diffs[:5]]


def test_neller_takes_upcard_only_if_it_melds_and_discards_min_deadwood():
    bot = NellerBot(seed=0)
    hand = "Ac 2c 5h 6h 9s Js Qd Kd 4c 8d"
    obs, mask = _position(hand, top="Th")  # no meld with Th
    assert bot(obs, mask)[0] == DRAW_STOCK
    obs, mask = _position(hand, top="Ts")  # 9s Ts Js
    assert bot(obs, mask)[0] == TAKE_DISCARD
    # Qd and Kd are both 10-point deadwood: both leave the minimum; the choice is random among them
    obs, mask = _position("Ac 2c 3c 5h 6h 7h 9s 9d 9h Qd Kc", phase="discard", knock_limit=0)
    picks = {int(NellerBot(seed=s)(obs, mask)[0]) for s in range(30)}
    assert picks == {DISCARD + parse_card("Qd"), DISCARD + parse_card("Kc")}


def test_hollywood_stance_reads_the_sheet():
    rules = Rules()
    bot = HollywoodBot(rules)
    state = core.init(3, rules, seed=0)  # three first hands; their scoresheets written as below
    me = state.current_player.astype(np.int64)
    opp = 1 - me
    opened, columns = state.sheet.opened, state.sheet.columns
    opened[0, opp[0], :2] = True  # opponent opened two columns, we none: urgent
    opened[1, me[1], :2] = True  # we opened two, the opponent one: patient
    opened[1, opp[1], 0] = True
    opened[2, me[2], 0] = opened[2, opp[2], 0] = True
    columns[2, opp[2], 0] = 90  # opponent at 90 of 100 in game 1: close
    obs = O.encode(state)
    f = obs[:, O.SHEET_START:].reshape(3, rules.columns, O.SHEET_FEATURES)
    assert f[2, 0, 1] == pytest.approx(0.9) and f[0, :2, 3].tolist() == [1, 1]  # the encoder's reading
    urgent, patient = bot.stance(obs)
    assert urgent.tolist() == [True, False, True]
    assert patient.tolist() == [False, True, False]
    with pytest.raises(ValueError, match="unknown HollywoodBot parameter"):
        HollywoodBot(rules, nonsense=1)


def test_hollywood_avoids_feeding_known_melds():
    # deadwood Kd and Ks; the opponent took Kh from the pile: Ks/Kd would feed its kings
    hand = "Ac 2c 3c 5h 6h 7h 9s 9d 9h Kd Qs"
    obs, mask = _position(hand, phase="discard", knock_limit=0, opp_known="Kh Kc")
    a = HollywoodBot()(obs, mask)[0]
    assert a == DISCARD + parse_card("Qs")
    obs, mask = _position(hand, phase="discard", knock_limit=0)
    assert SimpleBot()(obs, mask)[0] == DISCARD + parse_card("Kd")


def test_big_gin_is_declared():
    rules = Rules(big_gin=True)
    obs, mask = _position("Ac 2c 3c 4c 5h 6h 7h 9s 9d 9h 9c", phase="discard", rules=rules)
    assert mask[0, BIG_GIN]  # the engine offers big gin with these eleven cards
    for cls in (SimpleBot, NellerBot, HollywoodBot):
        assert cls(rules, seed=0)(obs, mask)[0] == BIG_GIN


# --- strength ---------------------------------------------------------------------------------------


def test_simple_beats_random_in_90_percent_of_hands():
    r = play_pairing("simple", "random", "hollywood", n_pairs=40, seed=3)
    decided = (r.hands - r.walls).sum()
    assert decided > 100
    assert r.a_hands.sum() / decided >= 0.9


def test_simple_vs_simple_is_even_within_its_interval():
    from experiments.evaluation.head_to_head import summarize

    s = summarize(play_pairing("simple", "simple", "hollywood", n_pairs=60, seed=4), n_boot=200)
    for key in ("match_win_rate", "hand_win_rate", "game_win_rate"):
        e = s["metrics"][key]
        assert e["low"] <= 0.5 <= e["high"], key
    # neller has random tie-breaks: the games of a pair differ, and it is still even
    s = summarize(play_pairing("neller", "neller", "gin-rummy", n_pairs=120, seed=4), n_boot=200)
    e = s["metrics"]["match_win_rate"]
    assert e["low"] <= 0.5 <= e["high"]


@pytest.mark.slow
def test_hollywood_beats_simple_over_2000_matches():
    from experiments.evaluation.head_to_head import summarize

    s = summarize(play_pairing("hollywood", "simple", "hollywood", n_pairs=1500, seed=2024), n_boot=500)
    assert s["matches_completed"] >= 2000
    assert s["metrics"]["match_win_rate"]["low"] > 0.5  # Wilson
    assert s["metrics"]["match_score_by_pair"]["low"] > 0.5  # the duplicate pair as the unit


# --- registry ------------------------------------------------------------------------------------------


def test_registry_builds_bots_by_name():
    from agents.bots.marjj import MarjjBot

    for name, cls in {**BOTS, "marjj": MarjjBot}.items():  # marjj's own tests: tests/agents/test_marjj.py
        bot = make_agent(name, "gin-rummy", seed=0)
        assert isinstance(bot, cls) and bot.rules == Rules.preset("gin-rummy")
    f = lambda obs, mask: mask.argmax(axis=1)  # noqa: E731
    assert make_agent(f) is f


def test_registry_errors_list_valid_agents():
    with pytest.raises(AgentSpecError, match="valid agents: random, simple, neller, hollywood, marjj, search, ") as e:
        make_agent("bogus")
    for form in ("search:KEY=VALUE,...", "ppo:PATH", "dqn:PATH", "module:function"):
        assert form in str(e.value)
    with pytest.raises(AgentSpecError, match="no such checkpoint file or run folder"):
        make_agent("ppo:/no/such/checkpoint.pt")
    with pytest.raises(AgentSpecError, match="needs a checkpoint path"):
        make_agent("dqn:")
    # a trainer missing from the installation
    loader = registry.checkpoint_loader("xyz", "no_such_trainer_module:Policy.from_checkpoint")
    with pytest.raises(AgentSpecError, match="not available yet"):
        loader(__file__)
    with pytest.raises(AgentSpecError, match="neither a registered prefix"):
        make_agent("no_such_module_xyz:policy")
    with pytest.raises(AgentSpecError, match="has no attribute"):
        make_agent("agents.bots:NoSuchBot")
    with pytest.raises(AgentSpecError, match="no such file"):
        make_agent("/no/such/file.py:policy")
    with pytest.raises(ValueError):
        make_agent("simple", rules="no-such-preset")


def test_checkpoint_prefixes_reject_files_that_are_not_checkpoints(tmp_path):
    pytest.importorskip("torch")
    bad = tmp_path / "not_a_checkpoint.pt"
    bad.write_text("hello")
    for kind in ("ppo", "dqn"):
        with pytest.raises(AgentSpecError, match=f"{kind}:.*cannot load this checkpoint.*not a valid checkpoint"):
            make_agent(f"{kind}:{bad}")


def test_registry_module_function_forms(tmp_path):
    path = tmp_path / "my_agents.py"
    path.write_text(textwrap.dedent("""
        import numpy as np
        from agents.bots import SimpleBot

        def first_legal(obs, mask):
            return mask.argmax(axis=1)

        def factory(rules, seed=None):
            return SimpleBot(rules, seed=seed)

        class Mine(SimpleBot):
            name = "mine"
    """))
    rules = Rules.preset("straight-gin")
    f = make_agent(f"{path}:first_legal", rules)
    assert f.__name__ == "first_legal"
    assert isinstance(make_agent(f"{path}:factory", rules), SimpleBot)
    mine = make_agent(f"{path}:Mine", rules, seed=1)
    assert type(mine).__name__ == "Mine" and mine.rules == rules
    assert isinstance(make_agent("agents.bots:NellerBot", rules), NellerBot)
    # a user function plays a whole pairing
    r = play_pairing(f"{path}:first_legal", "simple", rules, n_pairs=4, seed=0, max_steps=400)
    assert r.decisions > 0


def test_registry_is_extensible():
    calls = []

    def loader(path, rules=None, seed=None):
        calls.append(path)
        return SimpleBot(rules, seed=seed)

    register_prefix("testckpt", loader, "test loader")
    register("test-simple", lambda rules=None, seed=None: SimpleBot(rules, seed=seed), "alias")
    try:
        assert isinstance(make_agent("testckpt:some/path.pt"), SimpleBot) and calls == ["some/path.pt"]
        assert isinstance(make_agent("test-simple"), SimpleBot)
        assert "testckpt:PATH" in registry.available_agents()
        with pytest.raises(ValueError, match="already registered"):
            register("test-simple", lambda rules=None, seed=None: None)
        # a lazily imported "module:attr" factory
        register("lazy-neller", "agents.bots:NellerBot", overwrite=True)
        assert isinstance(make_agent("lazy-neller"), NellerBot)
    finally:
        for table, key in ((registry._PREFIXES, "testckpt"), (registry._NAMES, "test-simple"),
                           (registry._NAMES, "lazy-neller")):
            table.pop(key, None)
