"""``proc:COMMAND`` agents (agents/interop/proc_agent.py): the example clients play legal matches,
the messages hold nothing hidden, and a crashing, slow or nonsense client gives a one-line error
naming the game and the decision."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from agents.interop.proc_agent import ACTION_NAMES, ProcAgent, ProcAgentError, decision_messages
from agents.matches import play_pairing
from agents.registry import AgentSpecError, call_policy, make_agent, registered_prefixes
from hollywood_env import core
from hollywood_env.observation import encode
from hollywood_env.rules import Rules
from hollywood_env.sampling import random_legal_actions

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
CLIENT = ROOT / "examples" / "proc" / "random_client.py"
JAVA_CLIENT = ROOT / "examples" / "proc" / "RandomClient.java"

#: a configurable bad client: hello, then MODE after AFTER good act answers
BAD_CLIENT = textwrap.dedent("""
    import json, sys, time
    mode, after = sys.argv[1], int(sys.argv[2])
    log = open(sys.argv[3], "a") if len(sys.argv) > 3 else None
    acts = 0
    for line in sys.stdin:
        if log:
            log.write(line); log.flush()
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "hello", "name": "bad", "version": 2 if mode == "version" else 1}), flush=True)
            continue
        if msg["type"] == "bye":
            break
        acts += 1
        legal = [d["legal"][0] for d in msg["decisions"]]
        if acts > after:
            if mode == "crash":
                print("boom: the client fell over", file=sys.stderr, flush=True)
                sys.exit(3)
            if mode == "slow":
                time.sleep(30)
            if mode == "notjson":
                print("this is not json", flush=True); continue
            if mode == "count":
                legal = legal + ["pass"]
            if mode == "unknown":
                legal[-1] = "fold"
            if mode == "illegal":
                legal[-1] = next(a for a in ALL if a not in msg["decisions"][-1]["legal"])
        print(json.dumps({"type": "act", "actions": legal}), flush=True)
