"""Rollout collection for every algorithm: the games of one update split into shards, run here,
in worker processes or on Ray.

The ``<algo>.num_games`` games of an update are split into ``collector.num_workers`` *shards* of
``num_games / num_workers`` games. A :class:`Shard` owns everything a rollout mutates:

* its :class:`~agents.rl.rollout.SelfPlayRollout`: the :class:`~hollywood_env.selfplay.SelfPlayBatch`
  seeded from ``(seed, shard index)`` and its own copy of the :class:`~agents.rl.league.League` (the
  bots, and every promoted snapshot, with its own opponent-sampling RNG and its own copies of the
  members' RNGs);
* its own generator for the learner's action sampling, and what the algorithm keeps between
  updates (DQN: the open n-step transitions).

The algorithm subclasses :class:`Shard` in its own file (:class:`agents.rl.ppo.PPOShard`: samples the
policy, runs GAE over its (game, player) streams and returns training samples;
:class:`agents.rl.dqn.DQNShard`: epsilon-greedy actions, returns n-step transitions) and gives the
class to :func:`make_collector`. A shard depends only on the config, its index, the weights it is
given and the snapshots added to its league, never on where it runs, so the three collectors give
identical runs for the same seed and ``num_workers`` (``process`` with ``torch_threads: 1``: see
:class:`ProcessCollector`):

* :class:`LocalCollector` (``collector.kind: local``): the shards run in the learner's process,
  one after the other, sharing the learner's network (``num_workers: 1``, the default, is one
  shard of all the games).
* :class:`ProcessCollector` (``collector.kind: process``): one OS process per shard on this
  machine (Python ``multiprocessing``, spawn start method; no Ray needed). Each update the learner
  sends every worker the weights (and any snapshot promoted since the last update) over its socket;
  the workers collect in parallel and the learner gathers their batches in shard order. Each
  worker also returns its shard's state, and a worker that dies is restarted from it as on Ray.
* :class:`RayCollector` (``collector.kind: ray``): one Ray actor per shard. Each update the learner
  puts the weights (and any snapshot promoted since the last update) in the object store once
  and passes the reference to every actor; the actors collect in parallel and the learner
  gathers their batches. Each actor also returns its shard's state without weights (the game
  states, the RNG states, the league's ids): when an actor dies, a new one is built from the
  same config, given that state and the snapshots it needs, and collects the update again, so
  the run goes on exactly as if nothing had happened (``charts/worker_restarts`` counts these).

Every collector's :meth:`get_state` / :meth:`set_state` (the shards' states) go into ``latest.pt``
so that ``--resume`` continues the same games.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import socket
import struct
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from agents.rl.features import input_size
from agents.rl.networks import load_weights  # noqa: F401  (re-exported: agents.rl.collectors.load_weights)
from hollywood_env.sampling import SeedLike, as_generator

if TYPE_CHECKING:  # annotations only
    from agents.rl.league import League

log = logging.getLogger(__name__)

KINDS = ("local", "process", "ray")


@dataclass
class CollectorConfig:
    """Where the rollouts of PPO and DQN run (the ``collector:`` section of a config).

    ``num_workers`` shards of ``<algo>.num_games / num_workers`` games each (``num_games`` must be
    a multiple of it). ``kind: local`` runs them in the learner's process one after the other;
    ``kind: process`` runs each in a worker process of its own on this machine (one torch thread
    each: ``num_workers`` at most the number of idle cores); ``kind: ray`` runs each in a Ray
    actor. ``max_restarts``: restarts of one worker within one update before the run gives up
    (``process`` and ``ray``).

    Ray only (ignored by ``local`` and ``process``): ``cpus_per_worker``, the CPUs each actor
    reserves; ``ray_address``: None starts a local Ray (with ``num_cpus`` CPUs; None: all of them),
    ``auto`` joins the cluster started with ``ray start --head`` on this machine,
    ``ray://HOST:10001`` a remote one.
    """

    kind: str = "local"  # local | process | ray
    num_workers: int = 1
    ray_address: str | None = None  # ray only
    num_cpus: int | None = None  # ray only
    cpus_per_worker: float = 1.0  # ray only
    max_restarts: int = 3

    def __post_init__(self):
        from agents.rl.checks import check_at_least, check_numbers

        if self.kind not in KINDS:
            raise ValueError(f"collector.kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        check_at_least("collector", self, ("num_workers",), 1)
        check_numbers("collector", self, (("cpus_per_worker", 0.0, False, np.inf),))
        if self.num_cpus is not None and self.num_cpus < 1:
            raise ValueError(f"collector.num_cpus must be >= 1 or null, got {self.num_cpus}")
        check_at_least("collector", self, ("max_restarts",), 0)

    def envs_per_worker(self, num_games: int, algo: str = "ppo") -> int:
        """Games per shard; raises ValueError when ``num_games`` does not split evenly."""
        if num_games % self.num_workers:
            raise ValueError(f"{algo}.num_games ({num_games}) must be a multiple of collector.num_workers "
                             f"({self.num_workers}): each worker steps num_games / num_workers games")
        return num_games // self.num_workers


def shard_seeds(seed: int, shard: int, start_update: int = 1) -> tuple[int, int, int]:
    """The (games, league sampler, torch sampling) seeds of shard ``shard`` of a run seeded
    ``seed`` that starts (or resumes) at update ``start_update``."""
    s = np.random.SeedSequence([int(seed), int(shard), int(start_update) - 1]).generate_state(3, dtype=np.uint64)
    return int(s[0] >> np.uint64(2)), int(s[1] >> np.uint64(2)), int(s[2] >> np.uint64(2))


def weights_to_numpy(state_dict: Mapping[str, torch.Tensor]) -> dict:
    return {k: v.detach().cpu().numpy() for k, v in state_dict.items()}


class Shard:
    """``num_games / num_workers`` games of the rollout with their league and RNGs (module doc).

    The algorithm-independent part: the :class:`~agents.rl.rollout.SelfPlayRollout` (games and
    league), the snapshots, the restorable state. :class:`PPOShard` and :class:`DQNShard` add the
    network, the learner's sampling and what is made of the steps."""

    algo = ""

    def __init__(self, cfg, index: int, start_update: int = 1, snapshots=(), net: torch.nn.Module | None = None,
                 device: str = "cpu"):
        from agents.rl.league import League
        from agents.rl.rollout import SelfPlayRollout
        from hollywood_env.actions import NUM_ACTIONS
        from hollywood_env.selfplay import SelfPlayBatch

        self.cfg, self.index = cfg, index
        algo_cfg = getattr(cfg, self.algo)
        self.B = cfg.collector.envs_per_worker(algo_cfg.num_games, self.algo)
        self.T = algo_cfg.num_steps
        env_seed, league_seed, sampler_seed = shard_seeds(cfg.seed, index, start_update)
        self.rules = cfg.env.make_rules()
        self.forbid = self.rules.forbid_discard_of_taken_card
        batch = SelfPlayBatch(self.B, self.rules, cfg.env.make_reward(), seed=env_seed, max_steps=cfg.env.max_steps)
        self.observation_size = batch.observation_size
        self.belief = self.input_belief()
        self.obs_dim = input_size(batch.observation_size, self.belief is not None)
        self.num_actions = NUM_ACTIONS
        self.device = torch.device(device)
        self.net = net if net is not None else self.make_net()
        self.init_sampler(sampler_seed)
        league = League(cfg.league, self.rules, as_generator(league_seed))
        self.league = league
        for name, weights in snapshots:
            self.add_snapshot(name, weights)
        self.rollout = SelfPlayRollout(batch, league, self.forbid, features_for_all=self.features_for_all,
                                       belief=self.belief)

    features_for_all = False

    # --- the algorithm's parts -----------------------------------------------------------------

    def input_belief(self) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
        """What the network reads after the features (:func:`agents.rl.features.augment`'s
        ``belief``; PPO: the learned belief with ``ppo.belief_input``), or None."""
        return None

    def make_net(self) -> torch.nn.Module:
        raise NotImplementedError

    def snapshot_policy(self, name: str, weights: Mapping[str, Any], seed: SeedLike) -> Callable[..., np.ndarray]:
        raise NotImplementedError

    def init_sampler(self, seed: int) -> None:
        raise NotImplementedError

    def sampler_state(self) -> Any:
        raise NotImplementedError

    def set_sampler_state(self, state: Any) -> None:
        raise NotImplementedError

    # --- league --------------------------------------------------------------------------------

    def add_snapshot(self, name: str, weights: dict) -> None:
        """A promoted snapshot or an exploiter joins this shard's league (its sampling seed from
        the shard's RNG)."""
        self.league.add_member(self.snapshot_policy(name, weights, self.league.rng.integers(2**62)), name)

    def _begin(self, weights: dict | None, additions) -> None:
        if weights is not None:
            load_weights(self.net, weights)
        for name, w in additions:
            self.add_snapshot(name, w)
        self.league.forget_unused(self.rollout.assign.opponent)

    # --- restorable state ----------------------------------------------------------------------

    def get_state(self) -> dict:
        """Everything a rollout mutates, without the network weights (small: the game states)."""
        return {"index": self.index, "rollout": self.rollout.get_state(), "sampler": self.sampler_state()}

    def set_state(self, state: dict, snapshots: dict) -> None:
        """Restore :meth:`get_state`; ``snapshots``: ``{id: (name, weights)}`` of the live snapshots."""
        if state["index"] != self.index:
            raise ValueError(f"state of shard {state['index']} given to shard {self.index}")
        self.rollout.set_state(state["rollout"], lambda k, name: self.snapshot_policy(name, snapshots[k][1], 0))
        self.set_sampler_state(state["sampler"])


