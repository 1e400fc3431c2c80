"""Throughput of the rules core against its peers' fastest paths, side by side in one process.

    taskset -c 0 python benchmarks/throughput.py [--seconds 2] [--rounds 3] [--batch-sizes 1 64 1024 4096]
        [--rollout-widths 64 1024] [--pettingzoo-python PATH]

Every figure is decisions per second: moves chosen by a player (chance moves, such as OpenSpiel's
deals and stock draws, are not counted), with uniformly random legal actions.

Ours (``hollywood`` rules):

* ``core``: ``core.step`` on ``B`` matches at once, actions from
  :func:`hollywood_env.sampling.random_legal_actions`. "step" is the engine's time alone,
  "step+sample" adds drawing the actions; the ratios use step+sample.
* ``core + observation``: the same, plus :func:`hollywood_env.observation.encode` of every game
  after every step, with a ``SheetCache`` as the environments use it.
* ``rollouts``: search-style use. ``W`` copies of one mid-hand position (:func:`core.take`) are
  played with random legal actions until each copy's hand ends (knock, gin or wall); the copies
  that are done wait (``core.step(..., games=...)``). Simulated decisions per second, the copy
  included; each rollout starts from the next of 64 prepared positions.

The peers, each by its fastest documented way:

* OpenSpiel ``gin_rummy``, C++: ``pyspiel.evaluate_bots`` with two uniform random bots, on a
  clone of one prepared initial state (``game.new_initial_state()`` costs more than playing the
  game: building one per game runs 2-3x fewer games; that way is measured too, for reference).
  ``evaluate_bots`` plays the clone to its end in C++; the decisions are counted afterwards from
  its history, outside the timer.
* OpenSpiel ``gin_rummy``, Python loop: a clone of the initial state, then per decision
  ``observation_tensor`` and ``legal_actions`` and ``apply_action`` (chance outcomes sampled
  in Python): what an RL loop over pyspiel costs, to compare with ``core + observation``.
* RLCard ``gin-rummy``: ``env.run`` with ``RandomAgent`` (its documented loop).
* PettingZoo ``gin_rummy_v4`` (an AEC env over RLCard's game; it left PettingZoo in 1.25): only
  with ``--pettingzoo-python``, the interpreter of an environment that has it (see
  ``benchmarks/pettingzoo_worker.py``), in a subprocess timed in the same rounds.

Also printed: the sampler's cost per call against the simple ``argmax(random * mask)`` on the
same legal masks (alternating), and batched ``min_deadwood`` throughput.

Method: ``--rounds`` rounds; in each, every measurement runs for ``--seconds``. The peers that
the ratios use (OpenSpiel C++, RLCard, PettingZoo) run again before every ``--block`` of our
measurements, and each of ours is divided by the peers' figures of its own block, measured
seconds before, so that a slow phase of a shared machine hits both sides of a ratio. The table
gives each figure's median over all its runs, and each ratio is the median of its ratios. The
load average (``os.getloadavg``) is printed before and after. Pin the process to one core
(``taskset -c 0``): numpy and the peers then all run on one core.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from hollywood_env import core, melds  # noqa: E402
from hollywood_env import observation as obs_mod  # noqa: E402
from hollywood_env.cards import cards_to_mask  # noqa: E402
from hollywood_env.sampling import random_legal_actions  # noqa: E402

RULES = "hollywood"


# --- ours ------------------------------------------------------------------------------------


class CoreRun:
    """``core.step`` on ``batch`` matches, with or without observations; resumable."""

    def __init__(self, batch: int, encode: bool):
        self.rng = np.random.default_rng(0)
        self.state = core.init(batch, RULES, seed=0)
        self.encode = encode
        self.cache = obs_mod.SheetCache()
        self(0.05)  # warm up

    def __call__(self, seconds: float) -> tuple[float, float]:
        state, rng, batch = self.state, self.rng, self.state.batch_size
        decisions, t_step = 0, 0.0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            actions = random_legal_actions(state.legal_action_mask, rng)
            ts = time.perf_counter()
            core.step(state, actions)
            if self.encode:
                obs_mod.encode(state, sheet_cache=self.cache)
            t_step += time.perf_counter() - ts
            decisions += batch  # every game was running: finished matches restart right away
            done = state.terminated | state.truncated
            if np.count_nonzero(done):
                core.reset_games(state, done)
        return decisions / t_step, decisions / (time.perf_counter() - t0)


class RolloutRun:
    """``width`` copies of one position rolled out to the hand's end, position after position."""

    def __init__(self, width: int):
        self.rng = np.random.default_rng(1)
        self.width = width
        # 64 mid-hand positions: random play for 6..40 decisions, no hand ended yet
        rng = np.random.default_rng(2)
        state = core.init(64, RULES, seed=2)
        target = rng.integers(6, 41, 64)
        for _t in range(40):
            going = (state.step_count < target) & (state.hand_number == 0)
            core.step(state, random_legal_actions(state.legal_action_mask, rng), games=going)
        self.positions = core.take(state, np.flatnonzero(state.hand_number == 0))
        self.next = 0
        self(0.05)

    def __call__(self, seconds: float) -> tuple[float, float]:
        rng, w = self.rng, self.width
        decisions, t_step = 0, 0.0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            roll = core.take(self.positions, np.full(w, self.next % self.positions.batch_size))
            self.next += 1
            hand = roll.hand_number[0]
            going = np.ones(w, dtype=bool)
            while True:
                actions = random_legal_actions(roll.legal_action_mask, rng)
                ts = time.perf_counter()
                core.step(roll, actions, games=going)
                t_step += time.perf_counter() - ts
                decisions += int(going.sum())
                going &= (roll.hand_number == hand) & ~roll.done
                if not going.any():
                    break
        return decisions / t_step, decisions / (time.perf_counter() - t0)


