"""Build any agent from a short spec, so bots, checkpoints and user code play either seat alike.

============================  ==================================================================
spec                          agent
============================  ==================================================================
``random`` ``simple``         the baseline bots of :mod:`agents.bots`
``neller`` ``hollywood``
``marjj``                     the EAAI-2021 winner's strategy (:mod:`agents.bots.marjj`)
``ppo:PATH`` ``dqn:PATH``     a trained checkpoint (a ``.pt`` file or a run folder), loaded by
                              ``agents.rl.policies.load_ppo_policy`` (one network, or a shipped
                              ensemble) / ``DQNPolicy.from_checkpoint``
``ppo-ensemble:PATH+PATH``    PPO checkpoints (or shipped PPO names) as one agent, acting on the
                              mean of their log-probabilities (``agents.rl.policies.PPOEnsemblePolicy``)
``sb3:PATH``                  a Stable-Baselines3 ``.zip`` (PPO / MaskablePPO ``MlpPolicy``): its
                              weights only, never its pickles (:mod:`agents.interop.sb3_policy`)
``rllib:PATH``                an RLlib policy exported as a weights-only file
                              (``hollywood rllib-export``; :mod:`agents.interop.rllib_support`)
``search``                    determinized Monte Carlo search (:mod:`agents.search.search`);
``search:KEY=VALUE,...``      knobs, e.g. ``search:worlds=64,rollout=hollywood``
``proc:COMMAND``              a program in any language, spoken to in JSON lines on its stdin and
                              stdout (:mod:`agents.interop.proc_agent`, docs/evaluation.md)
``module:function``           a callable from an importable module (or ``path/to/file.py:name``)
============================  ==================================================================

Every agent is a *policy*: ``policy(obs (n, D) float32, mask (n, 108) bool) -> actions (n,) int``.

A policy that sets ``reads_history = True`` also gets ``history=`` (the encoded public history
of the hand), one that sets ``reads_context = True`` gets ``context=`` (a :class:`PolicyContext`:
the games' indices, the seats to act, the deal numbers and the public event log), from
:func:`call_policy`, which every match runner uses. Neither holds anything hidden from the seat.

Seeding: every agent made from a spec has a ``seed(seed)`` method, which the environments call
on each seeded reset so that the same seed plays the same matches. The bots define it; a policy
without one that keeps its randomness in an ``rng`` attribute (a ``np.random.Generator``, as
``DQNPolicy``) or a ``generator`` attribute (a ``torch.Generator``, as ``PPOPolicy``) is given
one that reseeds that attribute. A callable passed as it is (not a spec) is left alone.

``module:function`` resolves ``function`` (dotted attributes allowed) in the module and then:

* a class is instantiated as ``cls(rules=rules, seed=seed)`` (each keyword only if its
  ``__init__`` takes it) -- so a :class:`~agents.bots.Bot` subclass works as is;
* a function with a parameter named ``rules`` is a *factory*: it is called with ``rules`` (and
  ``seed`` if it takes one) and must return the policy;
* any other callable is the policy itself.

Errors: a spec that names nothing valid raises :class:`AgentSpecError` (a ``ValueError``) with the
valid forms and the nearest registered name for a typo; so does a checkpoint that does not load
and a ``path/to/file.py`` that fails to import.

Extending: :func:`register` adds a name, :func:`register_prefix` a ``prefix:ARG`` family. A factory
may be given as a ``"module:attribute"`` string, imported only when first used, so a trainer can
be registered without importing torch at start-up. Registered prefixes take precedence over the
``module:function`` form.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from agents import bots
from agents.bots import marjj
from hollywood_env.rules import Rules, resolve_rules
from hollywood_env.sampling import SeedLike, as_generator, int_seed

__all__ = [
    "AgentSpecError", "Policy", "PolicyContext", "call_policy", "make_agent", "register", "register_prefix", "registered_names",
    "registered_prefixes", "available_agents", "describe_agents", "checkpoint_loader", "BOT_CLASSES", "make_bot",
]


class AgentSpecError(ValueError):
    """An agent spec that names nothing valid (unknown name, bad path, unavailable prefix)."""


class Policy(Protocol):
    """A batched policy: ``(obs (n, D), masks (n, 108)) -> actions (n,)``. A policy that also
    reads the public history of the hand sets ``reads_history = True`` and takes it as the
    keyword ``history`` (``(n, HISTORY_SIZE)``, :func:`hollywood_env.history.encode_history`);
    :func:`call_policy` is how every runner calls a policy."""

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class PolicyContext:
    """Public facts about the rows of a policy call, for policies that set ``reads_context``:
    ``games (n,)`` the rows' game indices in the batch being played, ``seats (n,)`` the seats to
    act, ``hand_number (n,)`` deals so far in each match, ``log (n, L) int16`` and ``log_size
    (n,)`` the public event log of the hand (:mod:`hollywood_env.history`). All copied from
    ``State`` fields marked public (``core.State``): nothing hidden from the seat."""

    games: np.ndarray
    seats: np.ndarray
    hand_number: np.ndarray
    log: np.ndarray
    log_size: np.ndarray


def policy_context(state: Any, games: Any = None, viewer: np.ndarray | int | None = None) -> PolicyContext:
    """The :class:`PolicyContext` of the games ``games`` (default all) of ``state`` seen by ``viewer``
    (default: the player to act)."""
    g = np.arange(state.batch_size) if games is None else np.asarray(games, dtype=np.int64).reshape(-1)
    seats = state.current_player[g].astype(np.int64) if viewer is None else \
        np.broadcast_to(np.asarray(viewer, dtype=np.int64), g.shape).copy()
    return PolicyContext(games=g.copy(), seats=seats, hand_number=state.hand_number[g].copy(),
                         log=state.log[g].copy(), log_size=state.log_size[g].astype(np.int64))


def call_policy(policy: Policy, obs: np.ndarray, masks: np.ndarray, state: Any, games: np.ndarray | None = None,
                viewer: np.ndarray | int | None = None) -> np.ndarray:
    """``policy(obs, masks)``, with ``history=`` the public history of the games ``games`` of
    ``state`` seen by ``viewer`` (default: the player to act) when the policy reads it, and
    ``context=`` their :class:`PolicyContext` when it reads that."""
    kwargs = {}
    if getattr(policy, "reads_history", False):
        from hollywood_env.history import encode_history

        kwargs["history"] = encode_history(state, viewer=viewer, games=games)
    if getattr(policy, "reads_context", False):
        kwargs["context"] = policy_context(state, games, viewer)
    return np.asarray(policy(obs, masks, **kwargs))


#: name -> (factory(rules=, seed=) or "module:attr", description)
_NAMES: dict[str, tuple[Any, str]] = {}
#: prefix -> (factory(arg, rules=, seed=) or "module:attr", description)
_PREFIXES: dict[str, tuple[Any, str]] = {}
_PREFIX_ARGS: dict[str, str] = {}  # prefix -> the argument's name in help texts


def register(name: str, factory: Callable[..., Policy] | str, description: str = "", overwrite: bool = False) -> None:
    """Register ``name``: ``factory(rules=Rules, seed=int | Generator | None) -> policy``."""
    if not name or ":" in name:
        raise ValueError(f"an agent name must be non-empty and contain no ':', got {name!r}")
    if name in _NAMES and not overwrite:
        raise ValueError(f"agent name {name!r} is already registered (pass overwrite=True to replace it)")
    _NAMES[name] = (factory, description)


def register_prefix(prefix: str, factory: Callable[..., Policy] | str, description: str = "",
                    overwrite: bool = False, arg: str = "PATH") -> None:
    """Register ``prefix:ARG`` specs: ``factory(arg: str, rules=Rules, seed=...) -> policy``;
    ``arg`` names the argument in help texts (``ppo:PATH``, ``search:KEY=VALUE,...``)."""
    if not prefix or ":" in prefix:
        raise ValueError(f"a prefix must be non-empty and contain no ':', got {prefix!r}")
    if prefix in _PREFIXES and not overwrite:
        raise ValueError(f"prefix {prefix!r} is already registered (pass overwrite=True to replace it)")
    _PREFIXES[prefix] = (factory, description)
    _PREFIX_ARGS[prefix] = arg


def registered_names() -> list[str]:
    return list(_NAMES)


def registered_prefixes() -> list[str]:
    return list(_PREFIXES)


def available_agents() -> list[str]:
    """Every valid form of spec, for help texts and error messages."""
    return registered_names() + [f"{p}:{_PREFIX_ARGS[p]}" for p in _PREFIXES] + ["module:function"]


def describe_agents() -> str:
    lines = [f"  {n:<16} {d}" for n, (_, d) in _NAMES.items()]
    lines += [f"  {p + ':' + _PREFIX_ARGS[p]:<16} {d}" for p, (_, d) in _PREFIXES.items()]
    lines.append(f"  {'module:function':<16} a policy, policy class or factory(rules=...) from your own code")
    return "\n".join(lines)


def _did_you_mean(word: str, choices) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _resolve_target(target):
    if isinstance(target, str):
        return _load_attr(target, target)
    return target


def _call_with(fn, *args, **kwargs):
    """Call ``fn`` with the keyword arguments its signature accepts."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn(*args, **kwargs)
    params = sig.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return fn(*args, **kwargs)
    return fn(*args, **{k: v for k, v in kwargs.items() if k in params})