# --- collectors --------------------------------------------------------------------------------


class LocalCollector:
    """The shards in the learner's process, one after the other, on the learner's network."""

    kind = "local"

    def __init__(self, shard_cls, cfg, net: torch.nn.Module, start_update: int = 1, snapshots=(), snapshot_weights=None):
        self.shards = [shard_cls(cfg, i, start_update, snapshots, net=net, device=cfg.device)
                       for i in range(cfg.collector.num_workers)]
        self.workers = self.shards
        self.restarts = 0

    def collect(self, net: torch.nn.Module, additions: Iterable[tuple[str, Mapping[str, Any]]] = (),
                **kwargs: Any) -> list:
        """Every shard's batch, in shard order (``kwargs``: the algorithm's, e.g. DQN's epsilon)."""
        additions = [(name, weights_to_numpy(sd)) for name, sd in additions]
        return [s.collect(None, additions, **kwargs) for s in self.shards]

    def get_state(self) -> list[dict]:
        """Every shard's :meth:`Shard.get_state` (for checkpoints)."""
        return [s.get_state() for s in self.shards]

    def set_state(self, states: list[dict], snapshots: dict) -> None:
        """Restore :meth:`get_state`; ``snapshots``: ``{id: (name, state_dict)}`` of the live snapshots."""
        _check_states(states, len(self.shards))
        weights = {k: (n, weights_to_numpy(sd)) for k, (n, sd) in snapshots.items()}
        for shard, state in zip(self.shards, states, strict=True):
            shard.set_state(state, weights)

    def close(self) -> None:
        pass


