"""Golden traces (OpenSpiel's playthroughs): one recorded match per preset, checked byte for byte.

For every preset of :data:`hollywood_env.rules.PRESETS`, ``tests/golden/<preset>.jsonl`` holds one
whole match played through :class:`hollywood_env.SelfPlayBatch` (one game, fixed seed): at every
decision the player to move, the phase, the legal actions, the action taken (and its name), the
observation of the player to move (its exact text in the first ``FULL_OBS_HANDS`` hands, a digest
of its bytes at every decision), both players' rewards, terminated / truncated, and at a hand's
end its events (kind, knocker, winner, points, deadwoods, columns credited, games ended) and the
scoresheet after the hand. Each file starts with a ``#`` header: preset, seed, rules, policy and
the description of every field. ``tests/golden/aec-<preset>.jsonl`` records the same match through the
PettingZoo AEC env (``hollywood_env.env()``): ``env.last()``'s observation, action mask, reward,
termination and truncation, but not its infos (their hand-end content is still being changed).

The test regenerates every trace in memory and compares it with the file, line by line. Any
change of behaviour (dealing, legality, settlement, scoring, observations, rewards) shows up as a
failure naming the first differing line, step and field, and, after a deliberate change, as a
reviewable diff of the golden files::

    python tests/engine/test_golden.py --update     # rewrite tests/golden/*.jsonl, then review git diff

The actions depend only on the legal actions and a ``numpy`` Generator created here (no bot, no
sampler of the package), so that changes to the bots do not churn the golden files; the policy
takes knocks when legal with some probability and otherwise discards a loosely connected high card
(see :func:`choose`), which ends hands in knocks, undercuts, gins and walls across the presets.

The same traces are also replayed through a batch of three games (game 0 of a batch seeded ``s``
plays the cards of a one-game batch seeded ``s``): with one game the core takes its single-game
path, with three the batched one, and both must write the same trace.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import pathlib
import sys

import numpy as np
import pytest

import hollywood_env
from hollywood_env import SelfPlayBatch
from hollywood_env.actions import (
    DRAW_STOCK,
    KIND_NAMES,
    KNOCK,
    PASS,
    PHASE_NAMES,
    TAKE_DISCARD,
    action_name,
)
from hollywood_env.observation import observation_size
from hollywood_env.rules import PRESETS, Rules

GOLDEN_DIR = pathlib.Path(__file__).resolve().parents[1] / "golden"  # tests/golden/
UPDATE_COMMAND = "python tests/engine/test_golden.py --update"
FORMAT_VERSION = 1
REWARD = "hollywood"

#: the seed of each preset's match (also the seed of the policy's Generator), chosen among 0..39
#: for matches of moderate length whose hands end in every way: with seed 21 the hollywood,
#: hollywood-nordic and gin-rummy-simple matches each see a knock, a gin, an undercut and a wall
#: (the file headers count the hand ends). One seed for all presets: their traces start alike,
#: so diffing two presets' files shows what their rules change.
SEEDS = dict.fromkeys(PRESETS, 21)
#: the preset recorded through the PettingZoo AEC env as well
AEC_PRESET = "gin-rummy"
#: hand-end kinds the traces must cover, together (big gin: no preset enables it)
REQUIRED_KINDS = {"knock", "undercut", "gin", "wall"}

#: the observation's text is written for the decisions of the first hands only (then its digest)
FULL_OBS_HANDS = 2
KNOCK_PROBABILITY = 0.6
TAKE_PROBABILITY = 0.3


# --- the policy ------------------------------------------------------------------------------------


def choose(legal: list[int], rng: np.random.Generator) -> int:
    """The action for the legal action ids ``legal`` (sorted), with one ``rng.random()`` draw per
    decision (plus ``rng.integers`` to break ties).

    * a knock (or gin) is legal: knock with probability ``KNOCK_PROBABILITY``, with a random legal
      knock card;
    * otherwise, discard phase: among the cards that may be discarded (the hand, read from the
      mask), the ones with the fewest neighbours (same rank, or same suit within two ranks) in the
      hand, then the highest rank, then at random;
    * draw phase: take the discard with probability ``TAKE_PROBABILITY``, else draw from the stock;
      first upcard: take it with probability ``TAKE_PROBABILITY``, else pass.
    """
    u = rng.random()
    knocks = [a for a in legal if KNOCK <= a < DRAW_STOCK]
    if knocks and u < KNOCK_PROBABILITY:
        return knocks[int(rng.integers(len(knocks)))]
    discards = [a for a in legal if a < KNOCK]
    if discards:
        def neighbours(c: int) -> int:
            rank, suit = c % 13, c // 13
            return sum(1 for d in discards
                       if d != c and (d % 13 == rank or (d // 13 == suit and abs(d % 13 - rank) <= 2)))

        score = [(neighbours(c), -(c % 13)) for c in discards]
        best = min(score)
        candidates = [c for c, s in zip(discards, score, strict=True) if s == best]
        return candidates[int(rng.integers(len(candidates)))]
    if TAKE_DISCARD in legal and u < TAKE_PROBABILITY:
        return TAKE_DISCARD
    for a in (DRAW_STOCK, PASS):
        if a in legal:
            return a
    return legal[int(rng.integers(len(legal)))]


# --- formatting ---------------------------------------------------------------------------------------


def format_obs(obs: np.ndarray) -> str:
    """``"i i i ... | j=v j=v"``: the indices holding exactly 1, then the other non-zero entries
    with the shortest decimal that reads back as the same float32. Every other entry is 0."""
    obs = np.asarray(obs)
    assert obs.dtype == np.float32 and obs.ndim == 1, (obs.dtype, obs.shape)
    nz = np.flatnonzero(obs)
    ones = [str(i) for i in nz if obs[i] == 1.0]
    others = [f"{i}={np.format_float_positional(obs[i], unique=True, trim='-')}" for i in nz if obs[i] != 1.0]
    return " ".join(ones) + " | " + " ".join(others)


def obs_digest(obs: np.ndarray) -> str:
    """The first 16 hex digits of the SHA-256 of the observation's little-endian float32 bytes
    (catches what the text cannot show, such as -0.0)."""
    return hashlib.sha256(np.ascontiguousarray(obs, dtype="<f4").tobytes()).hexdigest()[:16]


def _line(record: dict) -> str:
    return json.dumps(record, separators=(",", ":"))


def _columns(flags) -> list[int]:
    """1-based numbers of the columns set in a bool array."""
    return [int(k) + 1 for k in np.flatnonzero(flags)]


def _header(kind: str, preset: str, seed: int, api: str, recorded: str) -> list[str]:
    rules = Rules.preset(preset)
    return [
        f"# Golden trace ({kind}) of preset {preset!r}, seed {seed}: format {FORMAT_VERSION}, "
        "written by tests/engine/test_golden.py.",
        f"# Regenerate after a deliberate change with `{UPDATE_COMMAND}` and review the diff.",
        f"# api: {api}",
        f"# rules: {json.dumps(rules.to_dict(), sort_keys=True)}",
        f"# reward: {REWARD!r}; observation size {observation_size(rules)} float32",
        f"# policy: tests/engine/test_golden.py choose() with np.random.default_rng({seed}), knock probability "
        f"{KNOCK_PROBABILITY}, take probability {TAKE_PROBABILITY}",
        f"# recorded: {recorded}",
        "# format: lines starting with '#' are this header; then one JSON object per line, keys in this order:",
    ]


def _obs_doc(where: str) -> list[str]:
    return [
        f"#   obs ({where}): the observation (hollywood_env/observation.py) as",
        "#        'i i i ... | j=v j=v': the indices equal to 1, then the other non-zero entries as the shortest",
        "#        decimal that reads back as the same float32; every other entry is 0",
        "#   obs_sha: the first 16 hex digits of sha256 of the observation's little-endian float32 bytes",
    ]


# --- the traces -------------------------------------------------------------------------------------


def selfplay_trace(preset: str, seed: int, num_games: int = 1) -> list[str]:
    """The trace of game 0 of ``SelfPlayBatch(num_games, preset, seed)``, header included. The
    other games (if any) play the same policy with Generators of their own."""
    batch = SelfPlayBatch(num_games=num_games, rules=preset, reward=REWARD, seed=seed)
    rngs = [np.random.default_rng(seed)] + [np.random.default_rng([seed, g]) for g in range(1, num_games)]
    obs, mask, player = batch.reset()
    lines, hands = [], []
    t = 0
    while True:
        actions = np.zeros(num_games, dtype=np.int64)
        for g in range(num_games):
            if g == 0 or not mask[g].all():  # a game waiting for its auto-reset takes any action
                actions[g] = choose([int(a) for a in np.flatnonzero(mask[g])], rngs[g])
        legal = [int(a) for a in np.flatnonzero(mask[0])]
        record = {
            "t": t,
            "player": int(player[0]),
            "phase": PHASE_NAMES[int(batch.state.phase[0])],
            "legal": legal,
            "action": int(actions[0]),
            "name": action_name(actions[0]),
        }
        if len(hands) < FULL_OBS_HANDS:
            record["obs"] = format_obs(obs[0])
        record["obs_sha"] = obs_digest(obs[0])
        obs, mask, player, rewards, terminated, truncated, info = batch.step(actions)
        r = [float(rewards[0, 0]), float(rewards[0, 1])]
        if r != [0.0, 0.0] or any(math.copysign(1.0, x) < 0 for x in r):  # left out when both are +0.0
            record["rewards"] = r
        if terminated[0]:
            record["terminated"] = True
        if truncated[0]:
            record["truncated"] = True
        if info["hand_ended"][0]:
            sheet = batch.state.sheet
            kind = KIND_NAMES[int(info["hand_kind"][0])]
            hands.append(kind)
            record["hand_end"] = {
                "kind": kind,
                "knocker": int(info["hand_knocker"][0]),
                "winner": int(info["hand_winner"][0]),
                "points": int(info["hand_points"][0]),
                "knocker_deadwood": int(info["knocker_deadwood"][0]),
                "defender_deadwood": int(info["defender_deadwood"][0]),
                "columns_credited": _columns(info["columns_credited"][0]),
                "games_ended": _columns(info["games_ended"][0]),
                "match_winner": int(info["match_winner"][0]),
                "sheet": {
                    "columns": sheet.columns[0].tolist(),
                    "hands_scored": sheet.hands_scored[0].tolist(),
                    "game_winner": sheet.game_winner[0].tolist(),
                    "totals": sheet.totals([0])[0].tolist(),
                },
            }
        lines.append(_line(record))
        t += 1
        if terminated[0] or truncated[0]:
            break
    api = (f"hollywood_env.SelfPlayBatch(num_games=1, rules={preset!r}, reward={REWARD!r}, seed={seed}); "
           "reset(), then step() until game 0 is terminated or truncated")
    counts = ", ".join(f"{k} x{hands.count(k)}" for k in KIND_NAMES if k in hands)
    with_text = sum('"obs":' in line for line in lines)
    recorded = (f"{'the whole match' if terminated[0] else 'the match up to its truncation'}: {len(lines)} decisions, "
                f"{len(hands)} hands ({counts}); obs text for decisions 0..{with_text - 1}")
    header = _header("SelfPlayBatch", preset, seed, api, recorded) + [
        "#   t: the decision number; player: the player to move (0 or 1); phase: its phase",
        "#   legal: the legal action ids (hollywood_env/actions.py); action, name: the action taken",
        *_obs_doc(f"first {FULL_OBS_HANDS} hands only, for size"),
        "#   rewards: both players' rewards of this step (float64, exact repr); left out when both are +0.0",
        "#   terminated, truncated: the match ended at this step (true); left out when false",
        "#   hand_end (only at a hand's end): kind, knocker, winner (-1: none), points, knocker_deadwood,",
        "#        defender_deadwood, columns_credited and games_ended (1-based), match_winner (-1: running,",
        "#        2: drawn), sheet: the scoresheet after the hand (columns, hands_scored: [player][column];",
        "#        game_winner: per column, -1 while running; totals: with the bonuses of ended games)",
    ]
    return header + lines


def aec_trace(preset: str, seed: int) -> list[str]:
    """The trace of ``hollywood_env.env(rules=preset, reward=REWARD)`` reset with ``seed``, played
    by the same policy and Generator as :func:`selfplay_trace`."""
    env = hollywood_env.env(rules=preset, reward=REWARD)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = []
    for t, agent in enumerate(env.agent_iter()):
        observation, reward, terminated, truncated, _info = env.last()  # infos: not recorded
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        action = None if terminated or truncated else choose(legal, rng)
        lines.append(_line({
            "t": t,
            "agent": agent,
            "legal": legal,
            "obs": format_obs(observation["observation"]),
            "obs_sha": obs_digest(observation["observation"]),
            "reward": float(reward),
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "action": action,
            "name": None if action is None else action_name(action),
        }))
        env.step(action)
    env.close()
    api = (f"hollywood_env.env(rules={preset!r}, reward={REWARD!r}); reset(seed={seed}); for agent in "
           "agent_iter(): env.last(), then step(action) (None once the agent is done)")
    recorded = f"the whole match (the one of {preset}.jsonl): {len(lines)} iterations"
    header = _header("PettingZoo AEC", preset, seed, api, recorded) + [
        "#   t: the iteration of agent_iter(); agent: the agent env.last() speaks for",
        "#   legal: the action ids set in observation['action_mask']",
        *_obs_doc("every line"),
        "#   reward, terminated, truncated: from env.last() (infos are not recorded)",
        "#   action, name: the action stepped (null once the agent is done)",
    ]
    return header + lines


@functools.cache
def traces() -> dict[str, list[str]]:
    """File name -> the trace's lines, freshly generated."""
    out = {f"{preset}.jsonl": selfplay_trace(preset, SEEDS[preset]) for preset in PRESETS}
    out[f"aec-{AEC_PRESET}.jsonl"] = aec_trace(AEC_PRESET, SEEDS[AEC_PRESET])
    return out


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


