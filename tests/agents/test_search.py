"""agents.search.search: the determinized Monte Carlo search agent.

* Its batched rollouts (all rows, candidates and worlds in one batch, the simple bot read straight
  from the state, finished games dropped as they end) give exactly the values of a slow reference
  that plays each (candidate, world) alone, one decision at a time, with the bot on observations.
* It never uses hidden information: its moves are unchanged when the opponent's unknown cards and
  the stock are shuffled among themselves (same seed).
* It plugs into everything that takes an agent: the registry spec (with knobs), duplicate
  matches, the vector env's opponent, the CLI; bad knobs are clear errors.
"""

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from agents.bots import SimpleBot
from agents.bots.marjj import PatientBot
from agents.matches import play_pairing
from agents.paths import MODELS_DIR
from agents.registry import AgentSpecError, make_agent
from agents.search.belief import default_belief_path
from agents.search.equity import EQUITY_FILE
from agents.search.search import ONE_COLUMN_DEFAULTS, SearchAgent, SearchConfig, candidates, default_config, parse_search_spec
from hollywood_env import core
from hollywood_env.actions import BIG_GIN, KIND_WALL, KNOCK
from hollywood_env.observation import encode


def _positions(n=48, steps=25, seed=0, preset="hollywood"):
    """A State of n games after `steps` decisions of the simple bot (the games at varied points)."""
    rng = np.random.default_rng(seed)
    state = core.init(n, preset, seed=seed)
    bot = SimpleBot(preset)
    for _t in range(steps):
        live = ~state.done
        a = bot(encode(state), state.legal_action_mask)
        # a few random moves so that positions are not only the simple bot's
        r = rng.random(n) < 0.2
        rand = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in state.legal_action_mask])
        core.step(state, np.where(r & live, rand, a))
    return state


def _reference_value(world: core.State, action: int, bot, own=None, equity=None) -> float:
    """Play `action` then `bot` (any batched policy) in both seats (`own`, when given, in the seat
    of the player who made `action`), one game, one decision at a time, until the hand ends; the
    signed hand points for the player who made `action` (with `equity`, a MatchEquity: the change
    of that player's match-win equity, in percentage points)."""
    g = core.take(world, [0])
    me = int(g.current_player[0])
    before = None if equity is None else equity(g.sheet, np.array([0]), np.array([me]))[0]
    core.step(g, np.array([action]))
    for _ in range(300):
        if g.hand_ended[0] or g.done[0]:
            break
        mover = own if own is not None and int(g.current_player[0]) == me else bot
        core.step(g, mover(encode(g), g.legal_action_mask))
    assert g.hand_ended[0]
    if equity is not None:
        return 100.0 * (equity(g.sheet, np.array([0]), np.array([me]))[0] - before)
    if g.hand_kind[0] == KIND_WALL:
        return 0.0
    pts = float(g.hand_points[0])
    return pts if int(g.hand_winner[0]) == me else -pts


def _check_against_the_reference(ev, worlds: int, bot, own=None, equity=None) -> None:
    """Every rollout value of ``ev`` (``worlds`` per candidate) equals the one-game reference."""
    searched = np.unique(ev.rows)
    for c in range(ev.rows.size):
        i = int(np.searchsorted(searched, ev.rows[c]))
        for j in range(worlds):
            world = core.take(ev.worlds, [i * worlds + j])
            ref = _reference_value(world, int(ev.actions[c]), bot, own=own, equity=equity)
            if equity is None:
                assert ref == ev.values[c, j]
            else:  # the same network on batches of other sizes: equal up to float rounding
                assert ref == pytest.approx(ev.values[c, j], abs=1e-4)


def _values_and_choice(obs, masks, **knobs):
    """What a search of these knobs (seed 6) finds (:meth:`SearchAgent.candidate_values`) and
    chooses, by two agents of the same seed; valued in hand points unless the knobs say otherwise
    (the one-game references count points)."""
    knobs.setdefault("value", "points")
    return (SearchAgent("hollywood", seed=6, **knobs).candidate_values(obs, masks),
            SearchAgent("hollywood", seed=6, **knobs)(obs, masks))


