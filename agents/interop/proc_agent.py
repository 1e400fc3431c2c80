"""Agents in any language: ``proc:COMMAND`` runs a program and plays its answers.

``proc:COMMAND`` starts ``COMMAND`` (split with :func:`shlex.split`, run without a shell, in the
current directory) and talks to it in JSON lines on its stdin and stdout: one JSON object per
line, UTF-8, each way. Its stderr is passed through (the last lines are quoted when it fails).
Options may come first, as ``KEY=VALUE`` words: ``proc:timeout=5 java RandomClient.java``.

Options
    ``timeout=SECONDS``: the most a request may wait for its answer (default 30, or the
    environment variable ``HOLLYWOOD_PROC_TIMEOUT``); the hello gets the same time.

Protocol ``hollywood-proc``, version 1
--------------------------------------

1. hello, once, sent when the agent is made::

       {"type": "hello", "protocol": "hollywood-proc", "version": 1,
        "rules": {...every option of hollywood_env.rules.Rules...}, "seed": 123}

   answered with ``{"type": "hello", "name": "my-bot", "version": 1}`` (a version other than 1
   is an error). ``seed`` (an int, or null) is for the client's own randomness.

2. act, once per batch of decisions (the decisions of many games travel together, so a match
   stays batched)::

       {"type": "act", "decisions": [DECISION, ...]}

   answered with ``{"type": "act", "actions": ["discard Ac", ...]}``: one legal action name per
   decision, in the same order. A DECISION is what the seat to act may see, and nothing else::

       {"game": 3,                   # the game's index in the batch being played
        "seat": 1,                   # the seat to act (null when the caller did not say)
        "phase": "draw",             # "first_upcard", "draw" or "discard"
        "hand": ["Ac", "2c", ...],   # the seat's own cards (sorted by suit, then rank)
        "pile": ["7h", ..., "Ks"],   # the discard pile, bottom to top (the last is the top card)
        "stock": 21,                 # cards left in the stock
        "dealer": "you",             # who dealt this hand: "you" or "opponent"
        "knock_limit": 10,           # the most deadwood a knock may leave (0: gin only)
        "doubled": false,            # this hand's score is doubled (Oklahoma spade)
        "hand_number": 4,            # deals so far in this match
        "opponent_known": ["7h"],    # cards the opponent took from the pile and still holds
        "opponent_discarded": [...], # cards the opponent discarded this hand
        "own_discarded": [...],      # cards you discarded this hand
        "history": [                 # the public events of this hand, in order (null if unknown)
          {"player": "opponent", "event": "decline", "card": "9d"},
          {"player": "you", "event": "take", "card": "9d"},
          {"player": "you", "event": "discard", "card": "Ks"}, ...],
        "scoresheet": {              # per player, one entry per column (Hollywood: 3 columns)
          "target": 150,
          "points": {"you": [25, 0, 0], "opponent": [0, 0, 0]},
          "opened": {"you": [true, false, false], "opponent": [false, false, false]},
          "hands_won": {"you": [1, 0, 0], "opponent": [0, 0, 0]},
          "winner": [null, null, null]},  # per column: "you", "opponent" or null (still played)
        "legal": ["draw stock", "take discard"]}

   Events: ``take`` (took the top card of the pile), ``decline`` (passed the upcard or drew
   from the stock, so declined the top card of the pile, which is the card named; the card
   drawn from the stock is never shown), ``discard`` (a discard, knocking or not). Action
   names (:func:`hollywood_env.actions.action_name`): ``discard Ac``, ``knock 5h`` (discard 5h
   and knock; deadwood 0 is gin), ``draw stock``, ``take discard``, ``pass`` (decline the first
   upcard), ``big gin``. Cards are a rank ``A23456789TJQK`` and a suit ``cdhs``.

3. bye, once, when the agent is closed: ``{"type": "bye"}``; the program should exit (it is
   killed after 2 seconds otherwise).

The messages are built from the policy call's inputs only: the observation
(:mod:`hollywood_env.observation`), the legal-action mask, and the public context the match
runner gives a policy that sets ``reads_context`` (:class:`agents.registry.PolicyContext`: game
indices, seats, deal numbers and the public event log of the hand). None of these depend on the
opponent's unseen cards or the order of the stock, so neither can a message.

Errors: a program that cannot start, exits, answers late, or answers nonsense (not JSON, the
wrong type or count, an unknown or illegal action name) raises :class:`ProcAgentError` (an
:class:`~agents.registry.AgentSpecError`, so a ``ValueError``) in one line naming the game, the
decision and what was received. When it happens during :func:`agents.matches.play_pairing` the
message also says how many games had finished, and the error's ``partial_result`` is the
:class:`~agents.matches.PairingResult` of the whole batch so far: the finished games are those
with ``terminated | truncated``; the others are neither.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shlex
import subprocess
import threading
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.registry import AgentSpecError, PolicyContext
from hollywood_env import observation as O
from hollywood_env.actions import NUM_ACTIONS, PHASE_NAMES, action_name
from hollywood_env.cards import NUM_CARDS, format_card
from hollywood_env.history import decode_events
from hollywood_env.rules import Rules, resolve_rules
from hollywood_env.sampling import SeedLike, int_seed

if TYPE_CHECKING:  # annotations only: agents.matches imports the registry, which imports this lazily
    from agents.matches import PairingResult

__all__ = ["PROTOCOL", "VERSION", "ProcAgentError", "ProcAgent", "proc_agent_from_spec", "decision_messages",
           "ACTION_NAMES"]

PROTOCOL = "hollywood-proc"
VERSION = 1
DEFAULT_TIMEOUT = 30.0
TIMEOUT_ENV = "HOLLYWOOD_PROC_TIMEOUT"
ACTION_NAMES: tuple[str, ...] = tuple(action_name(a) for a in range(NUM_ACTIONS))
_ACTION_INDEX = {name: a for a, name in enumerate(ACTION_NAMES)}
_EVENT_NAMES = ("take", "decline", "discard")
_CARD_NAMES = tuple(format_card(c) for c in range(NUM_CARDS))


class ProcAgentError(AgentSpecError):
    """A ``proc:`` program that failed to start, crashed, answered late or answered nonsense."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message
        self.partial_result = None

    def match_interrupted(self, partial: PairingResult) -> None:
        """Called by the match runner with the results so far (a ``PairingResult``)."""
        self.partial_result = partial
        done = int(np.sum(partial.terminated | partial.truncated))
        self.args = (f"{self.message}; {done} of {partial.n_games} games had finished before the failure "
                     f"(their results: this error's partial_result)",)