""")


@pytest.fixture
def bad_client(tmp_path):
    path = tmp_path / "bad_client.py"
    path.write_text(f"ALL = {list(ACTION_NAMES)!r}\n" + BAD_CLIENT)
    return path


def test_proc_is_a_registered_prefix():
    assert "proc" in registered_prefixes()


def test_python_client_plays_a_legal_match_against_simple():
    rules = Rules.preset("eaai")
    result = play_pairing(f"proc:{PY} {CLIENT}", "simple", rules, n_pairs=2, seed=3)
    assert result.terminated.all() and not result.truncated.any()
    assert result.a_decisions > 50 and (result.match_winner >= 0).all()  # act() checked every move's legality


def test_random_mode_plays_too():
    agent = make_agent(f"proc:{PY} {CLIENT} --random", "gin-rummy-simple", seed=1)
    try:
        result = play_pairing(agent, "random", "gin-rummy-simple", n_pairs=2, seed=1, per_hand=True)
    finally:
        agent.close()
    assert result.terminated.all()


def test_cli_evaluate_runs_a_proc_agent():
    out = subprocess.run([str(Path(PY).parent / "hollywood"), "evaluate", f"proc:{PY} {CLIENT}", "simple",
                          "--games", "4", "--rules", "eaai"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "4 games to 100" in out.stdout


def _positions(rules: Rules, seed: int, steps: int, n: int = 6):
    state = core.init(n, rules, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        live = np.flatnonzero(~(state.terminated | state.truncated))
        core.step(state, random_legal_actions(state.legal_action_mask[live], rng), games=live)
    return state


@pytest.mark.parametrize("rules", [Rules.preset("hollywood"), Rules.preset("oklahoma")], ids=["hollywood", "oklahoma"])
def test_messages_do_not_depend_on_hidden_cards(rules, bad_client, tmp_path, reshuffle_hidden):
    """Two states that differ only in the opponent's unseen cards and the stock order give the
    program byte-identical messages (captured by a client that logs its input)."""
    rng = np.random.default_rng(0)
    changed = 0
    for steps in (0, 1, 7, 23, 41):
        state = _positions(rules, 11 + steps, steps)
        games = np.flatnonzero(~(state.terminated | state.truncated))
        same, other = core.take(state, games), reshuffle_hidden(state, games, rng)
        assert (other.legal_action_mask == same.legal_action_mask).all()
        changed += int((other.hands != same.hands).any() or (other.deck != same.deck).any())
        lines = []
        for k, s in enumerate((same, other)):
            log = tmp_path / f"log_{steps}_{k}.jsonl"
            with ProcAgent([PY, str(bad_client), "ok", "0", str(log)], rules=rules, seed=5) as agent:
                rows = np.arange(s.batch_size)
                call_policy(agent, encode(s, games=rows), s.legal_action_mask[rows], s, games=rows)
            lines.append(log.read_text().splitlines())
        assert len(lines[0]) == 3 and lines[0][2] == '{"type": "bye"}'
        assert lines[0][1].encode() == lines[1][1].encode(), f"the act message depends on a hidden card ({steps})"
        assert json.loads(lines[0][1])["decisions"][0]["hand"]
    assert changed >= 3  # the swaps did change hidden cards


def test_messages_say_what_the_seat_sees():
    rules = Rules.preset("hollywood")
    state = _positions(rules, 2, 9, n=2)
    rows = np.arange(2)
    from agents.registry import policy_context

    msgs = decision_messages(encode(state, games=rows), state.legal_action_mask, rules, policy_context(state, rows))
    from hollywood_env.cards import format_card, mask_to_cards, sort_cards

    for g, m in enumerate(msgs):
        me = int(state.current_player[g])
        assert m["game"] == g and m["seat"] == me
        assert m["hand"] == [format_card(c) for c in sort_cards(mask_to_cards(int(state.hands[g, me])))]
        assert m["pile"] == [format_card(c) for c in state.pile[g, :state.pile_size[g]]]
        assert m["stock"] == 52 - int(state.stock_pos[g])
        assert m["dealer"] == ("you" if int(state.dealer[g]) == me else "opponent")
        assert len(m["history"]) == int(state.log_size[g])
        assert set(m["legal"]) == {ACTION_NAMES[a] for a in np.flatnonzero(state.legal_action_mask[g])}
        assert m["scoresheet"]["points"]["you"] == state.sheet.columns[g, me].tolist()


def _one_line(err: pytest.ExceptionInfo) -> str:
    text = str(err.value)
    assert "\n" not in text and isinstance(err.value, AgentSpecError) and isinstance(err.value, ValueError)
    return text


@pytest.mark.parametrize("mode, expect", [
    ("crash", r"exited \(code 3\)"),
    ("notjson", "not JSON: received 'this is not json'"),
    ("count", "answered with"),
    ("unknown", "answered 'fold', an unknown action"),
    ("illegal", "an illegal action"),
])
def test_bad_clients_give_a_one_line_error_and_keep_the_finished_games(mode, expect, bad_client):
    with pytest.raises(ProcAgentError, match=expect) as err:
        play_pairing(f"proc:{PY} {bad_client} {mode} 8", "simple", "gin-rummy-simple", n_pairs=3, seed=2,
                     per_hand=True)
    text = _one_line(err)
    assert ("of games " in text or "game " in text) and "decision" in text, text
    partial = err.value.partial_result
    done = int((partial.terminated | partial.truncated).sum())
    assert f"{done} of 6 games had finished" in text
    assert partial.n_games == 6 and partial.decisions > 0
    if mode == "crash":
        assert "boom: the client fell over" in text


def test_finished_games_are_kept(bad_client):
    """Games that end before the failure keep their results (hands, winners) in partial_result."""
    with pytest.raises(ProcAgentError) as err:
        play_pairing(f"proc:{PY} {bad_client} crash 12", "simple", "gin-rummy-simple", n_pairs=3, seed=2,
                     per_hand=True)
    partial = err.value.partial_result
    done = partial.terminated | partial.truncated
    assert 0 < done.sum() < partial.n_games, done
    assert (partial.hands[done] == 1).all() and (partial.hands[~done] == 0).all()


def test_slow_client_times_out(bad_client):
    with pytest.raises(ProcAgentError, match=r"no answer within 0.5 s") as err:
        play_pairing(f"proc:timeout=0.5 {PY} {bad_client} slow 0", "simple", "gin-rummy-simple", n_pairs=1, seed=0)
    assert "request 1 (decisions 0..0, of games " in _one_line(err)


def test_timeout_from_the_environment(bad_client, monkeypatch):
    monkeypatch.setenv("HOLLYWOOD_PROC_TIMEOUT", "0.3")
    with pytest.raises(ProcAgentError, match=r"no answer within 0.3 s"):
        play_pairing(f"proc:{PY} {bad_client} slow 0", "simple", "gin-rummy-simple", n_pairs=1, seed=0)


@pytest.mark.parametrize("spec, expect", [
    ("proc:", "no command given"),
    ("proc:timeout=0 python x.py", "timeout= must be a positive number"),
    ("proc:/no/such/program --flag", "cannot start '/no/such/program'"),
    ("proc:'unclosed", "cannot split"),
])
def test_bad_specs(spec, expect):
    with pytest.raises(AgentSpecError, match=expect):
        make_agent(spec)


def test_bad_hello(bad_client):
    with pytest.raises(ProcAgentError, match="the hello was answered with"):
        make_agent(f"proc:{PY} {bad_client} version 0")


@pytest.mark.skipif(shutil.which("java") is None, reason="java is not on PATH")
def test_java_client_plays_a_few_games():
    java = shutil.which("java")
    result = play_pairing(f"proc:timeout=60 {java} {JAVA_CLIENT}", "simple", "eaai", n_pairs=1, seed=1)
    assert result.terminated.all() and result.a_decisions > 10
    result = play_pairing(f"proc:timeout=60 {java} {JAVA_CLIENT} --simple", "simple", "gin-rummy-simple",
                          n_pairs=2, seed=1, per_hand=True)
    assert result.terminated.all()