# --- comparison ----------------------------------------------------------------------------------------


def _short(value, limit: int = 300) -> str:
    s = json.dumps(value) if not isinstance(value, str) else value
    return s if len(s) <= limit else s[:limit] + f"... ({len(s)} chars)"


def first_difference(expected: list[str], actual: list[str]) -> str | None:
    """A message locating the first line that differs (its step and field), or None."""
    for n, (e, a) in enumerate(zip(expected, actual, strict=False), start=1):
        if e == a:
            continue
        where = f"line {n}"
        if e.startswith("#") or a.startswith("#"):
            return f"{where} (header):\n  expected: {_short(e)}\n  actual:   {_short(a)}"
        try:
            ed, ad = json.loads(e), json.loads(a)
        except ValueError:
            return f"{where}:\n  expected: {_short(e)}\n  actual:   {_short(a)}"
        where += f" (step t={ed.get('t')})"
        for key in list(ed) + [k for k in ad if k not in ed]:
            if key not in ad or key not in ed or ed[key] != ad[key] or json.dumps(ed[key]) != json.dumps(ad[key]):
                return (f"{where}, field {key!r}:\n  expected: {_short(ed.get(key, '<missing>'))}\n"
                        f"  actual:   {_short(ad.get(key, '<missing>'))}")
        return f"{where} (same fields, different text):\n  expected: {_short(e)}\n  actual:   {_short(a)}"
    if len(expected) != len(actual):
        n = min(len(expected), len(actual)) + 1
        extra = expected[n - 1] if len(expected) > len(actual) else actual[n - 1]
        side = "the golden file continues" if len(expected) > len(actual) else "the new trace continues"
        return f"line {n}: {side} ({len(expected)} lines expected, {len(actual)} generated): {_short(extra)}"
    return None