def _check_states(states, n: int) -> None:
    if not isinstance(states, list) or len(states) != n or any(s is None for s in states):
        got = len(states) if isinstance(states, list) else type(states).__name__
        raise ValueError(f"saved collector state has {got} shard states, this run has {n} shards "
                         f"(collector.num_workers must not change on resume)")


class _RemoteShards:
    """What the collectors whose shards live in other processes (:class:`ProcessCollector`,
    :class:`RayCollector`) share: ``self.states``, each shard's state as it came back with its last
    batch (the checkpoint's collector state and where a restarted worker starts from), and
    ``self.snapshot_weights``, the learner league's lookup of snapshot weights by id."""

    workers: list
    states: list
    snapshot_weights = None

    def get_state(self) -> list[dict | None]:
        """Each shard's state after its last batch (for checkpoints)."""
        return list(self.states)

    def set_state(self, states: list[dict], snapshots: dict) -> None:
        """Restore :meth:`get_state` in the workers; ``snapshots``: ``{id: (name, state_dict)}``.
        The state of a run saved before its first rollout restores nothing (fresh workers are that
        state); ValueError for states that do not fit these workers."""
        if isinstance(states, list) and len(states) == len(self.workers) and all(s is None for s in states):
            return
        _check_states(states, len(self.workers))
        weights = {k: (n, weights_to_numpy(sd)) for k, (n, sd) in snapshots.items()}
        self._send_states(states, weights)
        self.states = list(states)

    def _send_states(self, states: list[dict], weights: dict) -> None:  # pragma: no cover - abstract
        """Set each worker's shard to its state of ``states``; ``weights``: ``{id: (name, numpy weights)}``."""
        raise NotImplementedError

    def _kept(self, i: int, batch):
        """``batch``, shard ``i``'s, without its state, which is kept in ``self.states[i]``."""
        self.states[i], batch.state = batch.state, None
        return batch

    def _restart_snapshots(self, state: dict) -> dict:
        """``{id: (name, numpy weights)}`` of the snapshots the league of a shard ``state`` still holds
        (what a worker started again from that state must rebuild)."""
        league = state["rollout"]["league"]
        live = [k for k in league["live"] if k not in league["bot_ids"]]
        sd = self.snapshot_weights(live) if live else {}
        return {k: (n, weights_to_numpy(w)) for k, (n, w) in sd.items()}


