"""Throughput of ``proc:`` agents (agents/interop/proc_agent.py): a program on a pipe, in JSON lines.

    python benchmarks/proc_throughput.py                 # 200 and 20 games of eaai, 3 rounds
    python benchmarks/proc_throughput.py --quick         # 1 round

Plays ``proc:python examples/proc/random_client.py`` (its default heuristic: standard library
JSON, one line per request) against the ``simple`` bot, as ``hollywood evaluate`` does
(``agents.matches.play_pairing``, every game where the program is to move in one request), and
prints a Markdown table: the program's decisions per second (the target: 2,000 or more), all
decisions per second, and where the time of the program's side goes: building the decisions
(``decision_messages``), the exchange (JSON encoding, the pipe, the client's work, reading the
answer) and checking the answers. ``simple`` against ``simple`` in process, on the same deals,
is the baseline of the harness alone. Medians over ``--rounds``.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from agents.interop import proc_agent  # noqa: E402
from agents.matches import play_pairing  # noqa: E402
from agents.registry import make_agent  # noqa: E402

CLIENT = os.path.join(ROOT, "examples", "proc", "random_client.py")


class _Timed:
    """Wraps a function and adds up the seconds spent in it."""

    def __init__(self, fn):
        self.fn, self.seconds = fn, 0.0

    def __call__(self, *args, **kwargs):
        t = time.perf_counter()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - t


def run_proc(command: str, rules: str, games: int, seed: int) -> dict:
    """One pairing of ``proc:command`` against simple; decisions and a breakdown of the time."""
    build = _Timed(proc_agent.decision_messages)
    exchange = _Timed(proc_agent.ProcAgent._exchange)
    call = _Timed(proc_agent.ProcAgent.__call__)
    proc_agent.decision_messages = build
    proc_agent.ProcAgent._exchange = lambda self, *a, **k: exchange(self, *a, **k)
    proc_agent.ProcAgent.__call__ = lambda self, *a, **k: call(self, *a, **k)
    try:
        agent = make_agent(f"proc:{command}", rules, seed=seed)
        try:
            exchange.seconds = 0.0  # the hello is start-up, not play
            t = time.perf_counter()
            r = play_pairing(agent, "simple", rules, n_pairs=games // 2, seed=seed)
            dt = time.perf_counter() - t
            requests = agent.requests
        finally:
            agent.close()
    finally:
        proc_agent.decision_messages = build.fn
        proc_agent.ProcAgent._exchange = exchange.fn
        proc_agent.ProcAgent.__call__ = call.fn
    return dict(seconds=dt, proc=r.a_decisions, all=r.decisions, requests=requests, build=build.seconds,
                exchange=exchange.seconds, check=call.seconds - build.seconds - exchange.seconds,
                rest=dt - call.seconds)


def run_inprocess(rules: str, games: int, seed: int) -> dict:
    t = time.perf_counter()
    r = play_pairing("simple", "simple", rules, n_pairs=games // 2, seed=seed)
    return dict(seconds=time.perf_counter() - t, proc=r.a_decisions, all=r.decisions)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules", default="eaai")
    p.add_argument("--games", default="200,20", help="comma-separated game counts (default 200,20)")
    p.add_argument("--rounds", type=int, default=3, help="rounds per row, the median is shown (default 3)")
    p.add_argument("--client", default=f"{sys.executable} {CLIENT}",
                   help="the command after proc: (default: this Python and examples/proc/random_client.py)")
    p.add_argument("--quick", action="store_true", help="one round")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    rounds = 1 if args.quick else args.rounds
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    print(f"# proc: throughput (rules {args.rules}, client `{os.path.relpath(CLIENT, ROOT)}` unless said, "
          f"medians of {rounds} rounds, load average {load:.2f} at the start)\n")
    print("| pairing | games | requests | decisions (program / all) | seconds | program decisions/s | all decisions/s "
          "| building | exchange | checking | engine + simple |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for games in (int(g) for g in args.games.split(",")):
        runs = [run_proc(args.client, args.rules, games, args.seed) for _ in range(rounds)]
        m = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        build, exchange, check, rest = (f"{100 * m[k] / m['seconds']:.0f}%" for k in ("build", "exchange", "check", "rest"))
        print(f"| proc: client vs simple | {games} | {m['requests']:.0f} | {m['proc']:.0f} / {m['all']:.0f} "
              f"| {m['seconds']:.2f} | **{m['proc'] / m['seconds']:,.0f}** | {m['all'] / m['seconds']:,.0f} "
              f"| {build} | {exchange} | {check} | {rest} |", flush=True)
        base = [run_inprocess(args.rules, games, args.seed) for _ in range(rounds)]
        m = {k: statistics.median(r[k] for r in base) for k in base[0]}
        print(f"| simple vs simple in process (baseline) | {games} | | {m['proc']:.0f} / {m['all']:.0f} "
              f"| {m['seconds']:.2f} | {m['proc'] / m['seconds']:,.0f} | {m['all'] / m['seconds']:,.0f} | | | | |",
              flush=True)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end" if hasattr(os, "getloadavg") else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