@pytest.mark.parametrize("moves", ["all", "discards"])
def test_batched_rollouts_equal_a_one_game_reference(moves):
    state = _positions(n=16, seed=3)
    live = np.flatnonzero(~state.done)
    agent = SearchAgent("hollywood", seed=5, worlds=2, moves=moves, rollout="simple", own_rollout="",
                        value="points")
    ev = agent.candidate_values(encode(state, games=live), state.legal_action_mask[live])
    assert ev.rows.size > 6
    _check_against_the_reference(ev, 2, SimpleBot("hollywood"))


def test_equity_values_are_the_change_of_the_match_win_equity():
    state = _positions(n=16, seed=7, steps=40)  # some games past their first hand: sheets not empty
    live = np.flatnonzero(~state.done)
    agent = SearchAgent("hollywood", seed=5, worlds=2, rollout="simple", own_rollout="", value="equity")
    ev = agent.candidate_values(encode(state, games=live), state.legal_action_mask[live])
    assert ev.rows.size > 6 and np.abs(ev.values).max() > 0
    _check_against_the_reference(ev, 2, SimpleBot("hollywood"), equity=agent.equity)


def test_the_choice_is_the_best_mean_with_the_prior_on_the_base_move():
    state = _positions(n=24, seed=4)
    live = np.flatnonzero(~state.done)
    obs, masks = encode(state, games=live), state.legal_action_mask[live]
    for prior in (0.0, 3.0):
        knobs = dict(worlds=4, moves="all", prior=prior, confidence=0.0, rollout="simple")  # the mean alone
        ev, chosen = _values_and_choice(obs, masks, **knobs)
        mean = ev.values.mean(axis=1) + prior * (ev.actions == ev.base[ev.rows])
        for r in range(live.size):
            c = np.flatnonzero(ev.rows == r)
            if c.size == 0:
                assert chosen[r] == ev.base[r]
            else:
                assert mean[c][list(ev.actions[c]).index(chosen[r])] == mean[c].max()


def test_with_confidence_a_move_replaces_the_base_move_only_when_clearly_better():
    state = _positions(n=24, seed=4)
    live = np.flatnonzero(~state.done)
    obs, masks = encode(state, games=live), state.legal_action_mask[live]
    knobs = dict(worlds=8, moves="all", prior=0.5, confidence=1.5, rollout="simple")
    ev, chosen = _values_and_choice(obs, masks, **knobs)
    replaced = 0
    for r in np.unique(ev.rows):
        c = np.flatnonzero(ev.rows == r)
        b = c[ev.actions[c] == ev.base[r]]
        assert b.size == 1
        d = ev.values[c] - ev.values[b]  # each candidate's advantage over the base move, per world
        bound = d.mean(axis=1) - 1.5 * d.std(axis=1, ddof=1) / np.sqrt(8)
        bound[ev.actions[c] == ev.base[r]] = 0.5
        assert chosen[r] == ev.actions[c][np.argmax(bound)]  # ties: the smaller action, as argmax
        replaced += chosen[r] != ev.base[r]
    assert 0 < replaced < np.unique(ev.rows).size
    with pytest.raises(AgentSpecError, match="confidence must be >= 0"):
        make_agent("search:confidence=-1", "hollywood")


