"""Progress bars: tqdm's notebook bar where it can be drawn, the plain text bar elsewhere.

``tqdm.auto`` picks the notebook widget inside Jupyter, which needs ``ipywidgets``; without it
tqdm warns ("IProgress not found") and prints a broken bar. :func:`progress_bar` uses the widget
only when ``ipywidgets`` is installed, and tqdm's text bar otherwise (which notebooks show fine).
"""

from __future__ import annotations


def progress_bar(*args, **kwargs):
    """A ``tqdm`` bar (same arguments): the notebook widget if ``ipywidgets`` is importable."""
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        from tqdm import tqdm
    else:
        from tqdm.auto import tqdm
    return tqdm(*args, **kwargs)


class WholeCounts:
    """A bar (``update(n)``, ``close()``) that is told of progress in fractions (the match
    players report how far each game is: :func:`agents.matches.game_progress`) and moves in whole
    units only: it shows ``n/total`` matches, never ``3999.99/4000``. Pass it where a ``progress``
    object is taken."""

    def __init__(self, bar):
        self.bar = bar
        self.done = 0.0  # the fractional count told so far
        self.shown = 0  # the whole units the bar has been moved

    def update(self, n: float) -> None:
        self.done += n
        whole = int(self.done + 1e-6)  # the games' fractions add up to whole games up to rounding
        if whole > self.shown:
            self.bar.update(whole - self.shown)
            self.shown = whole

    def close(self) -> None:
        self.bar.close()