# --- worker processes --------------------------------------------------------------------------


class WorkerDied(RuntimeError):
    """A :class:`ProcessCollector` worker is gone: its socket hit EOF or broke, or its process exited."""


def _frames(message) -> list[memoryview]:
    """``message`` pickled for :func:`_write_message`: protocol 5 with the memory of numpy arrays
    out of band, so that it is sent from where it lies and received straight into the arrays'
    new memory, with no copy into or out of one big pickle (measured on a 54 MB batch: 20-60 ms
    for the learner to receive it, against 150-190 ms through a ``multiprocessing`` Pipe)."""
    buffers: list = []
    head = pickle.dumps(message, protocol=5, buffer_callback=buffers.append)
    return [memoryview(head), *(b.raw() for b in buffers)]


def _write_message(sock, frames: list[memoryview]) -> None:
    """Send :func:`_frames`: their count and sizes (unsigned 64-bit, big-endian), then each frame."""
    sock.sendall(struct.pack(f"!{len(frames) + 1}Q", len(frames), *(f.nbytes for f in frames)))
    for f in frames:
        sock.sendall(f)


def _read_exactly(sock, size: int) -> np.ndarray:
    buf = np.empty(size, dtype=np.uint8)  # not zeroed: every byte is written by the socket
    view, got = memoryview(buf), 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            raise EOFError("the other end of the socket is closed")
        got += n
    return buf


def _read_message(sock):
    """The message of one :func:`_write_message`; EOFError when the other end closed."""
    (count,) = struct.unpack("!Q", _read_exactly(sock, 8))
    head, *buffers = (_read_exactly(sock, size) for size in struct.unpack(f"!{count}Q", _read_exactly(sock, 8 * count)))
    return pickle.loads(head, buffers=buffers)


def _readable(sock, timeout: float) -> bool:
    return bool(multiprocessing.connection.wait([sock], timeout))


@contextlib.contextmanager
def _worker_environment():
    """``OMP_WAIT_POLICY=PASSIVE`` (unless already set) in the environment a worker process starts
    with, and only there.

    Idle OpenMP threads otherwise spin-wait for the next parallel region and take CPU time the
    other processes need. It must be in the environment before the worker imports torch (OpenMP
    reads it when it is loaded), and the worker imports torch while it unpickles its target
    (:func:`_worker_loop` lives in this module, which imports torch), before any of its own code
    runs: so the learner sets it for the start. The learner's own torch is already loaded, so the
    variable is removed again rather than left to other child processes."""
    added = "OMP_WAIT_POLICY" not in os.environ
    if added:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        yield
    finally:
        if added:
            os.environ.pop("OMP_WAIT_POLICY", None)