def test_several_opponent_models_roll_out_the_same_worlds_and_are_pooled():
    """``rollout=simple+patient``: each model plays every (candidate, world) in its own block of
    the values (the one-game reference, bot on observations), and a candidate replaces the base
    move only when its lower bound over both models' worlds together clears the prior (the
    opponent is either model, as likely)."""
    state = _positions(n=24, seed=4)
    live = np.flatnonzero(~state.done)
    obs, masks = encode(state, games=live), state.legal_action_mask[live]
    knobs = dict(worlds=4, moves="all", prior=0.5, confidence=1.0, rollout="simple+patient", own_rollout="")
    ev, chosen = _values_and_choice(obs, masks, **knobs)
    assert ev.values.shape == (ev.rows.size, 8)
    first = replace(ev, values=ev.values[:, :4])
    _check_against_the_reference(first, 4, SimpleBot("hollywood"))
    _check_against_the_reference(replace(ev, values=ev.values[:, 4:]), 4, PatientBot("hollywood"))
    replaced = 0
    for r in np.unique(ev.rows):
        c = np.flatnonzero(ev.rows == r)
        b = c[ev.actions[c] == ev.base[r]]
        d = ev.values[c] - ev.values[b]
        bound = d.mean(axis=1) - 1.0 * d.std(axis=1, ddof=1) / np.sqrt(8)
        bound[ev.actions[c] == ev.base[r]] = 0.5
        assert chosen[r] == ev.actions[c][np.argmax(bound)]
        replaced += chosen[r] != ev.base[r]
    assert 0 < replaced
    for bad in ("simple+simple", "simple+nope", "simple+"):
        with pytest.raises(AgentSpecError, match="several different ones joined by"):
            make_agent(f"search:rollout={bad}", "hollywood")
    # the measured and rejected ways of counting the models and the scoresheet value are gone
    with pytest.raises(AgentSpecError, match="unknown search option 'combine'"):
        make_agent("search:rollout=simple+patient,combine=min", "hollywood")
    with pytest.raises(AgentSpecError, match="value must be one of"):
        make_agent("search:value=sheet", "hollywood")


def test_the_search_never_uses_hidden_information(reshuffle_hidden):
    """Same seed, same observations: the same moves, whatever the opponent holds beyond its
    known cards and whatever the stock order (both reshuffled among the unseen cards)."""
    rng = np.random.default_rng(0)
    state = _positions(n=32, seed=8)
    live = np.flatnonzero(~state.done)
    other = reshuffle_hidden(state, live, rng)
    assert not np.array_equal(other.hands, state.hands[live])  # the hidden cards did change
    for knobs in ({"worlds": 4}, {"worlds": 4, "moves": "all", "belief": "uniform"},
                  {"worlds": 2, "rollout": "ppo-hollywood", "base": "ppo-hollywood"}):
        a = SearchAgent("hollywood", seed=11, **knobs)(encode(state, games=live), state.legal_action_mask[live])
        b = SearchAgent("hollywood", seed=11, **knobs)(encode(other), other.legal_action_mask)
        np.testing.assert_array_equal(a, b)


def test_gin_and_big_gin_are_taken_and_moves_are_legal():
    state = _positions(n=64, steps=40, seed=9, preset="hollywood")
    live = np.flatnonzero(~state.done)
    masks = state.legal_action_mask[live]
    acts = SearchAgent("hollywood", seed=1, worlds=2, moves="all")(encode(state, games=live), masks)
    assert masks[np.arange(live.size), acts].all()
    big = masks[:, BIG_GIN]
    assert (acts[big] == BIG_GIN).all()


def test_same_seed_same_moves_and_reseeding():
    state = _positions(n=24, seed=2)
    live = np.flatnonzero(~state.done)
    obs, masks = encode(state, games=live), state.legal_action_mask[live]
    a = make_agent("search:worlds=4,moves=all,prior=0", "hollywood", seed=3)
    first = a(obs, masks)
    a.seed(3)
    np.testing.assert_array_equal(a(obs, masks), first)
    np.testing.assert_array_equal(make_agent("search:worlds=4,moves=all,prior=0", "hollywood", seed=3)(obs, masks),
                                  first)


def test_a_time_budget_buys_worlds_at_the_measured_cost():
    state = _positions(n=24, seed=2)
    live = np.flatnonzero(~state.done)
    obs, masks = encode(state, games=live), state.legal_action_mask[live]
    agent = SearchAgent("hollywood", seed=0, worlds=64, seconds=0.05, rollout="simple")
    first = agent.candidate_values(obs, masks)
    assert first.values.shape[1] == 16  # nothing measured yet
    agent._cost = 1e-3  # 1 ms per (candidate, world): 0.05 s buys 50 worlds for one candidate per row
    rows, cands = np.unique(first.rows).size, first.rows.size
    expected = int(np.clip(0.05 * rows / (1e-3 * cands), 4, 64))
    assert agent._budget_worlds(rows, cands) == expected
    agent._cost = 10.0  # very slow: the floor of 4 worlds
    assert agent.candidate_values(obs, masks).values.shape[1] == 4
    assert SearchAgent("hollywood", seed=0, worlds=8, rollout="simple").candidate_values(obs, masks).values.shape[1] == 8


