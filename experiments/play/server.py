"""The HTTP server of ``hollywood play``: a Starlette app serving the page and a JSON API.

The server holds the game (:class:`~experiments.play.game.PlayMatch`); the page renders what the
API returns and sends the person's clicks back. Every response is the person's view only (see
:mod:`experiments.play.game`): the agent's hidden cards and the stock never leave the server
before the rules reveal them.

=======================================  ==============================================================
request                                  answer
=======================================  ==============================================================
``GET /``                                the page (``static/index.html``; assets under ``/static/``)
``GET /api/config``                      opponent, rules, hint agents, today's daily seed
``POST /api/matches``                    a new match: ``{"seed": N}`` (optional; default a new number),
                                         or ``{"daily": true}``; the unfinished match is abandoned
``GET /api/matches/current``             the match in progress (404 if none)
``GET /api/matches/{id}``                a match's view
``POST /api/matches/{id}/move``          ``{"version": V, "move": {"type": ..., "card": ...}}``
``POST /api/matches/{id}/next``          ``{"version": V}``: leave a hand's result, deal the next
``POST /api/matches/{id}/hint``          ``{"agent": NAME}`` (optional): what that agent would play
``POST /api/matches/{id}/replay``        the same match (seed, rules, opponent) from its first hand
``GET /api/stats``                       the person's results per opponent (from the logs)
=======================================  ==============================================================

Errors are ``{"error": message}`` with a 4xx status: 400 a malformed request (bad JSON, a
missing or wrong field), 404 an unknown match, 409 a stale request (``version`` is not the
match's), 422 an illegal move. A refused request changes nothing.

Handlers run on the event loop without awaiting while they change a match, so requests never
interleave. Starlette and uvicorn are the ``play`` extra (``pip install -e '.[play]'``).
"""

from __future__ import annotations

import datetime as _dt
import json
from importlib import resources
from pathlib import Path

import numpy as np

from agents.registry import make_agent
from hollywood_env.rules import Rules, resolve_rules

from .game import MAX_SEED, PlayError, PlayMatch, daily_seed
from .gamelog import human_results
from .store import MatchStore, read_logs

#: agents offered as hints besides the opponent
HINT_AGENTS = ("hollywood", "simple", "neller")


def static_dir() -> Path:
    """The folder of the page's files (package data of ``experiments.play``)."""
    return Path(str(resources.files("experiments.play") / "static"))


def default_opponent(rules) -> str:
    """The ``search`` agent: with ``ppo-hollywood`` one of the two strongest agents we ship, even
    with each other in Hollywood matches (docs/results.md); it plays every preset."""
    make_agent("search", rules, seed=0)  # it plays every preset; fail here, not mid-match
    return "search"


