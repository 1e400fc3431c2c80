"""Stopping a training run cleanly on Ctrl-C (SIGINT) or a scheduler's SIGTERM.

Inside ``with StopSignals() as stop:`` the first SIGINT or SIGTERM only sets ``stop.signum``; the
trainer finishes the update it is in, writes ``latest.pt`` with that update and raises
:class:`TrainingStopped`. A second signal raises ``KeyboardInterrupt`` at once: the run ends
where it is, and ``latest.pt`` (written atomically) still holds the last checkpointed update.
Either way ``hollywood train --resume`` continues exactly (the metrics of updates after the
checkpoint are trimmed from ``metrics.jsonl`` and TensorBoard on resume).

Outside the main thread signal handlers cannot be installed; there the context does nothing
and Ctrl-C behaves as usual.
"""

from __future__ import annotations

import logging
import signal
import threading

log = logging.getLogger(__name__)


class TrainingStopped(KeyboardInterrupt):
    """The run stopped at an update boundary after a signal; ``latest.pt`` holds ``update``."""

    def __init__(self, signum: int, update: int, checkpoint):
        super().__init__(f"stopped by {signal.Signals(signum).name} after update {update}")
        self.signum, self.update, self.checkpoint = signum, update, checkpoint


class StopSignals:
    """Turns the first SIGINT/SIGTERM into a request to stop after the current update."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.signum: int | None = None
        self._previous: dict = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def _handle(self, signum, frame) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt(f"second {signal.Signals(signum).name}: stopping at once")
        self.signum = signum
        log.warning("%s: finishing this update, then writing latest.pt and stopping (send it again to stop "
                    "at once)", signal.Signals(signum).name)

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for s in self.SIGNALS:
                self._previous[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for s, h in self._previous.items():
            signal.signal(s, h)
        self._previous.clear()


class RunGuard:
    """The end of every update of a trainer: checkpoints on the cadence, stopping on signals, and
    the ``--resume`` message when the run ends early.

    ``with RunGuard(...) as guard:`` installs :class:`StopSignals`; after logging update ``u``
    call ``guard.end_update(u)`` (writes ``latest`` every ``every`` updates and at the last) and,
    after any per-update hooks, ``guard.stop_if_requested(u)`` (after a signal: makes sure
    ``latest`` holds ``u``, then raises :class:`TrainingStopped`). ``checkpoint(u)`` builds the
    dict to save; ``save(path, ckpt)`` writes it. Leaving the block on any other exception logs
    which update ``latest`` holds and how to resume.
    """

    def __init__(self, latest, every: int, num_updates: int, saved_update: int, checkpoint, save, run_dir):
        self.latest, self.every, self.num_updates = latest, int(every), int(num_updates)
        self.saved_update = int(saved_update)  # the update `latest` holds
        self.checkpoint, self.save, self.run_dir = checkpoint, save, run_dir
        self.signals = StopSignals()

    def __enter__(self) -> RunGuard:
        self.signals.__enter__()
        return self

    def _save(self, update: int) -> None:
        self.save(self.latest, self.checkpoint(update))
        self.saved_update = update

    def end_update(self, update: int) -> None:
        if update % self.every == 0 or update == self.num_updates:
            self._save(update)

    def stop_if_requested(self, update: int) -> None:
        if self.signals.requested and update < self.num_updates:
            if self.saved_update != update:
                self._save(update)
            raise TrainingStopped(self.signals.signum, update, self.latest)

    def __exit__(self, exc_type, exc, tb) -> None:
        self.signals.__exit__(exc_type, exc, tb)
        if exc is not None and not isinstance(exc, TrainingStopped):
            why = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"stopped by {exc_type.__name__}"
            log.warning("%s: %s holds update %d of %d; continue with `hollywood train --resume %s`",
                        why, self.latest, self.saved_update, self.num_updates, self.run_dir)