def _record_opponent_wins(state, games, points):
    """Credit the opponent of the player to act in each of ``games`` with won hands of ``points``."""
    opp = 1 - state.current_player[games].astype(np.int64)
    for p in points:
        state.sheet.record(np.asarray(games), opp, np.full(len(games), p))


def _positions_with_opponent_records(preset):
    """Positions of ``preset`` whose opponents have won, in every third game, two hands of 31 and 27
    points (``patient_rows``), two of 12 and 15 (``knocker_rows``), or one of 40 (not yet known):
    ``(live, patient_rows, knocker_rows, obs, masks, info)`` of the live games."""
    from hollywood_env.determinize import InfoSet

    state = _positions(n=24, seed=4, steps=12, preset=preset)
    live = np.flatnonzero(~state.done)
    assert not state.sheet.hands_scored.any()
    patient_rows, knocker_rows = live[::3], live[1::3]
    _record_opponent_wins(state, patient_rows, [31, 27])
    _record_opponent_wins(state, knocker_rows, [12, 15])
    _record_opponent_wins(state, live[2::3], [40])
    obs, masks = encode(state, games=live), state.legal_action_mask[live]
    return live, patient_rows, knocker_rows, obs, masks, InfoSet.from_observation(obs, masks, state.rules)


def test_the_opponent_win_record_is_read_from_the_scoresheet():
    from agents.search.search import opponent_waits_for_gin, opponent_win_record
    from hollywood_env.determinize import InfoSet

    state = _positions(n=4, seed=2, steps=6)
    _record_opponent_wins(state, [0], [30, 25])     # 2 wins: 30 in game 1; 25 in games 1 and 2
    _record_opponent_wins(state, [1], [20, 10, 9])  # 3 wins, small ones
    _record_opponent_wins(state, [2], [10])         # a single small win
    # game 3: none; and the player to act's own wins do not count
    state.sheet.record(np.array([3]), state.current_player[[3]].astype(np.int64), np.array([5]))
    info = InfoSet.from_observation(encode(state), state.legal_action_mask, state.rules)
    wins, per_win = opponent_win_record(info)
    assert wins.tolist() == [2, 3, 1, 0]
    assert np.allclose(per_win, [(55 + 25) / 3, (39 + 19 + 9) / 6, 10, 0])
    assert opponent_waits_for_gin(info).tolist() == [True, False, False, False]
    assert opponent_waits_for_gin(info, wins=1).tolist() == [True, False, False, False]
    assert opponent_waits_for_gin(info, points=27).tolist() == [False, False, False, False]
    # the observation's decoding and the state's agree
    same = opponent_win_record(InfoSet.from_state(state))
    assert all(np.allclose(a, b) for a, b in zip(same, (wins, per_win), strict=True))


def test_value_match_uses_equity_only_against_an_opponent_who_waits_for_gin():
    """``value=match``: in the rows whose opponent has won at least 2 hands at 25 or more points
    on average, each value is the one-game reference's change of match equity over
    ``EQUITY_PER_POINT``; in the others (early knockers, and opponents with fewer wins) the signed
    hand points, exactly as ``value=points``."""
    from agents.search.search import EQUITY_PER_POINT, opponent_waits_for_gin

    live, patient_rows, knocker_rows, obs, masks, info = _positions_with_opponent_records("hollywood")
    assert opponent_waits_for_gin(info).tolist() == np.isin(live, patient_rows).tolist()
    knobs = dict(worlds=2, moves="all", rollout="simple", own_rollout="")
    ev = SearchAgent("hollywood", seed=5, value="match", **knobs).candidate_values(obs, masks)
    by_points = SearchAgent("hollywood", seed=5, value="points", **knobs).candidate_values(obs, masks)
    equity = SearchAgent("hollywood", seed=5, value="match", **knobs).equity
    waits = np.isin(live[ev.rows], patient_rows)
    assert waits.any() and (~waits).any()
    assert np.array_equal(ev.values[~waits], by_points.values[~waits])
    searched = np.unique(ev.rows)
    for c in np.flatnonzero(waits):
        i = int(np.searchsorted(searched, ev.rows[c]))
        for j in range(2):
            world = core.take(ev.worlds, [i * 2 + j])
            ref = _reference_value(world, int(ev.actions[c]), SimpleBot("hollywood"), equity=equity)
            assert ref / EQUITY_PER_POINT == pytest.approx(ev.values[c, j], abs=1e-3)
    assert np.abs(ev.values[waits]).max() > 0


