"""experiments/research/openspiel_arena.py: our agents in OpenSpiel's gin_rummy against its simple bot."""

import numpy as np
import pytest

pytest.importorskip("pyspiel")

from agents.bots import SimpleBot  # noqa: E402
from experiments.research import openspiel_arena as arena  # noqa: E402
from hollywood_env import core  # noqa: E402
from hollywood_env.actions import BIG_GIN, KNOCK, PHASE_DISCARD, TAKE_DISCARD  # noqa: E402
from hollywood_env.observation import PHASE, observation_size  # noqa: E402


@pytest.fixture(scope="module")
def simple_hands():
    return arena.run("simple", deals=30, seed=3)


def test_card_translation_round_trips():
    assert [arena.card_from_openspiel(arena.card_to_openspiel(c)) for c in range(52)] == list(range(52))
    assert arena.card_to_openspiel(39) == 0  # our As (suit s = 3) is OpenSpiel's card 0


def test_simple_mirrors_openspiel_simple_on_duplicate_deals(simple_hands):
    """Our simple bot plays as OpenSpiel's, so the two hands of a deal are one game with the
    seats swapped: the agent's return in seat 0 is minus its return in seat 1."""
    assert len(simple_hands) == 60
    for a, b in zip(simple_hands[0::2], simple_hands[1::2], strict=True):
        assert (a.deal, a.agent_seat, b.deal, b.agent_seat) == (b.deal, 0, a.deal, 1)
        assert a.agent_return == -b.agent_return
        assert a.knocker == b.knocker and a.chance_cards == b.chance_cards
    s = arena.summarize(simple_hands, n_boot=200)
    assert s["won"] == s["lost"] and s["points_per_hand"]["value"] == 0.0


def test_mirror_check_explains_every_difference(simple_hands):
    """Where our engine's hand also ended by a knock, its points equal OpenSpiel's unless the
    difference is the simple bot's defence (no lay-offs, no melds against gin) or the tie rule,
    and then OpenSpiel's scoring of our engine's hands reproduces OpenSpiel's return."""
    compared = [h for h in simple_hands if h.mirror_points is not None]
    assert len(compared) > 40
    for h in compared:
        assert h.mirror_as_openspiel == h.agent_return
        if not (h.laid_off or h.tie or h.mirror_kind == "gin"):
            assert h.mirror_points == h.agent_return
    s = arena.summarize(simple_hands, n_boot=200)
    assert s["mirror_causes"]["other"] == 0


def test_agent_sees_only_our_decisions_and_the_deck_is_dealt_in_order():
    import pyspiel

    seen = []
    bot = SimpleBot(arena.AGENT_RULES)

    def policy(obs, masks):
        seen.append((obs.copy(), masks.copy()))
        return bot(obs, masks)

    game = pyspiel.load_game("gin_rummy")
    for d in range(6):
        deck = arena.deal_deck(11, d)
        for seat in (0, 1):
            h = arena.play_hand(game, policy, deck, seat, deal=d)
            # the arena answered every chance node from the deck, in order: 21 dealt, then the draws
            assert len(h.chance_cards) > 21 and h.chance_cards == deck[: len(h.chance_cards)].tolist()
    assert seen
    size = observation_size(arena.AGENT_RULES)
    for obs, masks in seen:
        assert obs.shape == (1, size) and masks.shape == (1, 108) and masks.any()
        assert obs[0, PHASE].sum() == 1  # a first-upcard, draw or discard decision of ours
        assert not masks[0, BIG_GIN]
    assert np.array_equal(arena.deal_deck(11, 2), arena.deal_deck(11, 2))


def test_agent_mask_drops_the_taken_card():
    state = core.init(1, arena.MIRROR_RULES, seed=0)
    deck = arena.deal_deck(0, 0)
    core.deal(state, [0], deck[None], dealer=[1])
    core.step(state, np.array([TAKE_DISCARD]))
    assert state.phase[0] == PHASE_DISCARD
    up = int(deck[20])
    assert state.legal_action_mask[0, up]  # OpenSpiel's rules: it may be discarded
    mask = arena.agent_mask(state)
    assert not mask[0, up] and not mask[0, KNOCK + up] and mask[0, :52].sum() == 10


def test_runs_are_deterministic():
    a = arena.run("random", deals=3, seed=1)
    b = arena.run("random", deals=3, seed=1)
    assert [h.agent_return for h in a] == [h.agent_return for h in b]
    assert [h.chance_cards for h in a] == [h.chance_cards for h in b]


@pytest.mark.parametrize("argv, needle", [(["no-such-agent", "--deals", "1"], "unknown agent"),
                                          (["simple", "--deals", "0"], "--deals")])
def test_bad_input_is_one_line_and_exit_2(argv, needle, capsys):
    assert arena.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "Traceback" not in err and len(err.splitlines()) == 1