def bench_sampler(batch: int, seconds: float, rounds: int) -> tuple[float, float]:
    """Microseconds per call: :func:`random_legal_actions` and ``argmax(random * mask)`` (the
    simple method) on the same legal masks of ``batch`` games, alternating."""
    rng = np.random.default_rng(3)
    state = core.init(batch, RULES, seed=3)
    masks = []
    for _ in range(64):
        masks.append(state.legal_action_mask.copy())
        core.step(state, random_legal_actions(state.legal_action_mask, rng))
        done = state.terminated | state.truncated
        if done.any():
            core.reset_games(state, done)

    def simple(mask):
        return np.argmax(rng.random(mask.shape, dtype=np.float32) * mask, axis=1)

    fast_t, simple_t = [], []
    for _ in range(rounds):
        for f, out in ((lambda m: random_legal_actions(m, rng), fast_t), (simple, simple_t)):
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < seconds / 2:
                f(masks[n % len(masks)])
                n += 1
            out.append((time.perf_counter() - t0) / n * 1e6)
    return float(np.median(fast_t)), float(np.median(simple_t))


def bench_deadwood(seconds: float) -> dict:
    rng = np.random.default_rng(0)
    out = {}
    for size in (10, 11):
        hands = np.array([cards_to_mask(rng.choice(52, size, replace=False)) for _ in range(20000)], dtype=np.uint64)
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds / 2:
            melds.min_deadwood_masks(hands)
            n += hands.size
        out[size] = n / (time.perf_counter() - t0)
    return out


# --- the peers -------------------------------------------------------------------------------