def test_value_auto_is_match_where_an_equity_model_fits_the_rules(tmp_path):
    hollywood = SearchAgent("hollywood", seed=0, value="auto", worlds=2)
    assert hollywood.config.value == "match" and hollywood.equity is not None
    for rules in ("gin-rummy-simple", "gin-rummy"):  # one column: no equity model fits, hands won count
        agent = SearchAgent(rules, seed=0, value="auto", worlds=2)
        assert agent.config.value == "win" and agent.equity is None
    missing = SearchAgent("hollywood", seed=0, value="auto", worlds=2, equity_file=str(tmp_path / "none.pt"))
    assert missing.config.value == "points"
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="not a valid"):
        SearchAgent("hollywood", seed=0, value="auto", worlds=2, equity_file=str(bad))


def test_specs_and_knobs():
    assert parse_search_spec("worlds=64, rollout=hollywood,prior=0.5") == {
        "worlds": 64, "rollout": "hollywood", "prior": 0.5}
    agent = make_agent("search:worlds=8,belief=uniform", "gin-rummy")
    # (ppo-hollywood reads three columns, gin-rummy has one: the automatic base is the single-hand PPO)
    one_column = "ppo-gin-rummy-simple" if (MODELS_DIR / "ppo_gin_rummy_simple.pt").is_file() else "marjj"
    # (and one-column rules have defaults of their own: hands won, no prior, a stricter gate, 256
    # worlds, simple alone as the opponent model; knobs given explicitly override them)
    assert agent.config == SearchConfig(worlds=8, belief="uniform", base=one_column, value="win", prior=0.0,
                                        confidence=2.0, rollout="simple")
    assert make_agent("search", "gin-rummy-simple").config.worlds == 256 == ONE_COLUMN_DEFAULTS["worlds"]
    assert default_config("gin-rummy-simple") == replace(SearchConfig(), **ONE_COLUMN_DEFAULTS)
    assert default_config("hollywood") == SearchConfig()
    explicit = make_agent("search:value=points,prior=1,confidence=1.5,rollout=simple+patient", "gin-rummy").config
    assert (explicit.value, explicit.prior, explicit.confidence, explicit.rollout, explicit.worlds) == \
        ("points", 1.0, 1.5, "simple+patient", 256)
    # the default belief is the learned one when its model file is there, else the heuristic one
    default = make_agent("search", "hollywood").config
    assert default.belief == ("learned" if default_belief_path().is_file() else "heuristic")
    # and the default base the first shipped PPO when its file is there (it reads these rules), else marjj
    assert default.base == ("ppo-hollywood-v1" if (MODELS_DIR / "ppo_hollywood_v1.pt").is_file() else "marjj")
    # and the default value match equity against a patient opponent when the equity model is there
    assert default.value == ("match" if EQUITY_FILE.is_file() else "points")
    assert replace(default, belief="auto", base="auto", value="auto") == SearchConfig()
    # a shipped model that cannot read the rules' observations (one column, not three) is passed over
    assert make_agent("search", "gin-rummy-simple").config.base == one_column
    for bad, says in [("search:wrlds=8", "unknown search option 'wrlds'"), ("search:worlds=0", "positive int"),
                      ("search:worlds=many", "expected int"), ("search:rollout=ppo", "rollout must be one of"),
                      ("search:base=ppo", "base must be one of"), ("search:base=sb3:x.zip", "base must be one of"),
                      ("search:base=ppo:no/such/file.pt", "base=ppo:no/such/file.pt"),
                      ("search:worlds", "must be KEY=VALUE"), ("search:seconds=-1", "seconds must be >= 0"),
                      ("search:belief=melds", "belief must be one of")]:
        with pytest.raises(AgentSpecError, match=says):
            make_agent(bad, "hollywood")