def make_agent(spec: str | Policy, rules: Rules | str | None = None, seed: SeedLike = None) -> Policy:
    """The policy named by ``spec`` (a string; a callable is returned as it is), for ``rules``.

    ``seed`` (int, None or ``np.random.Generator``) seeds the agent's own randomness.
    Raises :class:`AgentSpecError` listing the valid forms when the spec names nothing.
    """
    if callable(spec) and not isinstance(spec, str):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string, got {spec!r}; valid: {', '.join(available_agents())}")
    spec = spec.strip()
    rules = resolve_rules(rules)
    if spec in _NAMES:
        factory = _resolve_target(_NAMES[spec][0])
        return _seedable(_call_with(factory, rules=rules, seed=seed))
    if ":" in spec:
        prefix, arg = spec.split(":", 1)
        if prefix in _PREFIXES:
            factory = _resolve_target(_PREFIXES[prefix][0])
            return _seedable(_call_with(factory, arg, rules=rules, seed=seed))
        obj = _load_attr(spec, spec)
        return _seedable(_instantiate(obj, spec, rules, seed))
    raise AgentSpecError(f"unknown agent {spec!r}; valid agents: {', '.join(available_agents())}"
                         f"{_did_you_mean(spec, _NAMES)}")


class _Reseed:
    """The ``seed(seed)`` method given to a policy that keeps its randomness in ``rng`` (numpy)
    or ``generator`` (torch) and has no ``seed`` of its own: it reseeds that attribute as the
    policy's constructor seeds it. An object, not a closure, so the policy still pickles and
    deep-copies (a copy's ``seed`` reseeds the copy)."""

    def __init__(self, policy):
        self.policy = policy

    def __call__(self, seed: SeedLike = None) -> None:
        p = self.policy
        if isinstance(getattr(p, "rng", None), np.random.Generator):
            p.rng = as_generator(seed)
        else:
            p.generator.manual_seed(int_seed(seed))