def _check(name: str, actual: list[str]) -> None:
    path = GOLDEN_DIR / name
    if not path.exists():
        pytest.fail(f"missing golden file {path}; create it with `{UPDATE_COMMAND}`")
    text = path.read_text(encoding="utf-8")
    if text == _text(actual):
        return
    diff = first_difference(text.splitlines(), actual) or "line endings or trailing text differ"
    pytest.fail(f"golden trace tests/golden/{name} differs at {diff}\n"
                f"If the change of behaviour is deliberate, regenerate with `{UPDATE_COMMAND}` and review the diff.",
                pytrace=False)


# --- tests -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_selfplay_golden(preset):
    _check(f"{preset}.jsonl", traces()[f"{preset}.jsonl"])


def test_aec_golden():
    _check(f"aec-{AEC_PRESET}.jsonl", traces()[f"aec-{AEC_PRESET}.jsonl"])


@pytest.mark.parametrize("preset", list(PRESETS))
def test_batched_path_writes_the_same_trace(preset):
    """Game 0 of a three-game batch (the core's batched path) writes the one-game trace."""
    single = traces()[f"{preset}.jsonl"]
    batched = selfplay_trace(preset, SEEDS[preset], num_games=3)
    diff = first_difference(single, batched)
    assert diff is None, f"three-game batch vs one game, {preset}: {diff}"


