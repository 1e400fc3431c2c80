"""experiments/research/oracle_ceiling.py: the oracles measure what they claim to see. The search
hands its world builder the rows it searches; the oracle that sees everything plays the true game
as its world, the one that sees the hand deals the opponent its true cards; neither is an agent
anyone can name."""

import numpy as np
import pytest

from agents.registry import AgentSpecError, make_agent
from agents.search.search import SearchAgent, candidates
from experiments.research import oracle_ceiling as oc
from hollywood_env import core
from hollywood_env.cards import CARD_BITS
from hollywood_env.determinize import InfoSet
from hollywood_env.observation import encode
from hollywood_env.rules import resolve_rules


def _midgame(n=12, seed=5, steps=14):
    """``n`` eaai games after ``steps`` moves of ``simple`` in both seats."""
    rules = resolve_rules("eaai")
    state = core.init(n, rules, seed=seed)
    bot = make_agent("simple", rules, seed=0)
    for _ in range(steps):
        g = np.flatnonzero(~(state.terminated | state.truncated))
        core.step(state, np.asarray(bot(encode(state, games=g), state.legal_action_mask[g])), games=g)
    return rules, state


class _Recorder(SearchAgent):
    def _worlds(self, info, w, obs=None, history=None, rows=None):
        self.rows = rows
        return super()._worlds(info, w, obs, history, rows)


def test_the_world_builder_gets_the_searched_rows():
    rules, state = _midgame()
    agent = _Recorder(rules, 0, worlds=4, belief="uniform")
    games = np.arange(state.batch_size)
    obs, masks = encode(state, games=games), state.legal_action_mask
    agent(obs, masks)
    expected = np.unique(candidates(obs, masks, np.asarray(agent._base(obs, masks)), agent.config.moves)[0])
    assert expected.size > 2
    np.testing.assert_array_equal(agent.rows, expected)


def test_the_all_seeing_oracle_plays_the_true_game_and_the_hand_oracle_deals_the_true_hand():
    rules, state = _midgame()
    games = np.arange(2, state.batch_size)  # rows of a call are not the batch's games
    for sees in oc.SEES:
        oracle = oc.make_oracle(sees, rules, 0, "simple", worlds=3)
        oracle.truth, oracle.games = state, games
        rows = np.array([0, 3, 5])  # the searched rows among the call's
        info = InfoSet.from_observation(encode(state, games=games[rows]), state.legal_action_mask[games[rows]], rules)
        worlds = oracle._worlds(info, 3, rows=rows)
        g = np.repeat(games[rows], 3)
        me = state.current_player[g].astype(np.int64)
        opp_true = state.hands[g, 1 - me]
        if sees == "all":  # copies of the true game itself: the same hands and the same stock
            np.testing.assert_array_equal(worlds.hands, state.hands[g])
            np.testing.assert_array_equal(worlds.deck, state.deck[g])
            np.testing.assert_array_equal(worlds.stock_pos, state.stock_pos[g])
        else:  # the viewer in seat 0 and the opponent's true cards in seat 1; the stock drawn
            np.testing.assert_array_equal(worlds.hands[:, 1], opp_true)
            np.testing.assert_array_equal(worlds.hands[:, 0], state.hands[g, me])
            stock = [np.bitwise_or.reduce(CARD_BITS[worlds.deck[i, worlds.stock_pos[i]:].astype(np.int64)])
                     for i in range(worlds.batch_size)]
            assert all(int(s) & int(h) == 0 for s, h in zip(stock, opp_true, strict=True))


def test_the_oracle_wins_what_only_a_cheater_wins():
    # knowing the stock and the opponent's policy, it wins every game and more than 25 points a
    # hand against simple, where the honest search wins about 80% of games at +7 a hand
    r = oc.play_games("all", "simple", n_pairs=3, seed=4301)
    assert r["games"] == 6 and r["games_won"]["value"] == 1.0
    assert r["points_per_hand"]["value"] > 25


def test_the_oracle_is_not_an_agent_and_keeps_its_own_knobs():
    with pytest.raises(AgentSpecError):
        make_agent("oracle", "eaai")
    with pytest.raises(ValueError, match="rollout cannot be set"):
        oc.make_oracle("all", resolve_rules("eaai"), 0, "simple", rollout="marjj")
    with pytest.raises(ValueError, match="sees must be one of"):
        oc.make_oracle("stock", resolve_rules("eaai"), 0, "simple")