def test_the_automatic_base_falls_back_to_the_bot_when_no_model_loads(monkeypatch):
    import agents.search.search as S

    monkeypatch.setattr(S, "AUTO_BASES", ("ppo:no/such/model.pt", "marjj"))
    assert SearchAgent("hollywood", seed=0, worlds=2).config.base == "marjj"


def test_a_trained_policy_as_the_base():
    """``base`` may name a trained policy: it makes the moves not searched and its move gets the
    prior, exactly as a bot base does."""
    agent = make_agent("search:worlds=4,base=ppo-hollywood", "hollywood", seed=3)
    ppo = make_agent("ppo-hollywood", "hollywood")
    state = core.init(8, rules="hollywood", seed=5)
    obs, masks = encode(state), state.legal_action_mask
    ev = agent.candidate_values(obs, masks)
    assert np.array_equal(ev.base, ppo(obs, masks))
    r = play_pairing("search:worlds=2,base=ppo-hollywood", "simple", "hollywood", n_pairs=1, seed=1, per_hand=True)
    assert r.hands.sum() == 2 and r.a_decisions > 0


def test_a_trained_policy_as_the_rollout():
    """``rollout`` may name a trained policy: every rollout value is the one-game result of the
    candidate followed by that policy (greedy) in both seats."""
    state = _positions(n=8, seed=12)
    live = np.flatnonzero(~state.done)
    agent = SearchAgent("hollywood", seed=5, worlds=2, rollout="ppo-hollywood", own_rollout="", value="points",
                        base="ppo-hollywood")
    ev = agent.candidate_values(encode(state, games=live), state.legal_action_mask[live])
    assert ev.rows.size > 3
    _check_against_the_reference(ev, 2, make_agent("ppo-hollywood", "hollywood"))
    with pytest.raises(AgentSpecError, match="rollout=ppo:no/such.pt"):
        make_agent("search:rollout=ppo:no/such.pt", "hollywood")


def test_the_own_seat_may_roll_out_with_another_policy():
    """``own_rollout``: the searcher's seat is played by that policy in the rollouts, the
    opponent's by ``rollout``."""
    state = _positions(n=8, seed=13)
    live = np.flatnonzero(~state.done)
    agent = SearchAgent("hollywood", seed=5, worlds=2, rollout="simple", own_rollout="ppo-hollywood", base="ppo-hollywood",
                        value="points")
    ev = agent.candidate_values(encode(state, games=live), state.legal_action_mask[live])
    assert ev.rows.size > 3
    _check_against_the_reference(ev, 2, SimpleBot("hollywood"), own=make_agent("ppo-hollywood", "hollywood"))
    with pytest.raises(AgentSpecError, match="own_rollout must be empty"):
        make_agent("search:own_rollout=ppo", "hollywood")
    for knob in ("rollout", "own_rollout"):  # "auto" chooses a base, not a rollout policy
        with pytest.raises(AgentSpecError, match=f"{knob} must be"):
            make_agent(f"search:{knob}=auto", "hollywood")


def test_it_plays_matches_and_the_vector_env():
    r = play_pairing("search:worlds=2", "simple", "hollywood", n_pairs=2, seed=1, per_hand=True)
    assert r.hands.sum() == 4 and r.a_decisions > 0
    from hollywood_env.vector_env import HollywoodGinVectorEnv
    opponent = make_agent("search:worlds=2", "hollywood")
    env = HollywoodGinVectorEnv(num_envs=2, opponent=opponent, rules="hollywood")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = np.array([rng.choice(np.flatnonzero(row)) for row in env.action_masks()])
        env.step(a)
    assert opponent.stats["decisions"] >= 20  # the search played the opponent's seat


