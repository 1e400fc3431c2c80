"""examples/proc/eaai/EaaiProcAdapter.java: a player written for the EAAI Gin Rummy framework
(``ginrummy.GinRummyPlayer``) played as a ``proc:`` agent. The framework is not part of the
project: the tests compile the adapter against a stand-in with the interface's signatures
(tests/agents/eaai_stub/ginrummy/) and play a small player of our own (StubPlayer.java) that
tracks its hand and the discard pile only from the callbacks and throws when they do not add up."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agents.interop.proc_agent import ProcAgentError
from agents.matches import play_pairing
from agents.registry import make_agent

ROOT = Path(__file__).resolve().parents[2]
STUB = ROOT / "tests" / "agents" / "eaai_stub"
ADAPTER = ROOT / "examples" / "proc" / "eaai" / "EaaiProcAdapter.java"
JAVA, JAVAC = shutil.which("java"), shutil.which("javac")

pytestmark = pytest.mark.skipif(JAVA is None or JAVAC is None, reason="a JDK (java and javac) is not on PATH")


@pytest.fixture(scope="module")
def classes(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("eaai_classes")
    sources = [*sorted((STUB / "ginrummy").glob("*.java")), STUB / "StubPlayer.java", ADAPTER]
    done = subprocess.run([JAVAC, "-Xlint:all", "-Werror", "-d", str(out), *map(str, sources)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def spec(classes: Path, player: str) -> str:
    return f"proc:timeout=60 {JAVA} -cp {classes} EaaiProcAdapter {player}"


def test_card_names_map_to_the_framework_numbering(classes):
    """Protocol ``Td`` is the framework's ``TD``: rank 0-12 (A..K), suits C H S D numbered 0-3."""
    out = subprocess.run([JAVA, "-cp", str(classes), "EaaiProcAdapter", "--cards"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines()]
    assert len(rows) == 52 and all(len(r) == 4 for r in rows), out.stdout
    for name, framework, rank, suit in rows:
        assert framework == name.upper()
        assert int(rank) == "A23456789TJQK".index(name[0]) and int(suit) == "chsd".index(name[1])


def test_stub_player_plays_eaai_games_against_simple(classes):
    """20 games to 100 (two batches, so game indices are reused by new matches); the stub throws
    at any inconsistent callback, so finishing means the replay kept its hand and the pile right."""
    result = play_pairing(spec(classes, "StubPlayer"), "simple", "eaai", n_pairs=10, seed=1, batch_pairs=5)
    assert result.terminated.all() and not result.truncated.any()
    assert (result.match_winner >= 0).all() and result.a_decisions > 500
    assert result.a_knocks.sum() + result.a_gins.sum() > 0  # its melds were accepted as knocks
    assert result.a_hands.sum() > 0


def test_stub_player_plays_single_hands_under_other_rules(classes):
    """Oklahoma: the knock limit changes with the upcard; a knock above it is played as a discard."""
    result = play_pairing(spec(classes, "StubPlayer"), "simple", "oklahoma", n_pairs=6, seed=2, per_hand=True)
    assert result.terminated.all() and result.hands.sum() == 12


@pytest.mark.parametrize("player, expect", [
    ("StubPlayer$BadDiscard", r"StubPlayer\$BadDiscard\.getDiscard\(\) returned \w\w, a card it does not hold"),
    ("StubPlayer$BadMelds", r"StubPlayer\$BadMelds\.getFinalMelds\(\) returned a meld .* that is not a set or a run"),
])
def test_nonsense_answers_give_a_one_line_error(classes, player, expect):
    with pytest.raises(ProcAgentError, match=expect) as err:
        play_pairing(spec(classes, player), "simple", "eaai", n_pairs=2, seed=1)
    text = str(err.value)
    assert "\n" not in text and "the program exited (code 1)" in text and "game " in text


def test_a_class_that_cannot_be_played_is_named(classes):
    with pytest.raises(ProcAgentError, match="cannot load the player class NoSuchPlayer"):
        make_agent(spec(classes, "NoSuchPlayer"), "eaai")
    with pytest.raises(ProcAgentError, match="java.lang.String does not implement ginrummy.GinRummyPlayer"):
        make_agent(spec(classes, "java.lang.String"), "eaai")
