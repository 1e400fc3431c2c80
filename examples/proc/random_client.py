"""A hollywood-proc client (protocol: agents/interop/proc_agent.py, docs/evaluation.md).

    hollywood evaluate 'proc:python examples/proc/random_client.py' simple --games 10

Plays a tiny heuristic: big gin or the lowest knock when legal; never takes the discard; else
discards its highest card. ``--random`` plays a random legal action instead. Standard library only.
"""

import json
import random
import sys

RANKS = "A23456789TJQK"


def value(card: str) -> int:
    return min(RANKS.index(card[0]) + 1, 10)


def choose(d: dict, rng: random.Random | None) -> str:
    legal = d["legal"]
    if rng is not None:
        return rng.choice(legal)
    for prefer in ("big gin", "pass", "draw stock"):
        if prefer in legal:
            return prefer
    knocks = [a for a in legal if a.startswith("knock ")]
    if knocks:
        return knocks[0]
    discards = [a for a in legal if a.startswith("discard ")]
    if discards:  # the highest card (ties: the last in the hand's order)
        return max(discards, key=lambda a: value(a.split()[1]))
    return legal[0]


def main() -> None:
    rng = random.Random() if "--random" in sys.argv else None
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            if rng is not None and msg.get("seed") is not None:
                rng.seed(msg["seed"])
            reply = {"type": "hello", "name": "python-example", "version": 1}
        elif msg["type"] == "act":
            reply = {"type": "act", "actions": [choose(d, rng) for d in msg["decisions"]]}
        else:  # bye
            return
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