class OpenSpielCpp:
    """``pyspiel.evaluate_bots`` with uniform random bots, on a clone of one initial state (or,
    with ``fresh``, on ``game.new_initial_state()`` each game)."""

    def __init__(self, fresh: bool = False):
        import pyspiel

        self.pyspiel = pyspiel
        self.game = pyspiel.load_game("gin_rummy")
        self.initial = self.game.new_initial_state()
        self.bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(2)]
        self.rng = np.random.default_rng(0)
        self.fresh = fresh

    def __call__(self, seconds: float) -> float:
        decisions, t = 0, 0.0
        while t < seconds:
            t0 = time.perf_counter()
            state = self.game.new_initial_state() if self.fresh else self.initial.clone()
            self.pyspiel.evaluate_bots(state, self.bots, int(self.rng.integers(1 << 30)))  # plays `state` to its end
            t += time.perf_counter() - t0
            decisions += sum(1 for h in state.full_history() if h.player >= 0)
        return decisions / t


class OpenSpielPython:
    """A Python loop over pyspiel: observation tensor, legal actions and a random move per decision."""

    def __init__(self):
        import pyspiel

        self.game = pyspiel.load_game("gin_rummy")
        self.initial = self.game.new_initial_state()
        self.rng = np.random.default_rng(0)

    def __call__(self, seconds: float) -> float:
        rng = self.rng
        decisions, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            state = self.initial.clone()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                    continue
                player = state.current_player()
                np.asarray(state.observation_tensor(player), dtype=np.float32)
                legal = state.legal_actions(player)
                state.apply_action(legal[rng.integers(len(legal))])
                decisions += 1
        return decisions / (time.perf_counter() - t0)