def _worker_loop(sock, shard_cls, cfg, index: int, start_update: int, snapshots, parent_pid: int) -> None:
    """The body of a :class:`ProcessCollector` worker: builds ``shard_cls(cfg, index, start_update,
    snapshots)`` on the CPU and answers the learner's requests on ``sock`` one at a time until told
    to stop or the learner is gone.

    A request is a message (:func:`_write_message`) ``(op, args)``: ``("collect", (weights,
    additions, kwargs))`` is answered with the shard's batch, its state included
    (``want_state=True``); ``("set_state", (state, snapshots))`` with None; ``("stop", None)`` ends
    the loop without an answer. An answer is ``("ok", value)``, or ``("error", traceback)`` when the
    shard raised (the worker lives on). The worker returns when the learner's end of the socket
    closes (EOF, a broken pipe) or its parent is no longer ``parent_pid`` (the learner died and its
    end survives in some other process)."""
    # Ctrl-C reaches the whole process group: the learner decides what happens (finish the update,
    # checkpoint, close the collector), so a worker must not die of it halfway through a batch.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The workers are the parallelism: one thread each, so that num_workers workers use
    # num_workers cores instead of each one spreading over all of them and fighting the others.
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True, warn_only=True)
    shard, failure = None, None
    try:
        shard = shard_cls(cfg, index, start_update, snapshots)
    except Exception:  # noqa: BLE001 - the answer to every request: the learner raises it
        failure = traceback.format_exc()
    while True:
        try:
            while not _readable(sock, 1.0):
                if os.getppid() != parent_pid:
                    return
            op, args = _read_message(sock)
        except (EOFError, OSError):
            return
        if op == "stop":
            return
        try:
            if failure is not None:
                raise RuntimeError(f"the shard could not be built:\n{failure}")
            if op == "collect":
                weights, additions, kwargs = args
                frames = _frames(("ok", shard.collect(weights, additions, True, **kwargs)))
            elif op == "set_state":
                frames = _frames(("ok", shard.set_state(*args)))
            else:
                raise ValueError(f"unknown request {op!r}")
        except Exception:  # noqa: BLE001 - the learner raises it with this traceback
            frames = _frames(("error", traceback.format_exc()))
        try:
            _write_message(sock, frames)
        except OSError:
            return