def test_traces_cover_every_hand_end_and_finish_their_matches():
    kinds = set()
    for name, lines in traces().items():
        steps = [json.loads(s) for s in lines if not s.startswith("#")]
        if name.startswith("aec-"):
            assert steps[-1]["terminated"], name
            continue
        assert steps[-1].get("terminated") and not steps[-1].get("truncated"), f"{name}: the match must end"
        ends = [s["hand_end"] for s in steps if "hand_end" in s]
        assert ends and ends[-1]["match_winner"] in (0, 1, 2), name
        kinds |= {e["kind"] for e in ends}
    missing = REQUIRED_KINDS - kinds
    assert not missing, f"no golden trace ends a hand in {sorted(missing)}: choose other SEEDS"


def test_aec_trace_matches_the_selfplay_trace():
    """The AEC env, seeded alike and played alike, shows the same observations and actions."""
    sp = [json.loads(s) for s in traces()[f"{AEC_PRESET}.jsonl"] if not s.startswith("#")]
    aec = [json.loads(s) for s in traces()[f"aec-{AEC_PRESET}.jsonl"] if not s.startswith("#")]
    acting = [s for s in aec if s["action"] is not None]
    assert [(s["obs_sha"], s["legal"], s["action"]) for s in acting] == \
           [(s["obs_sha"], s["legal"], s["action"]) for s in sp]
    assert f"player_{sp[0]['player']}" == acting[0]["agent"]


