"""agents.search.belief: beliefs over the opponent's hand, worlds drawn from them, the model file.

* Hard facts are exact in every belief: 0 for cards the viewer can place, 1 for the opponent's
  known cards, and the unseen cards' probabilities sum to the number of unknown cards it holds.
* Worlds drawn from a belief are consistent (the property test of determinize.py covers weights
  too); a card of weight 0 is never dealt while positive ones remain, a dominant one always is.
* A belief reads only what the viewer saw: shuffling the hidden cards changes nothing.
* Model files: round trip, and every bad file is a clear CheckpointError (no code is run).
"""

import io
import pickle

import numpy as np
import pytest
import torch

from agents.bots import SimpleBot
from agents.checkpoint import CheckpointError
from agents.search.belief import (
    INPUT_SIZE,
    BeliefNet,
    LearnedBelief,
    apply_hard_facts,
    belief_inputs,
    default_belief_path,
    heuristic_probabilities,
    load_belief,
    save_belief,
    uniform_probabilities,
)
from agents.search.search import SearchAgent
from hollywood_env import core
from hollywood_env.cards import NUM_CARDS, masks_to_bools
from hollywood_env.determinize import InfoSet, opponent_hand_size, sample_worlds, unseen_cards
from hollywood_env.history import GIVEN, HISTORY_SIZE, encode_history
from hollywood_env.observation import encode


def _positions(n=40, steps=30, seed=0, preset="hollywood"):
    state = core.init(n, preset, seed=seed)
    bot = SimpleBot(preset)
    for _ in range(steps):
        core.step(state, bot(encode(state), state.legal_action_mask))
    live = np.flatnonzero(~state.done)
    return state, live


def _tiny_belief(seed=0):
    torch.manual_seed(seed)
    return LearnedBelief(BeliefNet(hidden=16, layers=1))


@pytest.mark.parametrize("preset", ["hollywood", "gin-rummy-simple", "oklahoma"])
def test_hard_facts_hold_in_every_belief(preset):
    state, live = _positions(preset=preset, seed=1)
    obs, masks, hist = encode(state, games=live), state.legal_action_mask[live], encode_history(state, games=live)
    info = InfoSet.from_observation(obs, masks, preset)
    unseen = masks_to_bools(unseen_cards(info))
    held = masks_to_bools(info.opp_known)
    need = opponent_hand_size(info) - held.sum(axis=1)
    rng = np.random.default_rng(0)
    for p in (_tiny_belief().probabilities(info, obs, hist), uniform_probabilities(info),
              heuristic_probabilities(info, rng, worlds=8),
              apply_hard_facts(info, rng.normal(size=(len(info), NUM_CARDS)) * 3)):
        assert p.shape == (len(info), NUM_CARDS)
        assert (p[~unseen & ~held] == 0).all()
        assert (p[held] == 1).all()
        assert ((p >= 0) & (p <= 1)).all()
        np.testing.assert_allclose(np.where(unseen, p, 0).sum(axis=1), need, atol=1e-6)


def test_weighted_worlds_follow_the_weights():
    state, live = _positions(n=8, seed=2)
    info = InfoSet.from_state(state, live)
    unseen = masks_to_bools(unseen_cards(info))
    need = opponent_hand_size(info) - masks_to_bools(info.opp_known).sum(axis=1)
    rng = np.random.default_rng(3)
    weights = np.zeros((len(info), NUM_CARDS))
    favourite = np.full(len(info), -1)
    for i in range(len(info)):
        cards = np.flatnonzero(unseen[i])
        weights[i, cards[:need[i] + 3]] = 1.0  # only these can be dealt while enough remain
        favourite[i] = cards[0]
        weights[i, favourite[i]] = 1e9
    worlds = sample_worlds(info, 50, rng, weights=weights)
    opp = 1 - worlds.current_player.astype(np.int64)
    hands = masks_to_bools(worlds.hands[np.arange(worlds.batch_size), opp]).reshape(len(info), 50, NUM_CARDS)
    for i in range(len(info)):
        assert hands[i, :, favourite[i]].all()
        assert not (hands[i][:, (weights[i] == 0) & unseen[i]]).any()


def test_the_belief_never_reads_hidden_cards(reshuffle_hidden):
    """Same observation and history, any hidden cards: the same probabilities and search moves."""
    rng = np.random.default_rng(4)
    state, live = _positions(n=24, seed=5)
    other = reshuffle_hidden(state, live, rng)
    assert not np.array_equal(other.hands, state.hands[live])
    a_obs, a_hist = encode(state, games=live), encode_history(state, games=live)
    b_obs, b_hist = encode(other), encode_history(other)
    np.testing.assert_array_equal(a_hist, b_hist)
    belief = _tiny_belief(1)
    pa = belief.probabilities(InfoSet.from_observation(a_obs, state.legal_action_mask[live], "hollywood"), a_obs, a_hist)
    pb = belief.probabilities(InfoSet.from_observation(b_obs, other.legal_action_mask, "hollywood"), b_obs, b_hist)
    np.testing.assert_array_equal(pa, pb)