class ProcessCollector(_RemoteShards):
    """One worker process per shard on this machine (:attr:`workers`: their
    :class:`multiprocessing.Process`); restarts dead ones.

    The workers are started with the spawn method (a fresh interpreter: no copy of the learner's
    torch threads or open files), as daemons, and each holds the only other end of its socket, so
    its death is an EOF here and the learner's death an EOF there. Everything crosses the sockets
    pickled (numpy arrays out of band, :func:`_frames`): per update the weights (pickled once, the
    same bytes to every worker) and each shard's batch and state back (about 45 MB per shard for
    ``configs/ppo_hollywood.yaml``: tens of ms each, against seconds of collection).

    The semantics are :class:`RayCollector`'s: each worker builds ``shard_cls(cfg, index,
    start_update, snapshots)`` on the CPU; :meth:`collect` sends every worker the same request, they
    collect in parallel and the batches are gathered in shard order; the shard states that come
    back with them are :meth:`get_state`. A worker found dead (EOF or a broken pipe on its socket,
    or its process no longer alive) is killed, started again from its last state with the
    snapshots its league holds, and collects the update again (:attr:`restarts` counts these);
    more than ``collector.max_restarts`` restarts of one worker within one update raise
    RuntimeError. A shard that raises is a RuntimeError with the worker's traceback (not a
    restart); the collector is then only good for :meth:`close`. :meth:`close` stops the workers
    (a stop request, then terminate if they do not end) and reaps them.

    A worker runs one torch thread whatever ``torch_threads`` says (that is the learner's), where
    local shards and Ray actors run ``torch_threads``: with ``torch_threads: 1`` the runs are
    identical to theirs; with more, a CPU matrix product can differ from theirs in its last bits
    (measured: 1 of 12 forward passes of a 256x256 network), and from there the runs go their own
    ways, as two seeds would."""

    kind = "process"

    def __init__(self, shard_cls, cfg, net: torch.nn.Module | None = None, start_update: int = 1, snapshots=(),
                 snapshot_weights=None):
        n = cfg.collector.num_workers
        self.cfg, self.shard_cls, self.start_update = cfg, shard_cls, start_update
        self.snapshot_weights = snapshot_weights  # ids -> {id: (name, state_dict)}, from the learner's league
        self.context = multiprocessing.get_context("spawn")
        self.initial = [(name, weights_to_numpy(sd)) for name, sd in snapshots]
        self.workers: list = [None] * n
        self.socks: list = [None] * n
        self.busy = [False] * n  # a request sent and its answer not read yet
        self.states: list[dict | None] = [None] * n  # each shard's state after its last batch
        self.restarts = 0
        try:
            for i in range(n):
                self._spawn(i)
        except BaseException:
            self.close()
            raise

    def _spawn(self, i: int) -> None:
        here, there = socket.socketpair()
        args = (there, self.shard_cls, self.cfg, i, self.start_update, self.initial, os.getpid())
        p = self.context.Process(target=_worker_loop, args=args, name=f"rollout-worker-{i}", daemon=True)
        try:
            with _worker_environment():
                p.start()
        except BaseException:
            here.close()
            raise
        finally:
            there.close()  # the worker's end lives only in the worker: its death is an EOF on ours
        self.workers[i], self.socks[i], self.busy[i] = p, here, False

    def _died(self, i: int, error: Exception) -> WorkerDied:
        p = self.workers[i]
        p.join(1.0)  # reaped if it is exiting: its exit code says how it ended
        how = "killed by signal " + str(-p.exitcode) if p.exitcode and p.exitcode < 0 else f"exit code {p.exitcode}"
        return WorkerDied(f"rollout worker {i} (pid {p.pid}) died: {type(error).__name__} on its socket, {how}")

    def _send(self, i: int, frames: list[memoryview]) -> None:
        try:
            _write_message(self.socks[i], frames)
        except OSError as e:  # BrokenPipeError, ConnectionResetError
            raise self._died(i, e) from e
        self.busy[i] = True

    def _receive(self, i: int):
        p, sock = self.workers[i], self.socks[i]
        try:
            while not _readable(sock, 1.0):
                if not p.is_alive():
                    raise EOFError("the process exited")
            status, value = _read_message(sock)
        except (EOFError, OSError) as e:
            raise self._died(i, e) from e
        self.busy[i] = False
        if status == "error":
            raise RuntimeError(f"rollout worker {i} failed:\n{value}")
        return value

    def _end(self, i: int, timeout: float) -> None:
        """Wait ``timeout`` s for worker ``i`` to exit, then terminate (and kill) it; reaped either way."""
        p = self.workers[i]
        p.join(timeout)
        if p.is_alive():
            p.terminate()
            p.join(5.0)
        if p.is_alive():
            p.kill()
            p.join()
        self.socks[i].close()

    def _restart(self, i: int, error: Exception) -> None:
        self.restarts += 1
        log.warning("rollout worker %d died (%s); restarting it from its last state and collecting its games "
                    "again (%d restart(s) so far)", i, error, self.restarts)
        self._end(i, 0.0)
        self._spawn(i)
        state = self.states[i]
        if state is not None:  # None: it died in its first update, a fresh worker is its initial state
            self._send(i, _frames(("set_state", (state, self._restart_snapshots(state)))))
            self._receive(i)

    def collect(self, net: torch.nn.Module, additions: Iterable[tuple[str, Mapping[str, Any]]] = (),
                **kwargs: Any) -> list:
        """Every shard's batch, in shard order (``kwargs``: the algorithm's, e.g. DQN's epsilon)."""
        request = _frames(("collect", (weights_to_numpy(net.state_dict()),
                                       [(name, weights_to_numpy(sd)) for name, sd in additions], kwargs)))
        failed: dict[int, WorkerDied] = {}
        for i in range(len(self.workers)):  # all of them at work before the first answer is awaited
            try:
                self._send(i, request)
            except WorkerDied as e:
                failed[i] = e
        out = []
        for i in range(len(self.workers)):
            tries = 0
            while True:
                try:
                    if i in failed:
                        raise failed.pop(i)
                    b = self._receive(i)
                    break
                except WorkerDied as e:
                    tries += 1
                    if tries > self.cfg.collector.max_restarts:
                        raise RuntimeError(f"rollout worker {i} died {tries} times in one update; giving up "
                                           f"(the last time: {e}; a worker's traceback, if any, is on stderr)") from e
                    try:
                        self._restart(i, e)
                        self._send(i, request)
                    except WorkerDied as again:  # died again while being restored: one more try
                        failed[i] = again
            out.append(self._kept(i, b))
        return out

    def _send_states(self, states: list[dict], weights: dict) -> None:
        for i, state in enumerate(states):
            self._send(i, _frames(("set_state", (state, weights))))
        for i in range(len(self.workers)):
            self._receive(i)

    def close(self) -> None:
        """Stop every worker: idle ones are asked to (and get 10 s), busy ones (a request in flight,
        as after an interrupt) are terminated at once; every process is reaped. Idempotent."""
        for i, p in enumerate(self.workers):
            if p is not None and p.exitcode is None and not self.busy[i]:
                try:
                    _write_message(self.socks[i], _frames(("stop", None)))
                except OSError:
                    pass
        for i, p in enumerate(self.workers):
            if p is not None:
                self._end(i, 0.0 if self.busy[i] else 10.0)


