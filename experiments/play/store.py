"""Where the played matches live: one JSON game log per match, written after every change.

``DATA_DIR/logs/<match id>.json`` (``DATA_DIR``: ``--data-dir``, else ``$HOLLYWOOD_PLAY_DIR``, else
``~/.hollywood/play``) is at once the game log of :mod:`experiments.play.gamelog` and how a match
survives closing the page or restarting the server: a log whose ``status`` is ``in_progress`` is
rebuilt by replaying its actions (:meth:`PlayMatch.from_log`). Writes are atomic (a temporary
file, fsynced, renamed over the old one), so a crash leaves the previous log whole. Starting a
new match marks the unfinished one ``abandoned`` (its log is kept and counted as abandoned).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from pathlib import Path

from .game import LOG_FORMAT, PlayMatch

ENV_DATA_DIR = "HOLLYWOOD_PLAY_DIR"


def default_data_dir() -> Path:
    """``$HOLLYWOOD_PLAY_DIR``, else ``~/.hollywood/play``."""
    env = os.environ.get(ENV_DATA_DIR)
    return Path(env).expanduser() if env else Path.home() / ".hollywood" / "play"


def write_json_atomic(path: Path, data) -> None:
    """Write ``data`` as JSON to ``path`` through a temporary file renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_logs(folder) -> list[dict]:
    """Every game log (``*.json`` with the log format) in ``folder``, oldest first (by creation
    time, then id). Other JSON files are skipped; an unreadable log raises ``ValueError`` naming it."""
    out = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            with open(path) as f:
                log = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"{path}: not a readable JSON game log ({e})") from None
        if isinstance(log, dict) and log.get("format") == LOG_FORMAT:
            log["_path"] = str(path)
            out.append(log)
    return sorted(out, key=lambda g: (str(g.get("created", "")), str(g.get("match_id", ""))))


class MatchStore:
    """The logs folder of a data dir, and the matches loaded from it (kept in memory)."""

    def __init__(self, data_dir):
        self.data_dir = Path(data_dir).expanduser()
        self.logs_dir = self.data_dir / "logs"
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        self._loaded: dict[str, PlayMatch] = {}

    def path(self, match_id: str) -> Path:
        return self.logs_dir / f"{match_id}.json"

    def new_id(self, seed: int) -> str:
        """``YYYYMMDD-HHMMSS-s<seed>`` (``-2``, ``-3``... if taken)."""
        base = f"{_dt.datetime.now():%Y%m%d-%H%M%S}-s{seed}"
        mid, k = base, 1
        while self.path(mid).exists() or mid in self._loaded:
            k += 1
            mid = f"{base}-{k}"
        return mid

    def save(self, match: PlayMatch) -> None:
        self._loaded[match.match_id] = match
        write_json_atomic(self.path(match.match_id), match.to_log())

    def get(self, match_id: str, policy_for) -> PlayMatch | None:
        """The match ``match_id`` (loaded from its log the first time), or None if there is no
        such match. ``policy_for(opponent_spec, rules)`` builds the agent of a loaded match."""
        if match_id in self._loaded:
            return self._loaded[match_id]
        if not isinstance(match_id, str) or not match_id or "/" in match_id or match_id.startswith("."):
            return None
        path = self.path(match_id)
        try:
            if not path.is_file():
                return None
        except (OSError, ValueError):  # a name the file system cannot hold (too long, a NUL): no such match
            return None
        with open(path) as f:
            log = json.load(f)
        from hollywood_env.rules import Rules

        policy = policy_for(log["opponent"], Rules.from_dict(log["rules"]))
        match = PlayMatch.from_log(log, policy)
        self._loaded[match_id] = match
        return match

    def latest_in_progress(self) -> str | None:
        """The id of the most recently created match still in progress, if any."""
        live = [g for g in read_logs(self.logs_dir) if g.get("status") == "in_progress"]
        return live[-1]["match_id"] if live else None

    def abandon_unfinished(self, policy_for, keep: str | None = None) -> list[str]:
        """Mark every in-progress match but ``keep`` abandoned (a new match was started)."""
        done = []
        for g in read_logs(self.logs_dir):
            if g.get("status") == "in_progress" and g["match_id"] != keep:
                m = self.get(g["match_id"], policy_for)
                if m is not None:
                    m.status_override = "abandoned"
                    self.save(m)
                    done.append(m.match_id)
        return done
