"""``search``: determinized Monte Carlo planning on the batched engine.

For each decision the agent draws worlds, full games consistent with what it has seen
(:mod:`hollywood_env.determinize`), from its belief over the opponent's hand
(:mod:`agents.search.belief`), plays each candidate move in every world and lets fast policies (bots)
play both seats to the end of the hand: by default ``simple`` its own seat, and the opponent's
seat once ``simple`` (who knocks as soon as it may) and once ``patient`` (who waits for gin), the
two opponent models pooled. The move of the base policy (by default a shipped PPO agent,
``ppo-hollywood-v1``) stands unless another candidate beats it clearly: by more than ``prior``
points and ``confidence`` standard errors of the paired difference over the same worlds. All games of a
call, all their candidate moves and all their worlds are stepped together in one batch of the
core engine: no Python loop over games, moves or worlds.

===================  =============================================================================
knob                 meaning (default)
===================  =============================================================================
``worlds``           kept worlds per decision (64; 256 on one-column rules, below); every
                     candidate is rolled out in the *same* worlds (common random numbers: with a
                     deterministic rollout policy the difference between two moves in a world is
                     due to the moves alone)
``rollout``          the policy that plays both seats after the move (``simple+patient``, with
                     ``own_rollout=simple``: the opponent's seat only; ``simple`` on one-column
                     rules): ``simple`` (fast, deterministic, read straight from the state),
                     ``patient`` (``simple``'s discards, ``marjj``'s upcards and knocks: it waits
                     for gin after its first turns; :class:`agents.bots.marjj.PatientBot`, as fast), ``hollywood``, ``neller``,
                     ``marjj`` or ``random``, or a trained policy as for ``base`` (a shipped
                     model, ``ppo:PATH``, ``dqn:PATH``; greedy, about 20 times the cost of
                     ``simple`` per step). A rollout by the base policy itself values each move
                     by how the agent will really go on playing it. Several opponent models
                     joined by ``+`` (``simple+patient``): every candidate is rolled out in the
                     same worlds by each, and the worlds of all models are pooled into one paired
                     difference, as if the opponent were each model with equal chance
``own_rollout``      the policy that plays the searching player's own seat in the rollouts (any
                     value of ``rollout``; ``simple``, the default, ``patient`` on the ``eaai``
                     preset; empty: ``rollout`` plays both seats, each opponent model both seats
                     of its rollouts). With
                     the base policy here, a move is valued by how the agent will go on playing,
                     and the opponent is still played by the ``rollout`` model
``knocker_rollout``  the opponent models (as in ``rollout``) of the rows whose scoresheet shows
                     an opponent who knocks early: at least ``style_wins`` hands won, at under
                     ``style_points`` per hand on average (:func:`opponent_knocks_early`); there
                     they replace ``rollout``, which values every other row (empty, the default:
                     ``rollout`` everywhere; ``simple`` on the ``eaai`` preset, below)
``base``             the policy that makes the decisions not searched and whose move gets the prior:
                     ``auto`` (default): the first shipped model of ``ppo-hollywood-v1`` (three
                     columns; the search's figures were measured with it) and
                     ``ppo-gin-rummy-simple`` (one) whose file is there and that reads these
                     rules' observations, else ``marjj``; a bot (``marjj``: it waits for gin and
                     undercuts), a shipped model (``ppo-hollywood``, ...) or a
                     checkpoint ``ppo:PATH`` / ``dqn:PATH`` (greedy); empty: the rollout bot
``moves``            what is searched: ``discards`` (the plain discards; draws and knocks are the
                     base policy's), ``knocks`` (knocks and discards; draws are the base policy's) or
                     ``all`` (draws, knocks and discards)
``belief``           where the opponent's unknown cards come from (:mod:`agents.search.belief`):
                     ``learned`` (drawn from the learned per-card probabilities, which read the
                     observation and the public history of the hand), ``heuristic`` (hands built
                     up as a player builds them and ranked by what the opponent passed on, below),
                     ``uniform``; ``auto`` (default): ``learned`` when its model file is there,
                     else ``heuristic``
``belief_file``      the learned belief's model file (default: ``models/belief_hollywood.pt``)
``refine``           under ``belief=learned``, 1 (default): the learned worlds are refined as the
                     heuristic ones are (``oversample`` times as many drawn, their opponent hands
                     built up by ``improve``, the most believable kept); 0: drawn as they are
``oversample``       worlds sampled per kept world under ``belief=heuristic`` or ``refine=1`` (4)
``improve``          draw-and-throw turns given to each sampled opponent hand per turn the
                     opponent has played this hand (1.0; 0: uniform hands)
``prior``            points added to the base policy's own move, so that another move replaces it
                     only when it is better by more than that (1.0; 0.0 on one-column rules)
``confidence``       a candidate replaces the base policy's move only when its advantage over it,
                     paired world by world, exceeds ``prior`` by ``confidence`` standard errors
                     (1.5; 0.0: by its mean alone); the winner is the candidate of the highest lower
                     bound (with several opponent models, over the worlds of all the models that
                     play the row, pooled; 2.0 on one-column rules). A strong base policy loses less to
                     rollout noise this way: of ten noisy candidates the best-looking one is
                     often only lucky
``value``            ``auto`` (default): ``match`` on Hollywood matches, ``win`` on one-column
                     rules (below); ``points``: signed hand points of the hand being played (the
                     rollout stops at the hand's end); ``win``: +1 / -1 for the hand won / lost (0 for a wall:
                     the hand win rate, for single hands; ``prior`` is then in those units);
                     ``equity``: the
                     change of the viewer's match-win equity, in percentage points
                     (:mod:`agents.search.equity`: P(win the match | the scoresheet), fitted to
                     simulated matches; majority matches only); ``match``: ``equity`` in the
                     rows whose scoresheet shows an opponent who waits for gin (at least
                     ``style_wins`` hands won, at ``style_points`` or more per hand on average:
                     :func:`opponent_waits_for_gin`), ``points`` in the others; the equity is then
                     counted in hand points (percentage points over :data:`EQUITY_PER_POINT`), so
                     ``prior`` means the same in both; ``auto``: ``match`` where the equity
                     model file is there and fitted for the rules (Hollywood matches), ``win`` on
                     one-column rules, else ``points``
``equity_file``      under ``value=equity`` or ``match``, the match-equity model's file (default:
                     ``models/equity_hollywood.pt``)
``seconds``          a time budget per searched decision (0: off): each call uses as many worlds as
                     the budget buys at the measured cost, between 4 and ``worlds``; moves then
                     depend on the machine's speed (use ``worlds`` alone for reproducible play)
``seed``             the agent's generator (worlds); same seed and calls, same moves

One rollout per candidate and world: the rollout bots are deterministic given a world (``random``
excepted), so more rollouts of the same world would repeat it; ``worlds`` is the number of
rollouts per candidate.
===================  =============================================================================

One-column rules (plain Gin Rummy, and its single hands) have defaults of their own
(:data:`ONE_COLUMN_DEFAULTS`, :func:`default_config`): the base there is the single-hand PPO,
trained to win hands, and the search values what its base plays for, hands won (``value=win``, so
``prior`` is in hands and is 0). A value of +-1 is noisier than hand points for the gate to see
through, so the gate is stricter (2 standard errors) and the worlds 4 times as many (256);
``simple`` alone plays the opponent's seat, which halves the cost of so many worlds. The ``eaai``
preset is played as games to 100 and has defaults of its own (:data:`GAME_DEFAULTS`): each hand
is valued by the change of the chance of winning the game (``value=equity``,
:mod:`agents.search.game_equity`), knocks are searched as well as discards, the opponent models
are ``simple`` and the gin-hunting ``patient``, pooled, until the opponent has won two hands at
under 25 points a hand on average (``simple`` alone from then on), the base is ``marjj`` and
``patient`` plays the searcher's own seat in the rollouts. Any knob given explicitly overrides
them.

Candidate moves: in the draw phase both choices (``moves=all``); in the discard phase, where big
gin or gin is legal, none (the row is not searched and the base policy's move stands); else the
plain discards of the cards outside the best meld arrangement, under ``moves=knocks`` and ``all``
the knock that leaves the least deadwood when a knock is legal, and always the base policy's own
move, since the gate compares every candidate with it. A row with one candidate is not searched.

The heuristic belief (``belief="heuristic"``): a uniformly random opponent hand is far weaker than
the hand a real player has built after a few turns, and a planner that believes it has time
makes slow plans. Each sampled opponent hand is therefore *built up*: for each turn the opponent
has played, it draws a random card of the world's stock and throws back the highest card outside
its melds (never a card it took from the pile), which matches the deadwood of real opponent hands
on average (docs/agents.md, "Search"). Worlds are then ranked by how few of the cards the opponent
passed on (its discards, our discards it did not take) would meld with its world hand.

How these defaults were chosen, with the measurements: docs/agents.md, "How the search's
defaults were chosen".

What the agent sees: only ``(observations, masks)``, like every agent, and the public history of
the hand (``history=``, given by the match runner because the agent says ``reads_history``):
worlds are built by :meth:`hollywood_env.determinize.InfoSet.from_observation`, so the search
cannot use the opponent's hand or the stock order (tests/agents/test_search.py and tests/agents/test_belief.py
shuffle them and check the moves). Without a history the learned belief reads the observation
alone.

Spec: ``search`` (the defaults) or ``search:worlds=64,rollout=hollywood,prior=0.5`` (knobs as
``key=value`` separated by commas), for :func:`agents.registry.make_agent`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from agents import bots as B
from agents.bots.marjj import PatientBot
from agents.registry import SHIPPED_MODELS, AgentSpecError, make_agent, make_bot
from agents.search.belief import BELIEFS, LearnedBelief, default_belief_path, heuristic_worlds, odds
from agents.search.equity import EQUITY_FILE, MatchEquity
from agents.search.game_equity import GameEquity, default_game_equity
from hollywood_env import core
from hollywood_env import melds as M
from hollywood_env.actions import (
    BIG_GIN,
    DISCARD,
    DRAW_STOCK,
    KIND_WALL,
    KNOCK,
    PASS,
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_FIRST_UPCARD,
    TAKE_DISCARD,
)
from hollywood_env.cards import CARD_BITS, NUM_CARDS, bools_to_masks, masks_to_bools
from hollywood_env.determinize import InfoSet, sample_worlds
from hollywood_env.history import HISTORY_SIZE
from hollywood_env.observation import encode
from hollywood_env.rules import Rules, check_positive_int, resolve_rules
from hollywood_env.sampling import SeedLike, as_generator

__all__ = ["SearchConfig", "ONE_COLUMN_DEFAULTS", "default_config", "SearchAgent", "CandidateValues",
           "parse_search_spec", "search_agent_from_spec",
           "opponent_win_record", "opponent_knocks_early", "opponent_waits_for_gin"]

#: the rollout (and base) bots: every name of agents.registry.BOT_CLASSES, in the order of the messages
_ROLLOUTS = ("simple", "hollywood", "neller", "marjj", "random", "patient")
#: the rollout bots read straight from the engine's state (no observation encoded)
_FROM_STATE = ("simple", "patient")
#: joins the opponent models of ``rollout`` (``simple+patient``)
MODEL_SEPARATOR = "+"
_BELIEFS = ("auto",) + BELIEFS
_VALUES = ("auto", "points", "win", "equity", "match")
#: under ``value=match``: percentage points of match equity counted as one hand point. In a
#: match's first hand one point is worth about 0.46 points of equity, after 150 decisions 0.62
#: (docs/agents.md, "Match equity"); 0.5 makes ``prior=1`` the ``prior=0.5`` of ``value=equity``
EQUITY_PER_POINT = 0.5
_MOVES = ("discards", "knocks", "all")
#: the trained policies that may be the base: a checkpoint spec's prefixes (agents.registry)
_POLICY_PREFIXES = ("ppo:", "dqn:")
#: ``base=auto``: the first of these that loads for the rules (a shipped model may be missing, or
#: read another number of columns), the last a bot, which always does
AUTO_BASE = "auto"
AUTO_BASES = ("ppo-hollywood-v1", "ppo-gin-rummy-simple", "marjj")


def _shipped_models() -> list[str]:
    return sorted(SHIPPED_MODELS)


def _is_policy_spec(spec: str) -> bool:
    """Whether ``spec`` names a policy of the rollouts or the base: a bot, a shipped model or a
    PPO / DQN checkpoint (``ppo:PATH``, ``dqn:PATH``)."""
    return spec in _ROLLOUTS or spec in SHIPPED_MODELS or (spec.startswith(_POLICY_PREFIXES) and len(spec) > 4)


def rollout_models(rollout: str) -> list[str]:
    """The opponent models of a ``rollout`` knob: ``"simple+patient"`` -> ``["simple", "patient"]``."""
    return [m.strip() for m in rollout.split(MODEL_SEPARATOR)]


def _is_base_spec(base: str) -> bool:
    """Whether ``base`` names a base policy: ``auto``, empty (the rollout bot) or a policy."""
    return base in ("", AUTO_BASE) or _is_policy_spec(base)


@dataclass(frozen=True)
class SearchConfig:
    """The knobs of :class:`SearchAgent` (see the module docstring). The defaults here are those
    of the Hollywood rules; :func:`default_config` gives those of any rules."""

    worlds: int = 64
    rollout: str = "simple+patient"
    #: the policy of the searcher's own seat in rollouts ("": ``rollout``)
    own_rollout: str = "simple"
    #: the opponent models of the rows whose scoresheet shows an opponent who knocks early ("":
    #: ``rollout`` in every row)
    knocker_rollout: str = ""
    base: str = AUTO_BASE
    moves: str = "discards"
    belief: str = "auto"
    #: the learned belief's model file ("": the shipped models/belief_hollywood.pt)
    belief_file: str = ""
    oversample: int = 4
    prior: float = 1.0
    #: standard errors of the paired advantage over the base move that a candidate must clear
    confidence: float = 1.5
    #: under ``value=match``: an opponent with at least ``style_wins`` wins at ``style_points`` or
    #: more points per win waits for gin (gins and undercuts score 25 up), and the search values
    #: its hands by match equity
    style_points: float = 25.0
    style_wins: int = 2
    #: time budget in seconds per searched decision (0: off, use ``worlds``)
    seconds: float = 0.0
    #: opponent-hand improvement: draws per opponent turn played so far (0: uniform hands)
    improve: float = 1.0
    value: str = "auto"
    #: under ``value=equity`` or ``match``: the match-equity model's file ("": the shipped models/equity_hollywood.pt)
    equity_file: str = ""
    #: under ``belief=learned``: 1 refines the learned worlds as the heuristic belief does (the
    #: most believable of ``oversample`` times as many, their opponent hands built up by ``improve``)
    refine: int = 1
    #: rollouts stop after this many decisions even if the hand goes on (a safety net; a hand
    #: of Gin Rummy has at most about 64 decisions)
    max_rollout_steps: int = 200

    def __post_init__(self):
        check_positive_int("worlds", self.worlds)
        models = rollout_models(self.rollout)
        if not all(map(_is_policy_spec, models)) or len(set(models)) < len(models):
            raise ValueError(f"rollout must be one of {list(_ROLLOUTS)}, a shipped model ({', '.join(_shipped_models())}), "
                             f"ppo:PATH or dqn:PATH, or several different ones joined by {MODEL_SEPARATOR!r} "
                             f"(simple+patient), got {self.rollout!r}")
        knockers = rollout_models(self.knocker_rollout) if self.knocker_rollout else []
        if not all(map(_is_policy_spec, knockers)) or len(set(knockers)) < len(knockers):
            raise ValueError(f"knocker_rollout must be empty (rollout in every row), one of {list(_ROLLOUTS)}, a shipped "
                             f"model ({', '.join(_shipped_models())}), ppo:PATH or dqn:PATH, or several different ones "
                             f"joined by {MODEL_SEPARATOR!r}, got {self.knocker_rollout!r}")
        if self.own_rollout and not _is_policy_spec(self.own_rollout):
            raise ValueError(f"own_rollout must be empty (the rollout policy), one of {list(_ROLLOUTS)}, a shipped "
                             f"model ({', '.join(_shipped_models())}), ppo:PATH or dqn:PATH, got {self.own_rollout!r}")
        if not _is_base_spec(self.base):
            raise ValueError(f"base must be one of {list(_ROLLOUTS)}, a shipped model ({', '.join(_shipped_models())}), "
                             f"ppo:PATH or dqn:PATH (empty: the rollout bot), got {self.base!r}")
        if self.moves not in _MOVES:
            raise ValueError(f"moves must be one of {list(_MOVES)}, got {self.moves!r}")
        if not self.style_points >= 0:
            raise ValueError(f"style_points must be >= 0, got {self.style_points!r}")
        check_positive_int("style_wins", self.style_wins)
        if self.belief not in _BELIEFS:
            raise ValueError(f"belief must be one of {list(_BELIEFS)} (auto: learned when its model file is there, "
                             f"else heuristic), got {self.belief!r}")
        check_positive_int("oversample", self.oversample)
        if not self.confidence >= 0:
            raise ValueError(f"confidence must be >= 0 (0: the mean alone), got {self.confidence!r}")
        if not self.seconds >= 0:
            raise ValueError(f"seconds must be >= 0 (0: no time budget), got {self.seconds!r}")
        if not self.improve >= 0:
            raise ValueError(f"improve must be >= 0, got {self.improve!r}")
        if self.value not in _VALUES:
            raise ValueError(f"value must be one of {list(_VALUES)}, got {self.value!r}")
        if self.refine not in (0, 1):
            raise ValueError(f"refine must be 0 or 1, got {self.refine!r}")
        if not self.max_rollout_steps >= 1:
            raise ValueError(f"max_rollout_steps must be positive, got {self.max_rollout_steps!r}")


#: the knobs whose defaults differ on one-column rules (see the module docstring); ``value=auto``
#: resolves to ``win`` there
ONE_COLUMN_DEFAULTS = {"worlds": 256, "rollout": "simple", "prior": 0.0, "confidence": 2.0}
#: the defaults of games to the target with no bonus (the ``eaai`` preset), where the game-win
#: equity is modelled (:mod:`agents.search.game_equity`): moves are valued by the change of the
#: chance of winning the game, in percentage points, against an opponent who knocks early
#: (``simple``) and one who waits for gin (``patient``), pooled, until the scoresheet shows which
#: the opponent is; against one who knocks early, ``simple`` alone. Knocks are searched as well as
#: discards: against a gin-hunter an early knock risks an undercut (25 points and the difference).
#: The base is the gin-hunter ``marjj``, and ``patient``, who knocks and takes upcards as it does,
#: plays the searcher's own seat in the rollouts; 32 worlds keep 200 games against ``marjj``
#: within about 30 minutes on one core (docs/agents.md, "Game equity")
GAME_DEFAULTS = {"worlds": 32, "rollout": "simple+patient", "knocker_rollout": "simple", "own_rollout": "patient",
                 "prior": 0.0, "confidence": 1.5, "value": "equity", "moves": "knocks", "base": "marjj"}


def default_config(rules: Rules | str | None = None) -> SearchConfig:
    """The default knobs for ``rules``: :class:`SearchConfig`'s, with :data:`ONE_COLUMN_DEFAULTS`
    on one-column rules."""
    rules = resolve_rules(rules)
    if rules.columns > 1:
        return SearchConfig()
    # the eaai preset is played as games to 100; the other one-column presets keep the defaults
    # measured on their single hands
    game = rules.preset_name == "eaai" and default_game_equity(rules) is not None
    return replace(SearchConfig(), **(GAME_DEFAULTS if game else ONE_COLUMN_DEFAULTS))


def parse_search_spec(arg: str) -> dict:
    """``"worlds=64,rollout=hollywood"`` -> ``{"worlds": 64, "rollout": "hollywood"}``, checked
    against :class:`SearchConfig` (unknown keys and bad values raise ``ValueError``)."""
    out: dict = {}
    types = {f.name: f.type for f in fields(SearchConfig)}
    for part in filter(None, (p.strip() for p in arg.split(","))):
        key, eq, text = part.partition("=")
        key = key.strip()
        if not eq:
            raise ValueError(f"search option {part!r} must be KEY=VALUE; keys: {sorted(types)}")
        if key not in types:
            raise ValueError(f"unknown search option {key!r}; valid: {sorted(types)}")
        t = types[key]
        try:
            out[key] = int(text) if t in (int, "int") else float(text) if t in (float, "float") else text.strip()
        except ValueError:
            raise ValueError(f"search option {key}={text!r}: expected {t if isinstance(t, str) else t.__name__}") from None
    SearchConfig(**out)  # validate
    return out


def search_agent_from_spec(arg: str = "", rules: Rules | str | None = None, seed: SeedLike = None) -> SearchAgent:
    """The agent of the specs ``search`` / ``search:KEY=VALUE,...`` (:mod:`agents.registry`): a
    :class:`SearchAgent` with those knobs; a bad knob or belief file raises
    :class:`~agents.registry.AgentSpecError` naming the spec."""
    try:
        knobs = parse_search_spec(arg)
    except ValueError as e:
        raise AgentSpecError(f"search:{arg}: {e}") from None
    try:
        return SearchAgent(rules=rules, seed=seed, **knobs)
    except ValueError as e:  # a belief model file that is missing or not valid
        raise AgentSpecError(f"search:{arg}: {e}") from None


@dataclass
class CandidateValues:
    """What :meth:`SearchAgent.candidate_values` found: ``base (n,)`` the base policy's move
    in every row; per candidate (sorted by row) its ``rows``, ``actions`` and ``values (k, M * W)``,
    the signed result of the move in each of the row's ``W`` worlds rolled out by each of the ``M``
    opponent models of ``rollout`` (model ``m``'s in columns ``m * W`` to ``m * W + W - 1``);
    ``worlds``: the State of those worlds before the move (world ``j`` of the ``i``-th searched row
    at ``i * W + j``)."""

    base: np.ndarray
    rows: np.ndarray
    actions: np.ndarray
    values: np.ndarray
    worlds: core.State | None


class SearchAgent:
    """Determinized Monte Carlo search (see the module docstring). A batched policy
    ``(obs (n, D), masks (n, 108)) -> actions (n,)`` with ``seed()``."""

    name = "search"
    #: the match runner gives this agent the public history of the hand (``history=``)
    reads_history = True

    def __init__(self, rules: Rules | str | None = None, seed: SeedLike = None, config: SearchConfig | None = None,
                 **knobs: Any):
        self.rules = resolve_rules(rules)
        self.config = replace(config or default_config(self.rules), **knobs)
        self.belief = None  # the LearnedBelief of belief=learned
        cfg = self.config
        if cfg.belief in ("auto", "learned"):
            path = cfg.belief_file or default_belief_path()
            if cfg.belief == "learned" or Path(path).is_file():
                self.belief = LearnedBelief.from_file(path)
                self.config = replace(cfg, belief="learned")
            else:
                self.config = replace(cfg, belief="heuristic")
        #: the MatchEquity of value=equity and value=match
        self.equity = None
        if cfg.value == "auto":  # match where a fitted equity model is there, win on one column, else points
            self.equity = MatchEquity.if_fitted(cfg.equity_file or EQUITY_FILE, self.rules)
            auto = "match" if self.equity is not None else "win" if self.rules.columns == 1 else "points"
            self.config = replace(self.config, value=auto)
        elif cfg.value == "equity" and self.rules.columns == 1:  # the race to the target (game_equity)
            self.equity = (GameEquity.from_file(cfg.equity_file, self.rules) if cfg.equity_file
                           else default_game_equity(self.rules))
            if self.equity is None:
                raise ValueError(f"value=equity on one-column rules needs rules with no game or box bonus (eaai) "
                                 f"and a game-equity model; rules {self.rules.preset_name or 'custom'} have none")
        elif cfg.value in ("equity", "match"):
            self.equity = MatchEquity.from_file(cfg.equity_file or EQUITY_FILE, self.rules)
        self.rng = as_generator(seed)
        #: (name, policy) of each opponent model of ``rollout``, then of ``knocker_rollout``'s
        #: others; the first is the rollout bot
        defaults = rollout_models(self.config.rollout)
        knockers = rollout_models(self.config.knocker_rollout) if self.config.knocker_rollout else []
        self._models = [(m, self._make_policy("rollout", m)) for m in defaults]
        self._models += [(m, self._make_policy("knocker_rollout", m)) for m in knockers if m not in defaults]
        #: per model, whether it plays the opponent's seat in the rows of an unknown or patient
        #: opponent ([0]) and of an opponent who knocks early ([1])
        self._plays = np.array([[m in defaults, m in (knockers or defaults)] for m, _ in self._models])
        self._policy = self._models[0][1]
        self._cost: float | None = None  # measured seconds per (candidate, world), for ``seconds``
        if self.config.base == AUTO_BASE:
            self._base, name = self._auto_base()
            self.config = replace(self.config, base=name)
            base = name
        else:
            base = self.config.base or self._models[0][0]
            self._base = self._policy if base == self._models[0][0] else self._make_policy("base", base)
        own = self.config.own_rollout
        #: the policy of the searcher's own seat in every model's rollouts (None: the model's)
        self._own = None if own in ("", self.config.rollout) else \
            self._base if own == base else self._make_policy("own_rollout", own)
        self.stats = {"decisions": 0, "searched": 0, "simulated_steps": 0, "seconds": 0.0}

    def _auto_base(self):
        """``(policy, name)`` of ``base=auto``: the first of :data:`AUTO_BASES` that loads for
        the rules."""
        for name in AUTO_BASES[:-1]:
            try:
                return self._make_policy("base", name), name
            except ValueError:  # the file is missing, or it reads another observation size
                continue
        return self._make_policy("base", AUTO_BASES[-1]), AUTO_BASES[-1]

    def _make_policy(self, knob: str, spec: str):
        """The policy of a ``rollout`` or ``base`` knob: a bot on the agent's generator, or a
        trained policy (greedy, so it needs no seed of its own)."""
        if spec == "patient":
            return PatientBot(self.rules, self.rng)
        if spec in _ROLLOUTS:
            return make_bot(spec, self.rules, self.rng)
        try:
            return make_agent(spec, self.rules, seed=self.rng)
        except AgentSpecError as e:
            raise ValueError(f"{knob}={spec}: {e}") from None

    def seed(self, seed: SeedLike = None) -> None:
        self.rng = as_generator(seed)
        policies = [p for _, p in self._models] + [self._base, self._own]
        for i, policy in enumerate(policies):
            if callable(getattr(policy, "seed", None)) and all(policy is not q for q in policies[:i]):
                policy.seed(self.rng)

    def __repr__(self) -> str:
        return f"SearchAgent({self.config})"

    # --- the policy ------------------------------------------------------------------------------
    def __call__(self, obs: np.ndarray, masks: np.ndarray, history: np.ndarray | None = None) -> np.ndarray:
        obs = np.asarray(obs, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if obs.ndim == 1:
            return self(obs[None], masks[None], None if history is None else np.asarray(history)[None])[0]
        t0 = time.perf_counter()
        ev = self.candidate_values(obs, masks, history)
        out = ev.base.copy()
        if ev.rows.size:
            score = self._scores(ev)
            # per row, the candidate of the highest score (ties: the base move, then the smaller action)
            is_base = ev.actions == ev.base[ev.rows]
            order = np.lexsort((ev.actions, ~is_base, -score, ev.rows))
            r = ev.rows[order]
            head = np.ones(r.size, dtype=bool)
            head[1:] = r[1:] != r[:-1]
            out[r[head]] = ev.actions[order][head]
            self.stats["searched"] += int(np.unique(ev.rows).size)
        self.stats["decisions"] += int(masks.any(axis=1).sum())
        self.stats["seconds"] += time.perf_counter() - t0
        return out

    def _scores(self, ev: CandidateValues) -> np.ndarray:
        """Each candidate's score, the highest of its row chosen: its mean value plus ``prior``
        for the base move; with ``confidence`` z > 0, in a row holding the base move, the lower
        bound ``mean(d) - z * se(d)`` of the candidate's paired advantage ``d`` over the base move
        in the same worlds, with the base move at ``prior`` (so a candidate wins only above it).
        With several opponent models the worlds of all that play the row are pooled into one paired
        difference, as if the opponent were each model with equal chance (a model that does not
        play a row has NaN values there)."""
        cfg = self.config
        k = len(self._models)
        w = ev.values.shape[1] // k  # worlds per opponent model
        is_base = ev.actions == ev.base[ev.rows]
        score = np.nanmean(ev.values, axis=1) + cfg.prior * is_base
        if k == 1 and (cfg.confidence <= 0 or w < 2):
            return score
        base_at = np.full(ev.base.shape[0], -1, dtype=np.int64)  # per row, the base move's candidate
        base_at[ev.rows[is_base]] = np.flatnonzero(is_base)
        has = base_at[ev.rows] >= 0
        d = ev.values[has] - ev.values[base_at[ev.rows[has]]]  # (the models' worlds pooled)
        bound = np.nanmean(d, axis=1)
        if cfg.confidence > 0 and w >= 2:
            n = (~np.isnan(d)).sum(axis=1)  # the worlds of the models that play the row
            bound = bound - cfg.confidence * np.nanstd(d, axis=1, ddof=1) / np.sqrt(n)
        score[has] = np.where(is_base[has], cfg.prior, bound)
        return score

    def candidate_values(self, obs: np.ndarray, masks: np.ndarray, history: np.ndarray | None = None) -> CandidateValues:
        """The search without the choice: every row's candidate moves and each one's rollout
        value in each kept world (see :class:`CandidateValues`). ``history``: the public
        histories of the rows (:func:`hollywood_env.history.encode_history`), read by the
        learned belief; ``None``: the belief reads the observation alone."""
        cfg = self.config
        obs = np.asarray(obs, dtype=np.float32)
        masks = np.asarray(masks, dtype=bool)
        if history is not None:
            history = np.asarray(history, dtype=np.float32)
            if history.shape != (obs.shape[0], HISTORY_SIZE):
                raise ValueError(f"history must have shape ({obs.shape[0]}, {HISTORY_SIZE}), got {history.shape}")
        base = np.asarray(self._base(obs, masks), dtype=np.int64)  # the base policy's moves
        cands_row, cands_act = candidates(obs, masks, base, cfg.moves)
        rows = np.unique(cands_row)
        w = self._budget_worlds(rows.size, cands_row.size)
        if rows.size == 0:
            return CandidateValues(base, cands_row, cands_act, np.zeros((0, w * len(self._models))), None)
        t0 = time.perf_counter()
        info = InfoSet.from_observation(obs[rows], masks[rows], self.rules)
        worlds = self._worlds(info, w, obs[rows], None if history is None else history[rows], rows=rows)
        # every candidate of a row is played in the same worlds: the row's w kept worlds
        local = np.searchsorted(rows, cands_row)
        # under value=match the rows against an opponent who waits for gin are valued by equity
        by_equity = (opponent_waits_for_gin(info, cfg.style_points, cfg.style_wins)[local] if cfg.value == "match"
                     else np.full(cands_row.size, cfg.value == "equity"))
        # under knocker_rollout the rows against an opponent who knocks early have models of their own
        knocker = (opponent_knocks_early(info, cfg.style_points, cfg.style_wins)[local] if cfg.knocker_rollout
                   else np.zeros(cands_row.size, dtype=bool))
        values = np.full((cands_row.size, w * len(self._models)), np.nan)  # NaN: the model does not play that row
        for m, (name, policy) in enumerate(self._models):  # each opponent model plays the same worlds
            c = np.flatnonzero(self._plays[m, knocker.astype(np.int64)])
            if c.size == 0:
                continue
            sim = core.take(worlds, (local[c, None] * w + np.arange(w)[None, :]).reshape(-1))
            viewer = sim.current_player.astype(np.int64)
            values[c, m * w:(m + 1) * w] = self._rollout(sim, np.repeat(cands_act[c], w), viewer, name, policy,
                                                         np.repeat(by_equity[c], w)).reshape(-1, w)
        cost = (time.perf_counter() - t0) / (cands_row.size * w)  # seconds per (candidate, world)
        self._cost = cost if self._cost is None else 0.7 * self._cost + 0.3 * cost
        return CandidateValues(base, cands_row, cands_act, values, worlds)

    def _budget_worlds(self, n_rows: int, n_candidates: int) -> int:
        """The worlds of this call: ``worlds``, or with a time budget (``seconds``) as many as the
        budget of the searched rows buys at the measured cost of a (candidate, world), between 4
        and ``worlds`` (16 before anything was measured)."""
        cfg = self.config
        if cfg.seconds <= 0 or n_candidates == 0:
            return cfg.worlds
        if self._cost is None:
            return min(cfg.worlds, 16)
        return int(np.clip(cfg.seconds * n_rows / (self._cost * n_candidates), 4, cfg.worlds))

    def _worlds(self, info: InfoSet, w: int, obs=None, history=None, rows=None) -> core.State:
        """``w`` worlds per information set, drawn from the belief: uniform, heuristic (the most
        believable of ``w * oversample`` built-up worlds) or learned (the opponent's unknown
        cards drawn from the learned probabilities of the rows' observations ``obs`` and
        histories ``history``). ``rows``: the searched rows' indices among the call's rows,
        unused here (a measuring subclass that knows the true games picks them by it)."""
        cfg = self.config
        if cfg.belief == "uniform":
            return sample_worlds(info, w, self.rng)
        if cfg.belief == "heuristic":
            return heuristic_worlds(info, w, self.rng, cfg.oversample, cfg.improve)
        p = self.belief.probabilities(info, obs, history)
        if cfg.refine:
            return heuristic_worlds(info, w, self.rng, cfg.oversample, cfg.improve, weights=odds(p))
        return sample_worlds(info, w, self.rng, weights=odds(p))

    def _rollout(self, sim: core.State, first: np.ndarray, viewer: np.ndarray, name: str, policy,
                 by_equity: np.ndarray) -> np.ndarray:
        """Play ``first`` in every game of ``sim``, then the rollout policy ``policy`` (the model
        ``name`` of ``rollout``) in both seats (the ``own_rollout`` policy in ``viewer``'s, when it
        is set) until the hand ends; the value of each game for ``viewer`` (a rollout cut off by
        ``max_rollout_steps`` counts 0), by match equity in the games where ``by_equity``."""
        cfg = self.config
        m = sim.batch_size
        value = np.zeros(m, dtype=np.float64)
        before = np.zeros(m)
        if by_equity.any():
            g = np.flatnonzero(by_equity)
            before[g] = self.equity(sim.sheet, g, viewer[g])
        state, origin = sim, np.arange(m)  # origin: each game's index in `sim`
        active = np.ones(m, dtype=bool)  # still in the hand being valued
        core.step(state, first)
        simulated = m
        for _ in range(cfg.max_rollout_steps):
            ended = active & (state.hand_ended | state.done)
            if ended.any():
                e = np.flatnonzero(ended)
                value[origin[e]] = self._value(state, e, viewer[origin[e]], before, origin[e], by_equity[origin[e]])
                active &= ~ended
            n_active = int(active.sum())
            if n_active == 0:
                break
            if n_active < 0.6 * state.batch_size:  # stop carrying the games already valued
                keep = np.flatnonzero(active)
                state, origin = core.take(state, keep), origin[keep]
                active = np.ones(keep.size, dtype=bool)
            if self._own is None:
                act = _policy_actions(policy, state, name)
            else:  # the searcher's own seat by its own rollout policy, the opponent's by the rollout model
                mine = state.current_player == viewer[origin]
                act = np.zeros(state.batch_size, dtype=np.int64)
                for games, seat_policy, seat_name in ((active & ~mine, policy, name),
                                                      (active & mine, self._own, cfg.own_rollout)):
                    g = np.flatnonzero(games)
                    if g.size:
                        act[g] = _policy_actions(seat_policy, state, seat_name, games=g)
            core.step(state, act, games=None if active.all() else np.flatnonzero(active))
            simulated += n_active
        self.stats["simulated_steps"] += simulated
        return value

    def _value(self, state, e, viewer, before, orig, by_equity) -> np.ndarray:
        """The values of the ended games ``e`` of ``state`` (``orig``: their indices in the
        rollout's first batch, where ``before`` was taken) for ``viewer``; by match equity where
        ``by_equity``."""
        if self.config.value == "equity":  # percentage points of match-win (game-win) equity
            if isinstance(self.equity, GameEquity):  # who starts the next hand counts: the new dealer's opponent
                return 100.0 * (self.equity(state.sheet, e, viewer, 1 - state.dealer[e]) - before[orig])
            return 100.0 * (self.equity(state.sheet, e, viewer) - before[orig])
        if self.config.value == "match":  # equity where the opponent waits for gin, in hand points
            out = self._hand_value(state, e, viewer, "points")
            q = np.flatnonzero(by_equity)
            if q.size:
                out[q] = 100.0 * (self.equity(state.sheet, e[q], viewer[q]) - before[orig[q]]) / EQUITY_PER_POINT
            return out
        return self._hand_value(state, e, viewer, self.config.value)

    @staticmethod
    def _hand_value(state, e, viewer, value: str) -> np.ndarray:
        """``points`` (signed hand points) or ``win`` (+1 / -1) of the ended games ``e``; 0 for a wall."""
        kind = state.hand_kind[e]
        pts = state.hand_points[e].astype(np.float64)
        sign = np.where(state.hand_winner[e] == viewer, 1.0, -1.0)
        if value == "win":
            return np.where(kind == KIND_WALL, 0.0, sign)
        return np.where(kind == KIND_WALL, 0.0, sign * pts)


# --- the opponent's style -----------------------------------------------------------------------


def opponent_win_record(info: InfoSet) -> tuple[np.ndarray, np.ndarray]:
    """``(wins, points_per_win)``, each ``(n,)``: what the scoresheet of the information sets says
    of the opponent's won hands this match. ``wins``: the most hands credited to one of its
    columns (every win is credited to column 1 until game 1 ends: a lower bound of its wins);
    ``points_per_win``: its column points over its credited hands, an average of its won hands'
    points in which a win counts once per column credited (0 before its first win)."""
    rows = np.arange(len(info))
    opp = 1 - np.asarray(info.viewer, dtype=np.int64)
    points = info.columns[rows, opp].sum(axis=1).astype(np.float64)
    credited = info.hands_scored[rows, opp]
    return credited.max(axis=1).astype(np.int64), points / np.maximum(credited.sum(axis=1), 1)


def opponent_knocks_early(info: InfoSet, points: float = 25.0, wins: int = 2) -> np.ndarray:
    """``(n,)`` bool: the opponent has won at least ``wins`` hands this match (or game) at under
    ``points`` per hand on average (:func:`opponent_win_record`): most of its wins were knocks, the
    play of one who knocks as soon as it may. On the ``eaai`` rules ``simple``, ``neller`` and
    ``hollywood`` win 14 to 15 points a hand against ``marjj``, who wins 32 against itself
    (docs/agents.md, "Game equity"). False before ``wins`` won hands."""
    n_wins, per_win = opponent_win_record(info)
    return (n_wins >= wins) & (per_win < points)


def opponent_waits_for_gin(info: InfoSet, points: float = 25.0, wins: int = 2) -> np.ndarray:
    """``(n,)`` bool: the opponent has won at least ``wins`` hands this match at ``points`` or
    more per hand on average (:func:`opponent_win_record`): most of its wins were gins or
    undercuts, the play of one who waits for gin (a gin or an undercut scores its bonus, 25, on
    top of the deadwood; a player who knocks as soon as it may scores most of its wins below).
    False before ``wins`` won hands."""
    n_wins, per_win = opponent_win_record(info)
    return (n_wins >= wins) & (per_win >= points)


# --- candidates ---------------------------------------------------------------------------------


def candidates(obs: np.ndarray, masks: np.ndarray, base: np.ndarray, moves: str) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, actions)`` of the candidate moves of every row with more than one (sorted by row).
    ``moves``: ``all`` (draws, knocks and discards), ``knocks`` (knocks and discards; the draws
    are the base policy's) or ``discards`` (only the plain discards of rows where the base policy,
    whose moves are ``base``, discards without knocking)."""
    draws, knocks = moves == "all", moves in ("all", "knocks")
    n = obs.shape[0]
    rows_out, acts_out = [], []
    phase_draw = masks[:, TAKE_DISCARD] & (masks[:, DRAW_STOCK] | masks[:, PASS])
    d = np.flatnonzero(phase_draw)
    if d.size and draws:
        other = np.where(masks[d, PASS], PASS, DRAW_STOCK)
        rows_out += [d, d]
        acts_out += [np.full(d.size, TAKE_DISCARD), other]
    disc = np.flatnonzero(masks[:, :KNOCK].any(axis=1) | masks[:, BIG_GIN])
    if not knocks:  # only rows where the base policy makes a plain discard
        disc = disc[(base[disc] >= DISCARD) & (base[disc] < KNOCK)]
    if disc.size:
        hand = bools_to_masks(obs[disc, :NUM_CARDS] > 0)
        legal = bools_to_masks(masks[disc, :NUM_CARDS])
        knock_cards = bools_to_masks(masks[disc, KNOCK:KNOCK + NUM_CARDS])
        # gin (a knock leaving no deadwood) or big gin: take it
        finish = masks[disc, BIG_GIN].copy()
        has_knock = knock_cards != 0
        best = np.full(disc.size, -1, dtype=np.int64)
        gin_card = np.full(disc.size, -1, dtype=np.int64)
        k = np.flatnonzero(has_knock)
        if k.size:
            best[k] = B.best_knock(hand[k], knock_cards[k])  # the knock leaving the least deadwood
            gin = M.min_deadwood_masks(hand[k] & ~CARD_BITS[best[k]]) == 0
            gin_card[k[gin]] = best[k[gin]]
        gin_card[finish] = -1
        decided = finish | (gin_card >= 0)
        _, sets, runs = M.best_arrangement_masks(hand)
        dead = hand & ~(sets | runs) & legal
        base_card = np.where((base[disc] >= DISCARD) & (base[disc] < KNOCK), base[disc] - DISCARD, -1)
        dead |= np.where(base_card >= 0, CARD_BITS[np.maximum(base_card, 0)], np.uint64(0))
        dead = np.where(dead == 0, legal, dead)  # every legal card melded: consider them all
        dead = np.where(decided, np.uint64(0), dead)
        r, c = np.nonzero(masks_to_bools(dead))
        rows_out.append(disc[r])
        acts_out.append(DISCARD + c)
        if knocks:
            k = np.flatnonzero(has_knock & ~decided)
            rows_out.append(disc[k])
            acts_out.append(KNOCK + best[k])
            # the base policy's own knock when it is another card: the gate compares every candidate
            # with the base move, so the base move must be one of them
            b = np.flatnonzero(~decided & (base[disc] >= KNOCK) & (base[disc] < KNOCK + NUM_CARDS)
                               & (base[disc] != KNOCK + best))
            rows_out.append(disc[b])
            acts_out.append(base[disc[b]])
    if not rows_out:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    rows = np.concatenate(rows_out).astype(np.int64)
    acts = np.concatenate(acts_out).astype(np.int64)
    # rows with a single candidate need no search
    counts = np.bincount(rows, minlength=n)
    keep = counts[rows] > 1
    rows, acts = rows[keep], acts[keep]
    order = np.lexsort((acts, rows))
    return rows[order], acts[order]


# --- rollout policies ------------------------------------------------------------------------------


def _policy_actions(policy, state: core.State, name: str, games: np.ndarray | None = None) -> np.ndarray:
    """The rollout policy's actions in every game of ``state`` (finished games: 0), or in the
    games ``games`` only."""
    if name in _FROM_STATE:
        act = _simple_from_state(policy, state)
        return act if games is None else act[games]
    obs = encode(state, games=games)
    mask = state.legal_action_mask if games is None else state.legal_action_mask[games]
    return np.asarray(policy(obs, mask), dtype=np.int64)


def _simple_from_state(bot, state: core.State) -> np.ndarray:
    """:class:`agents.bots.SimpleBot`'s (or :class:`agents.bots.marjj.PatientBot`'s) moves read
    straight from the state's public fields and the mover's hand and discards (what they decode
    from an observation, without encoding one)."""
    b = state.batch_size
    g = np.arange(b)
    cur = state.current_player.astype(np.int64)
    mask = state.legal_action_mask
    phase = state.phase
    take_phase = (phase == PHASE_DRAW) | (phase == PHASE_FIRST_UPCARD)
    take_phase &= mask[:, TAKE_DISCARD]
    discard_phase = phase == PHASE_DISCARD
    discard_phase &= mask[:, :KNOCK].any(axis=1) | mask[:, BIG_GIN]
    # the legal discards and knocks packed from the mask the engine computed in its last step
    legal_discards = bools_to_masks(mask[:, :NUM_CARDS])
    legal_knocks = bools_to_masks(mask[:, KNOCK:KNOCK + NUM_CARDS])
    z = np.zeros(b, dtype=np.uint64)
    v = B.View(hand=state.hands[g, cur], top=state.pile_top, pile=z, opp_known=z, opp_discarded=z,
               own_discarded=state.discarded[g, cur],
               stock=NUM_CARDS - state.stock_pos, knock_limit=state.knock_limit, take_phase=take_phase,
               first_upcard=take_phase & (phase == PHASE_FIRST_UPCARD), discard_phase=discard_phase,
               legal_discards=legal_discards, legal_knocks=legal_knocks)
    return bot.act_on_view(v, mask)