class ShardActor:
    """The Ray actor around a :class:`Shard` (a process of its own, with the run's torch threads)."""

    def __init__(self, shard_cls, cfg, index: int, start_update: int, snapshots):
        torch.set_num_threads(max(1, int(cfg.torch_threads)))
        torch.use_deterministic_algorithms(True, warn_only=True)
        self.shard = shard_cls(cfg, index, start_update, snapshots)

    def collect(self, broadcast: tuple, want_state: bool = True) -> Any:
        weights, additions, kwargs = broadcast
        return self.shard.collect(weights, additions, want_state, **kwargs)

    def set_state(self, state: dict, snapshots: dict) -> None:
        self.shard.set_state(state, snapshots)

    def pid(self) -> int:
        return os.getpid()


class RayCollector(_RemoteShards):
    """One Ray actor per shard (:attr:`workers` holds their handles); restarts dead ones."""

    kind = "ray"

    def __init__(self, shard_cls, cfg, net: torch.nn.Module | None = None, start_update: int = 1, snapshots=(),
                 snapshot_weights=None):
        from agents.rl.ray_support import init_ray, require_ray

        ray = require_ray()
        cc = cfg.collector
        self.ray, self.cfg, self.start_update, self.shard_cls = ray, cfg, start_update, shard_cls
        self.snapshot_weights = snapshot_weights  # ids -> {id: (name, state_dict)}, from the learner's league
        self.owns_ray = init_ray(cc.ray_address, cc.num_cpus)
        self.actor_cls = ray.remote(num_cpus=cc.cpus_per_worker, max_restarts=0, max_task_retries=0)(ShardActor)
        self.initial = ray.put([(name, weights_to_numpy(sd)) for name, sd in snapshots])
        self.workers = [self._spawn(i) for i in range(cc.num_workers)]
        self.states: list[dict | None] = [None] * cc.num_workers  # each shard's state after its last batch
        self.restarts = 0

    def _spawn(self, i: int):
        return self.actor_cls.remote(self.shard_cls, self.cfg, i, self.start_update, self.initial)

    def _restart(self, i: int, error: Exception):
        ray = self.ray
        self.restarts += 1
        log.warning("rollout worker %d died (%s); restarting it from its last state and collecting its games "
                    "again (%d restart(s) so far)", i, type(error).__name__, self.restarts)
        try:
            ray.kill(self.workers[i], no_restart=True)
        except Exception:  # noqa: BLE001 - already gone
            pass
        self.workers[i] = self._spawn(i)
        state = self.states[i]
        if state is not None:  # None: it died in its first update, a fresh actor is its initial state
            self.workers[i].set_state.remote(state, self._restart_snapshots(state))

    def collect(self, net: torch.nn.Module, additions: Iterable[tuple[str, Mapping[str, Any]]] = (),
                **kwargs: Any) -> list:
        ray = self.ray
        from ray import exceptions as rex

        dead = tuple(e for e in (rex.RayActorError, getattr(rex, "ActorUnavailableError", None)) if e is not None)
        broadcast = ray.put((weights_to_numpy(net.state_dict()),
                             [(name, weights_to_numpy(sd)) for name, sd in additions], kwargs))
        futures = [w.collect.remote(broadcast) for w in self.workers]
        out = []
        for i, fut in enumerate(futures):
            tries = 0
            while True:
                try:
                    b = ray.get(fut)
                    break
                except dead as e:
                    tries += 1
                    if tries > self.cfg.collector.max_restarts:
                        raise RuntimeError(f"rollout worker {i} died {tries} times in one update; giving up") from e
                    self._restart(i, e)
                    fut = self.workers[i].collect.remote(broadcast)
            out.append(self._kept(i, b))
        return out

    def _send_states(self, states: list[dict], weights: dict) -> None:
        self.ray.get([w.set_state.remote(st, weights) for w, st in zip(self.workers, states, strict=True)])

    def close(self) -> None:
        for w in self.workers:
            try:
                self.ray.kill(w, no_restart=True)
            except Exception:  # noqa: BLE001
                pass
        if self.owns_ray:
            self.ray.shutdown()


