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


def test_whole_counts_moves_the_bar_in_whole_matches_only():
    from experiments.progress import WholeCounts

    class Bar:
        n, closed, steps = 0, False, []

        def update(self, k):
            assert isinstance(k, int) and k > 0
            self.steps.append(k)
            self.n += k

        def close(self):
            self.closed = True

    bar = Bar()
    counts = WholeCounts(bar)
    # what play_pairing tells a bar: fractions of games that add up to each batch's games, with
    # float rounding (0.1 * 10 != 1 exactly); 4000 matches in batches of 400
    for _ in range(10):
        told = 0.0
        for _ in range(37):
            counts.update(0.1 * 10)
            told += 1.0
        for _ in range(900):
            counts.update(0.3)
            told += 0.3
        counts.update(400 - told)
        assert bar.n == round(counts.done)
    assert bar.n == 4000 and sum(bar.steps) == 4000
    counts.close()
    assert bar.closed


def test_whole_counts_shows_whole_numbers_on_a_tqdm_bar():
    import io
    import re

    from tqdm import tqdm

    from experiments.progress import WholeCounts

    out = io.StringIO()
    counts = WholeCounts(tqdm(total=40, file=out, mininterval=0, ascii=True))
    play_pairing("simple", "random", "gin-rummy", 20, 0, progress=counts)
    counts.close()
    shown = re.findall(r"\| *([0-9.]+)/40 ", out.getvalue())  # each refresh's count
    assert len(shown) > 2 and shown[-1] == "40" and all(c.isdigit() for c in shown), shown