def test_cli_evaluate_takes_search_specs():
    ok = subprocess.run([sys.executable, "-m", "experiments.cli", "evaluate", "search:worlds=2", "simple", "--hands", "2",
                         "-q"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([sys.executable, "-m", "experiments.cli", "evaluate", "search:wrlds=2", "simple", "--hands",
                          "2"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert "unknown search option 'wrlds'" in bad.stderr and "Traceback" not in bad.stderr


def test_on_eaai_the_search_values_hands_by_game_equity_and_sees_no_hidden_card(reshuffle_hidden):
    from agents.search.game_equity import GameEquity
    from agents.search.search import GAME_DEFAULTS

    agent = make_agent("search", "eaai")
    assert isinstance(agent.equity, GameEquity) and default_config("eaai") == replace(SearchConfig(), **GAME_DEFAULTS)
    assert (agent.config.value, agent.config.base, agent.config.worlds) == ("equity", "marjj", GAME_DEFAULTS["worlds"])
    assert "patient" in agent.config.rollout.split("+")  # a gin-hunter among the opponent models
    assert default_config("gin-rummy-simple") == replace(SearchConfig(), **ONE_COLUMN_DEFAULTS)  # single hands
    with pytest.raises(ValueError, match="no game or box bonus"):
        SearchAgent("gin-rummy", seed=0, value="equity", worlds=2)
    state = _positions(n=32, seed=5, preset="eaai")
    live = np.flatnonzero(~state.done)
    other = reshuffle_hidden(state, live, np.random.default_rng(1))
    assert not np.array_equal(other.hands, state.hands[live])
    a = SearchAgent("eaai", seed=4, worlds=4)(encode(state, games=live), state.legal_action_mask[live])
    b = SearchAgent("eaai", seed=4, worlds=4)(encode(other), other.legal_action_mask)
    np.testing.assert_array_equal(a, b)
    assert state.legal_action_mask[live][np.arange(live.size), a].all()


def _discard_rows_with_knocks(preset="eaai"):
    """Observations and masks of positions of the gin-hunting ``patient`` bot in 64 games, taken
    every 10 decisions: many of them in a discard phase with a knock it declines."""
    state = core.init(64, preset, seed=11)
    bot = PatientBot(preset)
    obs, masks = [], []
    for t in range(60):
        if t % 10 == 9:
            live = np.flatnonzero(~state.done)
            obs.append(encode(state, games=live))
            masks.append(state.legal_action_mask[live])
        core.step(state, bot(encode(state), state.legal_action_mask))
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.parametrize("moves", ["all", "knocks", "discards"])
def test_every_searched_row_holds_the_base_move_and_discards_search_no_knock(moves):
    obs, masks = _discard_rows_with_knocks()
    rng = np.random.default_rng(0)
    # a base that knocks with any legal card (not only the least-deadwood one) where it may
    knocks_legal = masks[:, KNOCK:KNOCK + 52].any(axis=1)
    assert knocks_legal.sum() >= 10
    base = np.array([rng.choice(np.flatnonzero(m[KNOCK:KNOCK + 52])) + KNOCK if k else rng.choice(np.flatnonzero(m))
                     for m, k in zip(masks, knocks_legal, strict=True)])
    rows, acts = candidates(obs, masks, base, moves)
    searched = np.unique(rows)
    assert searched.size > 0
    for r in searched:
        mine = acts[rows == r]
        assert masks[r, mine].all()
        if moves == "discards":
            assert (mine < KNOCK).all()
        else:
            assert base[r] in mine
    if moves != "discards":  # the knocks of the base are searched
        assert np.isin(searched, np.flatnonzero(knocks_legal)).any()


def test_knocks_searches_the_least_deadwood_knock():
    from agents.bots.base import best_knock
    from hollywood_env.cards import bools_to_masks

    obs, masks = _discard_rows_with_knocks()
    base = np.array([np.flatnonzero(m)[0] for m in masks])  # any legal move
    rows, acts = candidates(obs, masks, base, "knocks")
    k = np.flatnonzero(masks[:, KNOCK:KNOCK + 52].any(axis=1) & ~masks[:, BIG_GIN])
    best = best_knock(bools_to_masks(obs[k, :52] > 0), bools_to_masks(masks[k, KNOCK:KNOCK + 52]))
    found = 0
    for r, b in zip(k, best, strict=True):
        if r in rows:  # rows where gin is legal are not searched: the base move stands
            assert KNOCK + b in acts[rows == r]
            found += 1
    assert found >= 5


@pytest.mark.parametrize("prior", [0.0, 1e6])
def test_an_unreachable_prior_or_a_tie_keeps_the_base_move(prior):
    # with 2 worlds many candidates tie with the base move in both: a tie keeps the base move too
    obs, masks = _discard_rows_with_knocks()
    knobs = dict(worlds=2, moves="knocks", base="random", prior=prior, confidence=1.5, rollout="simple")
    ev = SearchAgent("eaai", seed=6, **knobs).candidate_values(obs, masks)
    chosen = SearchAgent("eaai", seed=6, **knobs)(obs, masks)
    assert np.unique(ev.rows).size > 10
    if prior > 0:
        assert (chosen == ev.base).all()
    else:  # a move replaces the base move only on a positive lower bound of its advantage
        d = ev.values - ev.values[[np.flatnonzero((ev.rows == r) & (ev.actions == ev.base[r]))[0] for r in ev.rows]]
        bound = d.mean(axis=1) - 1.5 * d.std(axis=1, ddof=1) / np.sqrt(2)
        for r in np.unique(ev.rows):
            assert (chosen[r] == ev.base[r]) == (bound[ev.rows == r].max() <= 0)


def test_knocker_rollout_plays_only_the_rows_of_an_opponent_who_knocks_early():
    """``knocker_rollout``: in the rows whose opponent has won at least 2 hands at under 25 points
    on average, only its models play the opponent's seat (the other models' values are NaN there);
    every other row is valued by ``rollout`` alone. Each played value equals the one-game
    reference of its model, and the choice is the gate's over the models that played the row."""
    from agents.search.search import opponent_knocks_early

    live, patient_rows, knocker_rows, obs, masks, info = _positions_with_opponent_records("eaai")
    assert opponent_knocks_early(info).tolist() == np.isin(live, knocker_rows).tolist()
    knobs = dict(worlds=2, moves="knocks", rollout="patient", own_rollout="simple", value="points",
                 knocker_rollout="simple", confidence=1.5)
    ev = SearchAgent("eaai", seed=5, **knobs).candidate_values(obs, masks)
    chosen = SearchAgent("eaai", seed=5, **knobs)(obs, masks)
    knocks = np.isin(live[ev.rows], knocker_rows)
    assert knocks.any() and (~knocks).any()
    assert ev.values.shape == (ev.rows.size, 4)  # patient's 2 worlds, then simple's
    assert np.isnan(ev.values[knocks, :2]).all() and not np.isnan(ev.values[knocks, 2:]).any()
    assert np.isnan(ev.values[~knocks, 2:]).all() and not np.isnan(ev.values[~knocks, :2]).any()
    searched = np.unique(ev.rows)
    for c in range(ev.rows.size):
        i = int(np.searchsorted(searched, ev.rows[c]))
        bot = SimpleBot("eaai") if knocks[c] else PatientBot("eaai")
        for j in range(2):
            world = core.take(ev.worlds, [i * 2 + j])
            ref = _reference_value(world, int(ev.actions[c]), bot, own=SimpleBot("eaai"))
            assert ref == ev.values[c, 2 + j if knocks[c] else j]
    # the gate over the played worlds: a move replaces the base move only on a positive lower bound
    played = np.where(knocks[:, None], ev.values[:, 2:], ev.values[:, :2])
    d = played - played[[np.flatnonzero((ev.rows == r) & (ev.actions == ev.base[r]))[0] for r in ev.rows]]
    bound = d.mean(axis=1) - 1.5 * d.std(axis=1, ddof=1) / np.sqrt(2)
    for r in searched:
        assert (chosen[r] == ev.base[r]) == (bound[ev.rows == r].max() <= 0)


def test_knocker_rollout_is_checked():
    with pytest.raises(ValueError, match="knocker_rollout must be"):
        SearchConfig(knocker_rollout="nobody")
    with pytest.raises(ValueError, match="knocker_rollout must be"):
        SearchConfig(knocker_rollout="simple+simple")