# --- regeneration --------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Check or rewrite the golden traces in tests/golden/.")
    parser.add_argument("--update", action="store_true", help="rewrite tests/golden/*.jsonl from the current code")
    args = parser.parse_args(argv)
    generated = traces()
    if args.update:
        GOLDEN_DIR.mkdir(exist_ok=True)
        expected_files = set(generated)
        for stale in sorted(p for p in GOLDEN_DIR.glob("*.jsonl") if p.name not in expected_files):
            stale.unlink()
            print(f"removed {stale}")
        for name, lines in generated.items():
            path = GOLDEN_DIR / name
            text = _text(lines)
            old = path.read_text(encoding="utf-8") if path.exists() else None
            if old != text:
                path.write_text(text, encoding="utf-8")
            print(f"{'unchanged' if old == text else 'wrote'} {path} ({len(text.encode())} bytes)")
        return 0
    failed = 0
    for name, lines in generated.items():
        path = GOLDEN_DIR / name
        if not path.exists():
            diff = "missing file"
        else:
            diff = first_difference(path.read_text(encoding="utf-8").splitlines(), lines)
        print(f"{name}: {'ok' if diff is None else 'DIFFERS at ' + diff}")
        failed += diff is not None
    if failed:
        print(f"regenerate with `{UPDATE_COMMAND}` after a deliberate change")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
