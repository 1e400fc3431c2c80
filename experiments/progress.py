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
