"""Throughput of the rules core, measured in one process (pin it to one core with ``taskset -c 0``).

Prints a table of decisions per second with uniformly random legal actions, at several batch
sizes, for the core alone ("step" times only the engine, "step+sample" includes drawing the
random legal actions from the mask, "+obs" adds observation encoding), and of deadwood
evaluations per second. When the ``bench`` extra is installed (open_spiel, rlcard) it measures
OpenSpiel's gin_rummy (C++ games through ``pyspiel.evaluate_bots`` with uniform random bots, and
a Python loop reading the observation tensor and legal actions) and RLCard's gin-rummy in the
same run, and prints every figure as a ratio to them.

    python benchmarks/throughput.py [--seconds 3] [--batch-sizes 1 64 1024 4096]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hollywood_env import core, melds
from hollywood_env import observation as obs_mod
from hollywood_env.cards import cards_to_mask


def sample_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row."""
    return np.argmax(rng.random(mask.shape, dtype=np.float32) * mask, axis=1)


def bench_core(batch: int, seconds: float, encode: bool) -> dict:
    rng = np.random.default_rng(0)
    state = core.init(batch, "hollywood", seed=0)
    decisions = 0
    t_step = 0.0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        actions = sample_legal(rng, state.legal_action_mask)
        running = ~state.done
        ts = time.perf_counter()
        core.step(state, actions)
        if encode:
            obs_mod.encode(state)
        t_step += time.perf_counter() - ts
        decisions += int(running.sum())
        if state.done.any():
            core.reset_games(state, state.done)
    total = time.perf_counter() - t0
    return {"decisions": decisions, "per_s_step": decisions / t_step, "per_s_total": decisions / total}


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


def bench_openspiel(seconds: float) -> dict | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(0)
    # mean decisions (non-chance moves) per game, from a Python-loop sample
    n_games, n_dec, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            player = state.current_player()
            np.asarray(state.observation_tensor(player))
            legal = state.legal_actions_mask(player)
            acts = np.flatnonzero(legal)
            state.apply_action(int(acts[rng.integers(len(acts))]))
            n_dec += 1
        n_games += 1
    python_loop = n_dec / (time.perf_counter() - t0)
    per_game = n_dec / n_games
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(2)]
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, int(rng.integers(1 << 30)))
        n += 1
    native = n * per_game / (time.perf_counter() - t0)
    return {"python_loop": python_loop, "native": native, "decisions_per_game": per_game}


def bench_rlcard(seconds: float) -> float | None:
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("gin-rummy", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        trajectories, _ = env.run(is_training=False)
        n += sum(max(0, (len(t) - 1) // 2) for t in trajectories)
    return n / (time.perf_counter() - t0)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 64, 1024, 4096])
    args = parser.parse_args(argv)

    ospiel = bench_openspiel(args.seconds)
    rlc = bench_rlcard(args.seconds)

    def ratios(x: float) -> str:
        parts = []
        if ospiel:
            parts.append(f"{x / ospiel['native']:8.1f}x")
        if rlc:
            parts.append(f"{x / rlc:8.1f}x")
        return " | ".join(parts)

    ratio_head = " | ".join(h for h, on in (("vs OpenSpiel C++", ospiel), ("vs RLCard", rlc)) if on)
    print(f"| measurement | batch | decisions/s (step) | decisions/s (step+sample) |" + (f" {ratio_head} (step+sample) |" if ratio_head else ""))
    print("|---|---:|---:|---:|" + ("---:|" * (bool(ospiel) + bool(rlc))))
    for encode in (False, True):
        for b in args.batch_sizes:
            r = bench_core(b, args.seconds, encode)
            name = "core + observation" if encode else "core"
            print(f"| {name} | {b} | {r['per_s_step']:,.0f} | {r['per_s_total']:,.0f} |" + (f" {ratios(r['per_s_total'])} |" if ratio_head else ""))
    if ospiel:
        print(f"| OpenSpiel gin_rummy, C++ evaluate_bots (random) | 1 | {ospiel['native']:,.0f} | | |")
        print(f"| OpenSpiel gin_rummy, Python loop + obs + mask | 1 | {ospiel['python_loop']:,.0f} | | |")
    else:
        print("| OpenSpiel | - | not installed (pip install '.[bench]') | | |")
    if rlc:
        print(f"| RLCard gin-rummy (random agents) | 1 | {rlc:,.0f} | | |")
    else:
        print("| RLCard | - | not installed (pip install '.[bench]') | | |")
    dw = bench_deadwood(args.seconds)
    print()
    print("| deadwood evaluation | hands/s |")
    print("|---|---:|")
    for size, v in dw.items():
        print(f"| min_deadwood, random {size}-card hands, batches of 20,000 | {v:,.0f} |")


if __name__ == "__main__":
    main()