def test_the_search_with_a_learned_belief_never_uses_hidden_information(tmp_path, reshuffle_hidden):
    path = tmp_path / "belief.pt"
    save_belief(path, _tiny_belief(2).net, {"note": "test"})
    state, live = _positions(n=24, seed=6)
    other = reshuffle_hidden(state, live, np.random.default_rng(0))
    knobs = dict(worlds=4, moves="all", belief="learned", belief_file=str(path))
    a = SearchAgent("hollywood", seed=3, **knobs)(encode(state, games=live), state.legal_action_mask[live],
                                                  history=encode_history(state, games=live))
    b = SearchAgent("hollywood", seed=3, **knobs)(encode(other), other.legal_action_mask, history=encode_history(other))
    np.testing.assert_array_equal(a, b)


def test_inputs_without_a_history_carry_the_flag():
    state, live = _positions(n=6, seed=7)
    obs = encode(state, games=live)
    x = belief_inputs(obs, None, state.rules)
    y = belief_inputs(obs, encode_history(state, games=live), state.rules)
    start = INPUT_SIZE - HISTORY_SIZE
    assert x.shape == y.shape == (live.size, INPUT_SIZE)
    assert (x[:, start:] == 0).all() and (y[:, start + GIVEN] == 1).all()
    np.testing.assert_array_equal(x[:, :start], y[:, :start])
    with pytest.raises(ValueError, match="history must have shape"):
        belief_inputs(obs, np.zeros((live.size, 3)), state.rules)


def test_model_file_round_trip_and_bad_files(tmp_path):
    belief = _tiny_belief(3)
    path = tmp_path / "b.pt"
    save_belief(path, belief.net, {"topk_all": 0.5})
    net, meta = load_belief(path)
    assert meta == {"topk_all": 0.5}
    x = torch.randn(5, INPUT_SIZE)
    torch.testing.assert_close(net(x), belief.net(x))
    with pytest.raises(CheckpointError, match="not found"):
        load_belief(tmp_path / "missing.pt")
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(CheckpointError, match="empty"):
        load_belief(tmp_path / "empty.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a torch file")
    with pytest.raises(CheckpointError, match="not a valid belief model"):
        load_belief(tmp_path / "junk.pt")
    buf = io.BytesIO()
    torch.save({"format": "hollywood-belief", "obj": pickle.loads(pickle.dumps(SimpleBot))}, buf)
    (tmp_path / "code.pt").write_bytes(buf.getvalue())
    with pytest.raises(CheckpointError, match="never loaded"):
        load_belief(tmp_path / "code.pt")
    torch.save({"format": "other"}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a 'hollywood-belief' file"):
        load_belief(tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not found"):
        SearchAgent("hollywood", belief="learned", belief_file=str(tmp_path / "missing.pt"))


def test_the_shipped_belief_model_loads_and_is_small():
    path = default_belief_path()
    if not path.is_file():
        pytest.skip("no shipped belief model in this tree")
    assert path.stat().st_size < 5_000_000
    net, meta = load_belief(path)
    assert meta["topk_all"] > 0.3
    assert SearchAgent("hollywood").config.belief == "learned"


def test_the_training_pipeline_end_to_end_on_a_few_bot_games(monkeypatch):
    """Collect (two small bot pairings, both presets), train three epochs, measure: the learned
    belief beats the uniform one on held-out games, and the report has every belief's metrics."""
    from experiments.training import belief_train as bt

    monkeypatch.setattr(bt, "PAIRINGS", (("simple", "hollywood", "hollywood", 24, 0.5),
                                         ("simple", "simple", "gin-rummy-simple", 64, 0.5)))
    data = bt.collect(seed=3, log=lambda *a: None)
    assert len(data) > 1000 and data.held_out.any() and (~data.held_out).any()
    assert (data.label <= data.unseen).all()  # labels are unseen cards only
    torch.set_num_threads(1)
    net = bt.train_net(data, hidden=16, layers=2, epochs=3, batch=64, seed=0, log=lambda *a: None)
    report = bt.evaluate_beliefs(data, LearnedBelief(net), seed=1, heuristic_worlds=4, per_opponent=300)
    assert set(report["all"]) == {"learned", "learned (no history)", "heuristic", "uniform"}
    assert report["all"]["learned"]["nll"] < report["all"]["uniform"]["nll"]
    assert 0 < report["all"]["learned"]["topk"] < 1
    assert "| all |" in bt.format_report(report)
    # by stage of the hand: every measured decision in exactly one stage, the same beliefs
    stages = report[bt.BY_STAGE]
    assert set(stages) <= {name for name, _, _ in bt.STAGES} and "0" in stages
    assert sum(s["uniform"]["decisions"] for s in stages.values()) == report["all"]["uniform"]["decisions"]
    assert all(set(s) == set(report["all"]) for s in stages.values())
    assert "| opponent's discards |" in bt.format_report(report)


def test_cli_errors_are_one_line(tmp_path, capsys):
    from experiments.training.belief_train import main

    assert main(["evaluate", str(tmp_path / "missing.pt")]) == 2
    assert "belief model not found" in capsys.readouterr().err
    assert main(["train", "--scale", "0"]) == 2
    assert "--scale must be positive" in capsys.readouterr().err
    assert main(["train", "--epochs", "0"]) == 2
    assert "--epochs must be positive" in capsys.readouterr().err
    assert main([]) == 2
    from agents.registry import AgentSpecError, make_agent
    with pytest.raises(AgentSpecError, match="belief model not found"):
        make_agent(f"search:belief=learned,belief_file={tmp_path / 'missing.pt'}", "hollywood")