def _short(text: Any, limit: int = 200) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    s = repr(text) if not isinstance(text, str) else repr(text.rstrip("\n"))
    return s if len(s) <= limit else s[: limit - 3] + "..."


_NAMES_ARRAY = np.array(_CARD_NAMES, dtype=object)
_PLAYERS = ("you", "opponent")
#: per seat, per event code (hollywood_env.history.event_code): (player, event, card) seen by that seat
_EVENT_PARTS = tuple(
    tuple((_PLAYERS[int(a != seat)], _EVENT_NAMES[k], _CARD_NAMES[c])
          for a, k, c in zip(*(x.tolist() for x in decode_events(np.arange(2 * len(_EVENT_NAMES) * NUM_CARDS))),
                             strict=True))
    for seat in (0, 1))
_CARD_PLANES = (O.HAND, O.OPP_KNOWN, O.OPP_DISCARDED, O.OWN_DISCARDED)


def _split(flags: np.ndarray, names) -> list[list]:
    """Per row of the boolean matrix ``flags (m, k)``: the ``names`` of its true columns, in order."""
    rows, cols = np.nonzero(flags)
    picked = [names[c] for c in cols.tolist()]
    ends = np.cumsum(np.bincount(rows, minlength=flags.shape[0])).tolist()
    return [picked[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def _piles(planes: np.ndarray) -> list[list[str]]:
    """Per row of the pile planes ``(n, 52)``: the cards on the pile, bottom to top (by depth)."""
    on = planes > 0
    order = np.argsort(np.where(on, planes, np.inf), axis=1, kind="stable")
    names = _NAMES_ARRAY[order].tolist()
    return [row[:k] for row, k in zip(names, on.sum(axis=1).tolist(), strict=True)]


def _histories(context: PolicyContext) -> list[list[dict]]:
    """Per row: the public events of the hand (module docstring), seen by the row's seat."""
    log = np.asarray(context.log)
    sizes = np.asarray(context.log_size, dtype=np.int64)
    valid = (np.arange(log.shape[1]) < sizes[:, None]) & (log >= 0)
    rows, cols = np.nonzero(valid)
    flat = log[rows, cols].astype(np.int64).tolist()
    ends = np.cumsum(np.bincount(rows, minlength=log.shape[0])).tolist()
    out = []
    for seat, a, b in zip(np.asarray(context.seats).tolist(), [0, *ends[:-1]], ends, strict=True):
        parts = _EVENT_PARTS[seat]
        out.append([{"player": p, "event": e, "card": c} for p, e, c in (parts[code] for code in flat[a:b])])
    return out


def _scoresheets(obs: np.ndarray, rules: Rules) -> list[dict]:
    n = obs.shape[0]
    f = obs[:, O.sheet_slice(rules)].reshape(n, rules.columns, O.SHEET_FEATURES).astype(np.float64)
    pts = np.rint(f[:, :, :2] * rules.target).astype(int).transpose(0, 2, 1).tolist()
    won = np.rint(f[:, :, 7:9] * 10).astype(int).transpose(0, 2, 1).tolist()
    opened = (f[:, :, 2:4] > 0.5).transpose(0, 2, 1).tolist()
    decided, mine = (f[:, :, 4] > 0.5).tolist(), (f[:, :, 5] > 0.5).tolist()
    target = int(rules.target)
    return [{"target": target,
             "points": {"you": p[0], "opponent": p[1]},
             "opened": {"you": o[0], "opponent": o[1]},
             "hands_won": {"you": w[0], "opponent": w[1]},
             "winner": [("you" if m else "opponent") if d else None for d, m in zip(dd, mm, strict=True)]}
            for p, o, w, dd, mm in zip(pts, opened, won, decided, mine, strict=True)]


def decision_messages(obs: np.ndarray, mask: np.ndarray, rules: Rules,
                      context: PolicyContext | None = None) -> list[dict]:
    """The DECISION objects of one request (module docstring), from the policy call's inputs
    only: observations ``(n, D)``, legal masks ``(n, 108)`` and the public context (if given).
    Built for the whole batch at once (a few numpy calls per field, then Python lists)."""
    obs, mask = np.asarray(obs, dtype=np.float32), np.asarray(mask, dtype=bool)
    n = obs.shape[0]
    if obs.shape[1:] != (O.observation_size(rules),) or mask.shape != (n, NUM_ACTIONS):
        raise ValueError(f"observations {obs.shape} and masks {mask.shape} do not fit the rules "
                         f"(expected (n, {O.observation_size(rules)}) and (n, {NUM_ACTIONS}))")
    if n == 0:
        return []
    cards = _split(np.stack([obs[:, plane] for plane in _CARD_PLANES], axis=1).reshape(4 * n, NUM_CARDS) > 0.5,
                   _CARD_NAMES)
    piles = _piles(obs[:, O.PILE])
    legal = _split(mask, ACTION_NAMES)
    sheets = _scoresheets(obs, rules)
    phases = [PHASE_NAMES[p] for p in np.argmax(obs[:, O.PHASE], axis=1).tolist()]
    stock = np.rint(obs[:, O.STOCK] * 31).astype(int).tolist()
    dealer = ["you" if d else "opponent" for d in (obs[:, O.IS_DEALER] > 0.5).tolist()]
    knock_limit = np.rint(obs[:, O.KNOCK_LIMIT] * 10).astype(int).tolist()
    doubled = (obs[:, O.DOUBLED] > 0.5).tolist()
    if context is None:
        games, seats, histories = list(range(n)), [None] * n, [None] * n
        hand_number = np.rint(obs[:, O.HAND_NUMBER] * 100).astype(int).tolist()
    else:
        games, seats = np.asarray(context.games).tolist(), np.asarray(context.seats).tolist()
        hand_number, histories = np.asarray(context.hand_number).tolist(), _histories(context)
    return [{"game": int(games[i]),
             "seat": None if seats[i] is None else int(seats[i]),
             "phase": phases[i],
             "hand": cards[4 * i],
             "pile": piles[i],
             "stock": stock[i],
             "dealer": dealer[i],
             "knock_limit": knock_limit[i],
             "doubled": doubled[i],
             "hand_number": int(hand_number[i]),
             "opponent_known": cards[4 * i + 1],
             "opponent_discarded": cards[4 * i + 2],
             "own_discarded": cards[4 * i + 3],
             "history": histories[i],
             "scoresheet": sheets[i],
             "legal": legal[i]}
            for i in range(n)]


def _parse_command(arg: str) -> tuple[list[str], float]:
    """``[KEY=VALUE ...] COMMAND`` -> (argv, timeout)."""
    try:
        words = shlex.split(arg)
    except ValueError as e:
        raise AgentSpecError(f"agent 'proc:{arg}': cannot split the command: {e}") from None
    timeout_text = os.environ.get(TIMEOUT_ENV, str(DEFAULT_TIMEOUT))
    source = TIMEOUT_ENV
    while words and "=" in words[0] and words[0].split("=", 1)[0] in ("timeout",):
        timeout_text, source = words.pop(0).split("=", 1)[1], "timeout="
    try:
        timeout = float(timeout_text)
        if not timeout > 0:
            raise ValueError
    except ValueError:
        raise AgentSpecError(f"agent 'proc:{arg}': {source} must be a positive number of seconds, "
                             f"got {timeout_text!r}") from None
    if not words:
        raise AgentSpecError(f"agent 'proc:{arg}': no command given; expected proc:[timeout=SECONDS] COMMAND ARGS...")
    return words, timeout


def _pump(stream, sink) -> None:
    """Copy lines from ``stream`` into ``sink`` (a queue or a deque) until EOF (then ``None``)."""
    try:
        for line in iter(stream.readline, ""):
            sink.append(line) if isinstance(sink, collections.deque) else sink.put(line)
    except (OSError, ValueError):
        pass
    if not isinstance(sink, collections.deque):
        sink.put(None)


def _stop(proc: subprocess.Popen) -> None:
    """Send bye, wait briefly, then kill (used by close() and at garbage collection / exit)."""
    if proc.poll() is None:
        try:
            proc.stdin.write(json.dumps({"type": "bye"}) + "\n")
            proc.stdin.flush()
            proc.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            stream.close()
        except (OSError, ValueError):
            pass


class ProcAgent:
    """A policy played by an external program (module docstring). ``close()`` ends it."""

    reads_context = True

    def __init__(self, argv: list[str], rules: Rules | str | None = None, seed: SeedLike = None,
                 timeout: float = DEFAULT_TIMEOUT, spec: str | None = None):
        self.rules = resolve_rules(rules)
        self.argv, self.timeout = list(argv), float(timeout)
        self.spec = spec or "proc:" + shlex.join(self.argv)
        self._seed = None if seed is None else int_seed(seed)
        self.requests = 0
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1)
        except OSError as e:
            raise ProcAgentError(f"agent {self.spec!r}: cannot start {self.argv[0]!r}: {e.strerror or e}") from None
        self._lines: queue.Queue = queue.Queue()
        self._stderr: collections.deque = collections.deque(maxlen=20)
        self._pumps = [threading.Thread(target=_pump, args=(stream, sink), daemon=True)
                       for stream, sink in ((self._proc.stdout, self._lines), (self._proc.stderr, self._stderr))]
        for thread in self._pumps:
            thread.start()
        self._finalizer = weakref.finalize(self, _stop, self._proc)
        hello = {"type": "hello", "protocol": PROTOCOL, "version": VERSION, "rules": self.rules.to_dict(),
                 "seed": self._seed}
        answer = self._exchange(hello, "the hello")
        if answer.get("type") != "hello" or answer.get("version") != VERSION:
            self.close()
            raise ProcAgentError(f"agent {self.spec!r}: the hello was answered with {_short(json.dumps(answer))}; "
                                 f"expected {{\"type\": \"hello\", \"name\": ..., \"version\": {VERSION}}}")
        self.name = str(answer.get("name", self.argv[0]))

    # --- the policy ---------------------------------------------------------------------------

    def __call__(self, obs: np.ndarray, mask: np.ndarray, context: PolicyContext | None = None) -> np.ndarray:
        decisions = decision_messages(obs, mask, self.rules, context)
        if not decisions:
            return np.zeros(0, dtype=np.int64)
        self.requests += 1
        games = [d["game"] for d in decisions]
        shown = ", ".join(map(str, games[:8])) + (f", ... ({len(games)} in all)" if len(games) > 8 else "")
        where = f"request {self.requests} (decisions 0..{len(games) - 1}, of games {shown})"
        answer = self._exchange({"type": "act", "decisions": decisions}, where)
        actions = answer.get("actions")
        if answer.get("type") != "act" or not isinstance(actions, list) or len(actions) != len(decisions):
            got = f"{len(actions)} actions" if isinstance(actions, list) else _short(json.dumps(answer))
            self._fail(f"{where} was answered with {got}; expected {{\"type\": \"act\", \"actions\": [one name per decision]}}")
        out = np.empty(len(decisions), dtype=np.int64)
        for i, (d, name) in enumerate(zip(decisions, actions, strict=True)):
            a = _ACTION_INDEX.get(name) if isinstance(name, str) else None
            if a is None or not mask[i, a]:
                what = "an unknown action" if a is None else "an illegal action"
                self._fail(f"game {d['game']}, decision {i} of request {self.requests}: answered {_short(name)}, {what} "
                           f"(legal: {', '.join(d['legal'])})")
            out[i] = a
        return out

    def seed(self, seed: SeedLike = None) -> None:
        """Remember ``seed``; the program gets a seed once, in the hello, so a reseed changes nothing
        for a running program (its own randomness is its business)."""
        self._seed = None if seed is None else int_seed(seed)

    def close(self) -> None:
        """Send bye and end the program (also done when the agent is garbage collected or at exit)."""
        self._finalizer()

    def __enter__(self) -> ProcAgent:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ProcAgent({self.spec!r})"

    # --- the pipe -------------------------------------------------------------------------------

    def _fail(self, what: str) -> None:
        """Raise the one-line error (and stop the program: its state is unknown now)."""
        if self._proc.poll() is not None:  # it exited: let its last words arrive
            self._pumps[1].join(timeout=1)
        tail = [line.strip() for line in list(self._stderr) if line.strip()]
        self.close()
        hint = f"; its stderr ended with {_short(tail[-1], 160)}" if tail else ""
        raise ProcAgentError(f"agent {self.spec!r}: {what}{hint}")

    def _exchange(self, message: dict, where: str) -> dict:
        if self._proc.poll() is not None:
            self._fail(f"{where}: the program has exited (code {self._proc.returncode}) before it was sent")
        try:
            self._proc.stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            self._proc.stdin.flush()
        except (OSError, ValueError):
            self._proc.wait()
            self._fail(f"{where}: the program exited (code {self._proc.returncode}) before reading it")
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self._fail(f"{where}: no answer within {self.timeout:g} s (option timeout=SECONDS or ${TIMEOUT_ENV})")
        if line is None:
            code = self._proc.wait()
            self._fail(f"{where}: the program exited (code {code}) without answering")
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            self._fail(f"{where}: the answer is not JSON: received {_short(line)}")
        if not isinstance(answer, dict):
            self._fail(f"{where}: the answer is not a JSON object: received {_short(line)}")
        return answer


def proc_agent_from_spec(arg: str, rules: Rules | str | None = None, seed: SeedLike = None) -> ProcAgent:
    """The factory of ``proc:[timeout=SECONDS] COMMAND`` (registered in :mod:`agents.registry`)."""
    argv, timeout = _parse_command(arg)
    return ProcAgent(argv, rules=rules, seed=seed, timeout=timeout, spec=f"proc:{arg}")
