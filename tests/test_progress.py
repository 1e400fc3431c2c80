"""Progress bars: counted in how far the games are (not in finished games, which all end
together in a batch), and tqdm's notebook widget only where ipywidgets can draw it."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from agents.bots import SimpleBot
from agents.matches import game_progress, play_pairing
from hollywood_env import core
from hollywood_env.observation import encode
from hollywood_env.rules import Rules


@pytest.mark.parametrize("per_hand", [False, True])
def test_game_progress_rises_steadily_to_one(per_hand):
    rules = Rules.preset("gin-rummy")
    state = core.init(32, rules, seed=0, max_steps=None)
    bot = SimpleBot(rules)
    stopped = np.zeros(32, dtype=bool)
    before = game_progress(state, stopped, per_hand)
    assert (before == 0).all()
    seen = [before.mean()]
    for _ in range(20000):
        live = ~(state.terminated | state.truncated | stopped)
        if not live.any():
            break
        core.step(state, bot(encode(state), state.legal_action_mask), games=np.flatnonzero(live))
        if per_hand:
            stopped |= state.hand_ended
        now = game_progress(state, stopped, per_hand)
        assert ((now >= before - 1e-12) & (now <= 1)).all()  # never goes back
        before = now
        seen.append(now.mean())
    assert before.min() == 1.0
    seen = np.array(seen)
    # not a step at the end: a quarter of the way through the steps, a good part is counted
    assert seen[len(seen) // 4] > 0.1 and seen[len(seen) // 2] < 1.0


def test_play_pairing_reports_all_games():
    class Bar:
        n = 0.0

        def update(self, k):
            assert k > 0
            self.n += k

    bar = Bar()
    r = play_pairing("simple", "random", "gin-rummy", 16, 0, progress=bar)
    assert r.n_games == 32 and bar.n == pytest.approx(32)


def test_progress_bar_without_ipywidgets_is_the_text_bar(monkeypatch):
    import tqdm
    import tqdm.auto

    from experiments.progress import progress_bar

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import ipywidgets raises ImportError
    bar = progress_bar(total=3, disable=True)
    assert type(bar) is tqdm.tqdm
    bar.close()
    monkeypatch.setitem(sys.modules, "ipywidgets", type(sys)("ipywidgets"))
    bar = progress_bar(total=3, disable=True)
    assert type(bar) is tqdm.auto.tqdm
    bar.close()