class PlayService:
    """The matches and agents behind the API (no web framework here: the tests and the app
    share it). ``rules``: of new matches; ``opponent``: the agent's spec; ``data_dir``: where
    the logs live; ``seed``: seeds the generator of new match numbers (None: fresh entropy);
    ``today``: the date of the daily deal (default: the local date when asked)."""

    def __init__(self, data_dir, opponent: str = "hollywood", rules: Rules | str = "hollywood", seed=None,
                 hint_agents=HINT_AGENTS, today=None):
        self.rules = resolve_rules(rules)
        self.opponent = opponent
        self.store = MatchStore(data_dir)
        self.match_numbers = np.random.default_rng(seed)
        self.hint_agents = list(dict.fromkeys([opponent, *hint_agents]))
        self._today = today
        self._policies: dict = {}
        self.policy_for(opponent, self.rules)  # fails here, before serving, for a bad spec

    def today(self) -> _dt.date:
        return self._today() if callable(self._today) else (self._today or _dt.date.today())

    def policy_for(self, spec: str, rules: Rules):
        key = (spec, json.dumps(rules.to_dict(), sort_keys=True))
        if key not in self._policies:
            self._policies[key] = make_agent(spec, rules, seed=0)
        return self._policies[key]

    def config(self) -> dict:
        return {"opponent": self.opponent, "rules": self.rules.preset_name or "custom",
                "hint_agents": self.hint_agents, "daily_seed": daily_seed(self.today()), "max_seed": MAX_SEED}

    def get(self, match_id: str) -> PlayMatch:
        m = self.store.get(match_id, self.policy_for)
        if m is None:
            raise NotFound(f"unknown match id {match_id!r}")
        return m

    def new_match(self, seed=None, daily: bool = False, rules=None, opponent=None, kind=None) -> PlayMatch:
        if daily:
            seed, kind = daily_seed(self.today()), "daily"
        elif seed is None:
            seed = int(self.match_numbers.integers(1, 1_000_000))
        rules = rules or self.rules
        opponent = opponent or self.opponent
        match = PlayMatch(rules, seed, opponent, self.policy_for(opponent, rules), self.store.new_id(seed),
                          kind=kind or "new")
        self.store.abandon_unfinished(self.policy_for, keep=None)
        self.store.save(match)
        return match

    def replay(self, match_id: str) -> PlayMatch:
        old = self.get(match_id)
        return self.new_match(seed=old.seed, rules=old.rules, opponent=old.opponent, kind="replay")

    def current(self) -> PlayMatch:
        mid = self.store.latest_in_progress()
        if mid is None:
            raise NotFound("no match in progress")
        return self.get(mid)

    def move(self, match_id: str, body: dict) -> PlayMatch:
        m = self.get(match_id)
        if "move" not in body:
            raise PlayError("a move request needs \"move\" (e.g. {\"type\": \"draw_stock\"}) and \"version\"")
        m.move(body["move"], body.get("version"))
        self.store.save(m)
        return m

    def next_hand(self, match_id: str, body: dict) -> PlayMatch:
        m = self.get(match_id)
        m.next_hand(body.get("version"))
        self.store.save(m)
        return m

    def hint(self, match_id: str, body: dict) -> dict:
        m = self.get(match_id)
        name = body.get("agent") or self.hint_agents[0]
        if name not in self.hint_agents:
            raise PlayError(f"unknown hint agent {name!r}; allowed: {', '.join(self.hint_agents)}")
        return m.hint(self.policy_for(name, m.rules), name)

    def stats(self) -> dict:
        return {"by_opponent": human_results(read_logs(self.store.logs_dir))}


class NotFound(PlayError):
    status = 404


def create_app(service: PlayService):
    """The Starlette app over ``service``."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    async def body_of(request: Request) -> dict:
        raw = await request.body()
        if not raw.strip():
            return {}
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError) as e:  # JSONDecodeError, UnicodeDecodeError, an int too long; too deep
            raise PlayError(f"malformed JSON body: {e}") from None
        if not isinstance(body, dict):
            raise PlayError(f"the JSON body must be an object, got {type(body).__name__}")
        return body

    def endpoint(fn):
        async def handler(request: Request):
            try:
                body = await body_of(request) if request.method == "POST" else {}
                return JSONResponse(fn(request, body))
            except PlayError as e:
                return error(e.status, str(e))
        return handler

    def view(m: PlayMatch) -> dict:
        return m.view()

    def new_match(request, body):
        seed = body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
            raise PlayError(f"\"seed\" must be an integer in 0..{MAX_SEED} (the match number), got {seed!r}")
        daily = body.get("daily", False)
        if not isinstance(daily, bool):
            raise PlayError(f"\"daily\" must be true or false, got {daily!r}")
        return view(service.new_match(seed=seed, daily=daily))

    mid = lambda r: r.path_params["match_id"]  # noqa: E731
    routes = [
        Route("/", lambda request: FileResponse(static_dir() / "index.html")),
        Route("/api/config", endpoint(lambda r, b: service.config())),
        Route("/api/stats", endpoint(lambda r, b: service.stats())),
        Route("/api/matches", endpoint(new_match), methods=["POST"]),
        Route("/api/matches/current", endpoint(lambda r, b: view(service.current()))),
        Route("/api/matches/{match_id}", endpoint(lambda r, b: view(service.get(mid(r))))),
        Route("/api/matches/{match_id}/move", endpoint(lambda r, b: view(service.move(mid(r), b))), methods=["POST"]),
        Route("/api/matches/{match_id}/next", endpoint(lambda r, b: view(service.next_hand(mid(r), b))),
              methods=["POST"]),
        Route("/api/matches/{match_id}/hint", endpoint(lambda r, b: service.hint(mid(r), b)), methods=["POST"]),
        Route("/api/matches/{match_id}/replay", endpoint(lambda r, b: view(service.replay(mid(r)))),
              methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=str(static_dir())), name="static"),
    ]

    async def http_error(request, exc: HTTPException):
        return error(exc.status_code, f"{exc.detail}: {request.method} {request.url.path}")

    return Starlette(routes=routes, exception_handlers={HTTPException: http_error})