class RLCardRun:
    def __init__(self):
        import rlcard
        from rlcard.agents import RandomAgent

        self.env = rlcard.make("gin-rummy", config={"seed": 0})
        self.env.set_agents([RandomAgent(num_actions=self.env.num_actions) for _ in range(self.env.num_players)])

    def __call__(self, seconds: float) -> float:
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            trajectories, _ = self.env.run(is_training=False)
            n += sum(max(0, (len(t) - 1) // 2) for t in trajectories)  # (state, action, ..., state)
        return n / (time.perf_counter() - t0)


class PettingZooRun:
    """gin_rummy_v4 in a worker process of another interpreter (benchmarks/pettingzoo_worker.py)."""

    def __init__(self, python: str):
        worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pettingzoo_worker.py")
        cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        self.proc = subprocess.Popen([python, worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                                     preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
        ready = self.proc.stdout.readline().strip()
        if ready != "ready":
            raise RuntimeError(f"the PettingZoo worker did not start ({python}): {ready!r}")

    def __call__(self, seconds: float) -> float:
        self.proc.stdin.write(f"{seconds}\n")
        return float(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def optional(make, name: str, notes: list):
    try:
        return make()
    except ImportError as e:
        notes.append(f"{name}: not installed ({e.name}); pip install -e '.[bench]'")
    except (OSError, RuntimeError) as e:
        notes.append(f"{name}: not measured ({e})")
    return None


# --- the run ---------------------------------------------------------------------------------


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; figures are medians over them")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 64, 1024, 4096])
    parser.add_argument("--rollout-widths", type=int, nargs="*", default=[64, 1024])
    parser.add_argument("--block", type=int, default=3, help="our measurements between two runs of the peers")
    parser.add_argument("--pettingzoo-python", default=None,
                        help="interpreter of an environment with pettingzoo<1.25 (gin_rummy_v4)")
    args = parser.parse_args(argv)

    notes: list[str] = []
    peers = {}
    peers["os_cpp"] = optional(OpenSpielCpp, "OpenSpiel", notes)
    if peers["os_cpp"] is not None:
        peers["os_cpp_fresh"] = OpenSpielCpp(fresh=True)
        peers["os_py"] = OpenSpielPython()
    peers["rlcard"] = optional(RLCardRun, "RLCard", notes)
    if args.pettingzoo_python:
        peers["pz"] = optional(lambda: PettingZooRun(args.pettingzoo_python), "PettingZoo gin_rummy_v4", notes)
    else:
        notes.append("PettingZoo gin_rummy_v4: not measured (--pettingzoo-python PATH, see benchmarks/pettingzoo_worker.py)")
    peers = {k: v for k, v in peers.items() if v is not None}

    ours = {}
    for encode in (False, True):
        for b in args.batch_sizes:
            ours[("core + observation" if encode else "core", b)] = CoreRun(b, encode)
    for w in args.rollout_widths:
        ours[("rollouts: W copies of one position to the hand's end", w)] = RolloutRun(w)

    load_before = os.getloadavg()
    peer_res = {k: [] for k in peers}
    our_res = {k: [] for k in ours}
    ratio_peers = [k for k in ("os_cpp", "rlcard", "pz") if k in peers]
    ratios = {(k, p): [] for k in ours for p in ratio_peers}
    keys = list(ours)
    blocks = [keys[i:i + args.block] for i in range(0, len(keys), args.block)]
    for r in range(args.rounds):
        for k in peers:  # the peers that no ratio uses: once a round
            if k not in ratio_peers:
                peer_res[k].append(peers[k](args.seconds))
        for block in blocks:  # the ratio peers, then a few of ours, again and again
            near = {}
            for p in ratio_peers:
                near[p] = peers[p](args.seconds)
                peer_res[p].append(near[p])
            for k in block:
                step, total = ours[k](args.seconds)
                our_res[k].append((step, total))
                for p in ratio_peers:
                    ratios[k, p].append(total / near[p])
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    if "pz" in peers:
        peers["pz"].close()

    med = lambda xs: float(np.median(xs))  # noqa: E731
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(f"numpy {np.__version__}, Python {platform.python_version()}, CPUs {cpus}; {args.rounds} rounds x "
          f"{args.seconds:g} s per measurement; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print()
    heads = {"os_cpp": "vs OpenSpiel C++", "rlcard": "vs RLCard", "pz": "vs PettingZoo"}
    print("| measurement | batch | decisions/s (step) | decisions/s (step+sample) |"
          + "".join(f" {heads[p]} |" for p in ratio_peers))
    print("|---|---:|---:|---:|" + "---:|" * len(ratio_peers))
    for (name, b), res in our_res.items():
        step, total = med([x[0] for x in res]), med([x[1] for x in res])
        print(f"| {name} | {b} | {step:,.0f} | {total:,.0f} |"
              + "".join(f" {med(ratios[(name, b), p]):.1f}x |" for p in ratio_peers))
    labels = {
        "os_cpp": "OpenSpiel gin_rummy, C++ `evaluate_bots` on a cloned initial state (random bots)",
        "os_cpp_fresh": "OpenSpiel gin_rummy, C++ `evaluate_bots` on `new_initial_state()` each game",
        "os_py": "OpenSpiel gin_rummy, Python loop on a cloned state + observation + legal actions",
        "rlcard": "RLCard gin-rummy, `env.run` (random agents)",
        "pz": "PettingZoo gin_rummy_v4 (1.24.3), AEC loop (random legal actions)",
    }
    for k, res in peer_res.items():
        print(f"| {labels[k]} | 1 | | {med(res):,.0f} |" + " |" * len(ratio_peers))
    for n in notes:
        print(f"| {n} | | | |" + " |" * len(ratio_peers))
    print()
    print("| sampling random legal actions | batch | us per call, `sampling.random_legal_actions` "
          "| us per call, `argmax(random * mask)` |")
    print("|---|---:|---:|---:|")
    for b in args.batch_sizes:
        fast, simple = bench_sampler(b, args.seconds / 2, args.rounds)
        print(f"| legal masks of random play | {b} | {fast:,.1f} | {simple:,.1f} |")
    dw = bench_deadwood(args.seconds)
    print()
    print("| deadwood evaluation | hands/s |")
    print("|---|---:|")
    for size, v in dw.items():
        print(f"| min_deadwood, random {size}-card hands, batches of 20,000 | {v:,.0f} |")


if __name__ == "__main__":
    main()