def _seedable(policy):
    """``policy``, given a ``seed(seed)`` method if it has none and keeps its randomness in an
    ``rng`` or ``generator`` attribute (see the module docstring)."""
    if callable(getattr(policy, "seed", None)):
        return policy
    if isinstance(getattr(policy, "rng", None), np.random.Generator) or \
            callable(getattr(getattr(policy, "generator", None), "manual_seed", None)):
        try:
            policy.seed = _Reseed(policy)
        except AttributeError:  # __slots__ or a read-only attribute: leave it as it is
            pass
    return policy


def _instantiate(obj, spec, rules, seed):
    if inspect.isclass(obj):
        return _call_with(obj, rules=rules, seed=seed)
    if not callable(obj):
        raise AgentSpecError(f"{spec!r} names a {type(obj).__name__}, not a callable policy, class or factory")
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return obj
    if "rules" in params:
        policy = _call_with(obj, rules=rules, seed=seed)
        if not callable(policy):
            raise AgentSpecError(f"the factory {spec!r} returned a {type(policy).__name__}, not a callable policy")
        return policy
    return obj


def _load_attr(spec: str, target: str):
    """``module:attr`` or ``path/to/file.py:attr`` -> the object."""
    module_name, _, attr = target.rpartition(":")
    if not module_name or not attr:
        raise AgentSpecError(f"bad agent spec {spec!r}: expected module:function; valid: {', '.join(available_agents())}")
    if module_name.endswith(".py") or os.sep in module_name or "/" in module_name:
        path = os.path.abspath(module_name)
        if not os.path.isfile(path):
            raise AgentSpecError(f"agent {spec!r}: no such file {module_name!r}")
        name = f"_hollywood_user_{abs(hash(path))}"
        mod_spec = importlib.util.spec_from_file_location(name, path)
        if mod_spec is None or mod_spec.loader is None:
            raise AgentSpecError(f"agent {spec!r}: {module_name!r} is not a Python file")
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[name] = module
        try:
            mod_spec.loader.exec_module(module)
        except (SyntaxError, ImportError) as e:  # the user's file does not import: say why, briefly
            sys.modules.pop(name, None)
            raise AgentSpecError(f"agent {spec!r}: importing {module_name!r} failed: {type(e).__name__}: {e}") from None
    else:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name is None or module_name == e.name or module_name.startswith(e.name + "."):
                raise AgentSpecError(
                    f"unknown agent {spec!r}: {module_name!r} is neither a registered prefix "
                    f"({', '.join(_PREFIXES) or 'none'}) nor an importable module; valid agents: "
                    f"{', '.join(available_agents())}{_did_you_mean_prefix(spec, module_name)}") from None
            raise
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentSpecError(f"agent {spec!r}: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def _did_you_mean_prefix(spec: str, prefix: str) -> str:
    close = difflib.get_close_matches(prefix, list(_PREFIXES), n=1, cutoff=0.6)
    return f"; did you mean {close[0] + spec[len(prefix):]!r}?" if close else ""


# --- checkpoints -----------------------------------------------------------------------------


def checkpoint_loader(kind: str, target: str) -> Callable[..., Policy]:
    """A ``kind:PATH`` factory that loads a checkpoint (a ``.pt`` file or a run folder) with the
    ``"module:attr"`` loader ``target`` -- ``loader(path, rules=..., seed=...)`` -- imported on first
    use; a shipped model's short name of this kind (``ppo-gin-rummy``) stands for its file. Errors
    name the spec: a missing path, a trainer that is not available in this installation, or a
    checkpoint the loader rejects."""

    def factory(path: str, rules=None, seed=None):
        if not path:
            raise AgentSpecError(f"{kind}:PATH needs a checkpoint path, e.g. {kind}:runs/<run>/checkpoints/best.pt "
                                 f"or {kind}:runs/<run>")
        if not os.path.exists(path) and path in SHIPPED_MODELS and path.startswith(f"{kind}-"):
            path = str(MODELS_DIR / f"{SHIPPED_MODELS[path]}.pt")  # a shipped model's short name: its file
        if not os.path.exists(path):
            from agents.paths import find_model

            shipped = find_model(path)  # models/NAME.pt of an installed wheel: its packaged copy
            if not shipped.is_file():
                raise AgentSpecError(f"{kind}:{path}: no such checkpoint file or run folder: {path!r}")
            path = str(shipped)
        try:
            load = _load_attr(target, target)
        except (AgentSpecError, ImportError) as e:
            raise AgentSpecError(
                f"{kind} agents are not available yet in this installation ({e}); once the {kind.upper()} "
                f"trainer is there, its loader is {target}. Agents available now: "
                f"{', '.join(registered_names())}, module:function") from None
        try:
            return _call_with(load, path, rules=rules, seed=seed)
        except Exception as e:  # a file that is not a checkpoint fails in many ways (pickle, keys, shapes)
            raise AgentSpecError(f"{kind}:{path}: cannot load this checkpoint: {type(e).__name__}: {e}") from e

    factory.__name__ = f"load_{kind}"
    return factory


#: the bots by name (the one table of them: the registered names below, the search's rollout and
#: base bots)
BOT_CLASSES: dict[str, type[bots.Bot]] = {
    "random": bots.RandomBot, "simple": bots.SimpleBot, "neller": bots.NellerBot, "hollywood": bots.HollywoodBot,
    "marjj": marjj.MarjjBot,
}


def make_bot(name: str, rules: Rules | str | None = None, seed: SeedLike = None) -> bots.Bot:
    """The bot ``name`` of :data:`BOT_CLASSES`, ``cls(rules=rules, seed=seed)`` (the bot itself,
    whatever :func:`register` may have put under that name since)."""
    return BOT_CLASSES[name](rules=rules, seed=seed)


def _bot_factory(name: str) -> Callable[..., bots.Bot]:
    def factory(rules=None, seed=None):
        return make_bot(name, rules=rules, seed=seed)
    factory.__name__ = f"make_{BOT_CLASSES[name].name}"
    return factory


register("random", _bot_factory("random"), "uniform over the legal actions")
register("simple", _bot_factory("simple"), "OpenSpiel's simple Gin Rummy bot")
register("neller", _bot_factory("neller"), "the EAAI Gin Rummy challenge's simple player")
register("hollywood", _bot_factory("hollywood"), "scoresheet-aware heuristic that tracks the cards")
register("marjj", _bot_factory("marjj"), "MARJJ, the EAAI-2021 winner: knocks early only, then plays for gin")

# the search agent's factory lives with it (agents.search.search.search_agent_from_spec), imported on first use
register("search", "agents.search.search:search_agent_from_spec",
         "determinized Monte Carlo search on the engine (knobs: search:worlds=64,...)")
register_prefix("search", "agents.search.search:search_agent_from_spec",
                "the search agent with knobs, e.g. search:worlds=64,rollout=hollywood", arg="KEY=VALUE,...")
register_prefix("proc", "agents.interop.proc_agent:proc_agent_from_spec",
                "a program in any language, over JSON lines on stdin/stdout (options first: timeout=SECONDS)",
                arg="COMMAND")
# --- shipped models ----------------------------------------------------------------------------

from agents.paths import MODELS_DIR  # noqa: E402  (re-exported: the shipped models' folder)

#: short name -> file name (without .pt) in MODELS_DIR; each has a model card NAME.md beside it
SHIPPED_MODELS = {"ppo-hollywood": "ppo_hollywood", "ppo-hollywood-v1": "ppo_hollywood_v1",
                  "dqn-hollywood": "dqn_hollywood", "ppo-gin-rummy-simple": "ppo_gin_rummy_simple",
                  "ppo-gin-rummy": "ppo_gin_rummy"}


#: the loader of each kind of checkpoint (a ``ppo`` file may hold an ensemble of networks)
CHECKPOINT_LOADERS = {"ppo": "agents.rl.policies:load_ppo_policy", "dqn": "agents.rl.policies:DQNPolicy.from_checkpoint"}


def _shipped_factory(short: str, description: str):
    """The factory of a shipped model's short name: ``ppo:``/``dqn:`` of ``MODELS_DIR/<file>.pt``."""
    kind = short.split("-", 1)[0]
    loader = checkpoint_loader(kind, CHECKPOINT_LOADERS[kind])

    def factory(rules=None, seed=None):
        path = MODELS_DIR / f"{SHIPPED_MODELS[short]}.pt"
        if not path.is_file():
            raise AgentSpecError(f"{short}: the shipped model file {path} is missing (it comes with the source "
                                 f"tree's models/ folder, and inside the installed package; set HOLLYWOOD_MODELS "
                                 f"to the folder that holds it)")
        try:
            return loader(str(path), rules=rules, seed=seed)
        except AgentSpecError as e:
            raise AgentSpecError(f"{short}: {e}") from None

    factory.__name__ = f"load_{short.replace('-', '_')}"
    register(short, factory, description)


_shipped_factory("ppo-hollywood", "the shipped PPO agent for Hollywood matches (models/ppo_hollywood.md)")
_shipped_factory("ppo-hollywood-v1", "the first flagship PPO for Hollywood matches, the search agent's base "
                 "(models/ppo_hollywood_v1.md)")
_shipped_factory("dqn-hollywood", "the shipped DQN agent for Hollywood matches (models/dqn_hollywood.md)")
_shipped_factory("ppo-gin-rummy-simple", "the shipped single-hand PPO agent, gin-rummy-simple rules: it wins "
                 "hands and loses games to a gin-hunter (models/ppo_gin_rummy_simple.md)")
_shipped_factory("ppo-gin-rummy", "the shipped PPO agent for the EAAI game, games to 100 on the eaai rules "
                 "(models/ppo_gin_rummy.md)")
register_prefix("ppo", checkpoint_loader("ppo", CHECKPOINT_LOADERS["ppo"]),
                "a PPO checkpoint (.pt file, or a run folder: its best.pt, else latest.pt)")
register_prefix("ppo-ensemble", "agents.rl.policies:ppo_ensemble_from_spec",
                "PPO checkpoints (or shipped PPO names) joined by '+', acting on the mean of their "
                "log-probabilities", arg="PATH+PATH...")
register_prefix("dqn", checkpoint_loader("dqn", CHECKPOINT_LOADERS["dqn"]),
                "a DQN checkpoint (.pt file, or a run folder: its best.pt, else latest.pt)")
register_prefix("sb3", checkpoint_loader("sb3", "agents.interop.sb3_policy:SB3Policy.from_zip"),
                "a Stable-Baselines3 PPO / MaskablePPO MlpPolicy .zip (weights only: agents/interop/sb3_policy.py)")
register_prefix("rllib", checkpoint_loader("rllib", "agents.interop.rllib_support:RLlibPolicy.from_export"),
                "an RLlib policy exported with `hollywood rllib-export` (weights only)")