def make_collector(shard_cls: type[Shard], cfg: Any, net: torch.nn.Module, start_update: int = 1,
                   snapshots: Iterable[tuple[str, Mapping[str, Any]]] = (),
                   snapshot_weights: Callable[[list[int]], dict] | None = None
                   ) -> LocalCollector | ProcessCollector | RayCollector:
    """The collector of ``cfg.collector.kind`` over shards of the algorithm's ``shard_cls`` (a
    :class:`Shard` subclass). ``snapshots``: ``[(name, state_dict)]`` of the pool at the start (a
    resumed run); ``snapshot_weights(ids) -> {id: (name, state_dict)}`` looks up snapshots in the
    learner's league (for worker restarts)."""
    cls = {"local": LocalCollector, "process": ProcessCollector, "ray": RayCollector}[cfg.collector.kind]
    return cls(shard_cls, cfg, net, start_update, snapshots, snapshot_weights)


def snapshot_weights(league: League, ids: Iterable[int] | None = None) -> dict:
    """``{id: (name, state_dict)}`` of the league's snapshots ``ids`` (default: every snapshot it
    still holds, pool or not), for checkpoints and for shards that must rebuild them."""
    if ids is None:
        ids = [k for k in league.policies if k not in league.bot_ids]
    return {k: (league.names[k], league.policies[k].net.state_dict()) for k in ids}


def open_collector(shard_cls: type[Shard], cfg: Any, net: torch.nn.Module, league: League, start_update: int,
                   saved_state: list[dict] | None = None) -> LocalCollector | ProcessCollector | RayCollector:
    """The run's collector (:func:`agents.rl.collectors.make_collector`) over ``shard_cls`` shards,
    seeded with the learner league's pool; with ``saved_state`` (a checkpoint's) the shards
    continue the saved games."""
    pool = list(snapshot_weights(league, sorted(league.snapshot_ids + league.exploiter_ids)).values())
    collector = make_collector(shard_cls, cfg, net, start_update, pool,
                               snapshot_weights=lambda ids: snapshot_weights(league, ids))
    if saved_state is not None:
        try:
            collector.set_state(saved_state, snapshot_weights(league))
        except BaseException:
            collector.close()
            raise
    return collector
