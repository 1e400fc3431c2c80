"""Game logs of ``hollywood play`` and the commands that read them: ``hollywood replay LOG``,
``hollywood play-results DIR``, the play_through notebook's ``MatchRecord``; and the one-line
errors of ``hollywood play``, ``replay`` and ``play-results``. No web server needed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.registry import make_agent
from experiments.analysis.playthrough import hand_markdown
from experiments.cli import main
from experiments.evaluation.stats import t_interval, wilson
from experiments.play.game import PlayMatch, move_of
from experiments.play.gamelog import format_results, human_results, load_log, match_record
from experiments.play.store import MatchStore, read_logs
from hollywood_env import core
from hollywood_env.rules import Rules


def play_out(match: PlayMatch, rng, stop_after: int | None = None) -> PlayMatch:
    """The person plays uniformly random legal moves until the match ends (or ``stop_after``)."""
    n = 0
    while match.status in ("playing", "hand_over") and (stop_after is None or n < stop_after):
        if match.status == "hand_over":
            match.next_hand(match.version)
        else:
            legal = np.flatnonzero(match.state.legal_action_mask[0])
            match.move(move_of(int(rng.choice(legal))), match.version)
        n += 1
    return match


@pytest.fixture(scope="module")
def logs_dir(tmp_path_factory):
    """Four matches against two opponents on disk: three finished, one abandoned."""
    store = MatchStore(tmp_path_factory.mktemp("play"))
    rules = Rules.preset("gin-rummy-simple").replace(target=50)
    for i, opp in enumerate(["simple", "random", "random"]):
        m = PlayMatch(rules, 10 + i, opp, make_agent(opp, rules), f"m{i}", created=f"2026-01-0{i + 1}T00:00:00")
        store.save(play_out(m, np.random.default_rng(i)))
    m = PlayMatch(rules, 99, "random", make_agent("random", rules), "m9", created="2026-01-09T00:00:00")
    play_out(m, np.random.default_rng(9), stop_after=5)
    m.status_override = "abandoned"
    store.save(m)
    return store.logs_dir


def test_log_holds_rules_seed_actions_and_every_hand_and_replays_exactly(logs_dir):
    log, match = load_log(logs_dir / "m1.json")
    assert log["status"] == "finished" and log["seed"] == 11 and log["opponent"] == "random"
    assert Rules.from_dict(log["rules"]) == Rules.preset("gin-rummy-simple").replace(target=50)
    # the actions alone replay to the same hands in a fresh core
    st = core.init(1, Rules.from_dict(log["rules"]), seed=log["seed"])
    ends = []
    for seat, a in log["actions"]:
        assert int(st.current_player[0]) == seat
        core.step(st, np.array([a]))
        if st.hand_ended[0]:
            ends.append((int(st.hand_winner[0]), int(st.hand_points[0])))
    assert bool(st.terminated[0])
    assert [(h["winner"] if h["winner"] is not None else -1, h["points"]) for h in log["hands"]] == ends
    for h in log["hands"]:
        assert len(h["dealt"][0]) == len(h["dealt"][1]) == 10 and h["moves"] and h["explanation"]
        drawn = [m for m in h["moves"] if m["name"] == "draw stock"]
        assert all("drawn" in m for m in drawn)
    assert log["result"]["margin"] == log["result"]["totals"][0] - log["result"]["totals"][1]


def test_a_tampered_log_is_refused_with_its_name(logs_dir, tmp_path):
    log = json.loads((logs_dir / "m1.json").read_text())
    log["actions"][0][1] = 107  # big gin: never legal at a hand's first decision
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(log))
    with pytest.raises(ValueError, match=r"tampered.json: action 0 of the log \(\[\d, 107\]\) is not legal"):
        load_log(bad)
    log = json.loads((logs_dir / "m1.json").read_text())
    log["hands"][0]["points"] += 1
    bad.write_text(json.dumps(log))
    with pytest.raises(ValueError, match="disagree with a replay"):
        load_log(bad)


def test_replay_command_prints_hand_by_hand(logs_dir, capsys):
    log, match = load_log(logs_dir / "m0.json")
    assert main(["replay", str(logs_dir / "m0.json")]) == 0
    out = capsys.readouterr().out
    for h in log["hands"]:
        assert f"Hand {h['number']}: dealer" in out and h["explanation"] in out
    assert "Match over:" in out and "draw stock (" in out
    assert main(["replay", str(logs_dir / "m0.json"), "--hand", "1", "--no-moves"]) == 0
    one = capsys.readouterr().out
    assert "Hand 1:" in one and "Hand 2:" not in one and "draw stock" not in one
    assert main(["replay", str(logs_dir / "m9.json")]) == 0
    assert "Unfinished (abandoned)" in capsys.readouterr().out


def test_results_per_opponent_with_intervals(logs_dir, capsys):
    logs = read_logs(logs_dir)
    res = {g["opponent"]: g for g in human_results(logs)}
    assert set(res) == {"simple", "random"}
    rnd = res["random"]
    finished = [g for g in logs if g["opponent"] == "random" and g["status"] == "finished"]
    won = sum(g["result"]["winner"] == "human" for g in finished)
    drawn = sum(g["result"]["winner"] == "draw" for g in finished)
    assert (rnd["finished"], rnd["won"], rnd["abandoned"]) == (2, won, 1)
    assert rnd["win_rate"] == wilson(won + 0.5 * drawn, 2).to_dict()
    assert rnd["margin"] == t_interval([g["result"]["margin"] for g in finished]).to_dict()
    table = format_results(human_results(logs))
    assert "| random | custom | 2 |" in table and "Wilson" in table  # target 50: no preset
    assert main(["play-results", str(logs_dir)]) == 0
    assert "| simple |" in capsys.readouterr().out
    assert main(["play-results", str(logs_dir), "--json"]) == 0
    assert {g["opponent"] for g in json.loads(capsys.readouterr().out)} == {"simple", "random"}


def test_streaks_and_best_margin():
    def log(winner, margin, t):
        return {"opponent": "x", "preset": "p", "status": "finished", "created": t,
                "result": {"winner": winner, "margin": margin, "hands": 3, "hands_won": [2, 1]}}
    logs = [log("human", 30, "1"), log("human", 80, "2"), log("agent", -5, "3"), log("human", 10, "4")]
    (g,) = human_results(logs)
    assert (g["won"], g["lost"], g["best_streak"], g["current_streak"], g["best_margin"]) == (3, 1, 2, 1, 80)
    assert g["hand_win_rate"]["value"] == pytest.approx(8 / 12)


def test_match_record_feeds_the_play_through_views(logs_dir):
    log, match = load_log(logs_dir / "m0.json")
    rec = match_record(log, match)
    assert len(rec) == len(log["hands"]) and rec.names == ("You", "simple")
    st = match.state.sheet  # the last hand's sheet is the final scoresheet
    np.testing.assert_array_equal(rec[-1].sheet.opened, st.opened[0])
    np.testing.assert_array_equal(rec[-1].sheet.hands_scored, st.hands_scored[0])
    np.testing.assert_array_equal(rec[-1].sheet.totals, st.totals(np.array([0]))[0])
    text = hand_markdown(rec[0], rec.names)
    assert "Hand 1" in text or "hand 1" in text.lower()


@pytest.mark.parametrize("argv,words", [
    (["replay", "/nonexistent/x.json"], "cannot read it"),
    (["play-results", "/nonexistent-folder"], "not a folder"),
    (["play", "--rules", "hollywod", "--no-browser"], "unknown rules preset 'hollywod'"),
    (["play", "--opponent", "nobody", "--no-browser"], "--opponent: unknown agent 'nobody'"),
    (["play", "--port", "70000", "--no-browser"], "--port must be in 0..65535"),
])
def test_command_mistakes_are_one_line_exit_2(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err and err.startswith(f"hollywood {argv[0]}: error:")


def test_replay_of_a_file_that_is_not_a_log(tmp_path, capsys):
    p = tmp_path / "x.json"
    p.write_text('{"hello": 1}')
    assert main(["replay", str(p)]) == 2
    assert "not a hollywood-play-log file" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["play-results", str(empty)]) == 2
    assert "no game log" in capsys.readouterr().err


def test_play_refuses_a_port_in_use_and_a_file_as_data_dir(tmp_path, capsys):
    import socket

    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    port = s.getsockname()[1]
    try:
        assert main(["play", "--port", str(port), "--no-browser", "--data-dir", str(tmp_path / "d")]) == 2
        assert "cannot listen on 127.0.0.1" in capsys.readouterr().err
    finally:
        s.close()
    f = tmp_path / "file"
    f.write_text("")
    assert main(["play", "--no-browser", "--data-dir", str(f / "sub")]) == 2
    assert "is not a folder" in capsys.readouterr().err
