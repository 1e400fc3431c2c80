"""Agreement of our ``simple`` bot with OpenSpiel's ``SimpleGinRummyBot`` on OpenSpiel games.

    python -m experiments.research.openspiel_agreement                 # 400 games (about a minute)
    python -m experiments.research.openspiel_agreement --games 50 --show 10

Plays ``gin_rummy`` games in OpenSpiel (``pip install '.[bench]'``) with OpenSpiel's simple bot in
both seats (``--epsilon``: each move is uniform random with this probability instead, so that
the positions are not only the bot's own), and at every decision of the bot asks our
:class:`agents.bots.SimpleBot` the same question, from the same position translated into our
observation and legal-action mask (OpenSpiel's cards are ``suit * 13 + rank`` with suits
``s c d h``, ours with suits ``c d h s``). Compared: the first-upcard and draw decisions, and the
discard decisions, a knock (OpenSpiel's knock action followed by its discard) counting as our
``KNOCK + card``. Not compared: decisions with one legal action, the wall (OpenSpiel asks at two
cards in the stock, our rules end the hand there) and laying off. Prints the agreement and the
differing positions by kind.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace

import numpy as np  # noqa: E402

from agents.bots import SimpleBot  # noqa: E402
from hollywood_env import melds as M  # noqa: E402
from hollywood_env import observation as O  # noqa: E402
from hollywood_env.actions import DISCARD, DRAW_STOCK, KNOCK, NUM_ACTIONS, PASS, TAKE_DISCARD, action_name  # noqa: E402
from hollywood_env.cards import CARD_BITS  # noqa: E402
from hollywood_env.rules import Rules  # noqa: E402

#: OpenSpiel's gin_rummy rules in ours: the gin-rummy preset, and the card just taken from the
#: pile may be discarded
OPENSPIEL_RULES = replace(Rules.preset("gin-rummy"), forbid_discard_of_taken_card=False)

#: OpenSpiel suit (s, c, d, h) -> ours (c, d, h, s)
_OS_SUIT_TO_OURS = (3, 0, 1, 2)


def card_from_openspiel(card: int) -> int:
    """An OpenSpiel card index -> ours."""
    return _OS_SUIT_TO_OURS[card // 13] * 13 + card % 13


def play_and_record(games: int, seed: int = 0, epsilon: float = 0.0):
    """Play ``games`` OpenSpiel games; return the bot's decisions as ``(obs, masks, actions,
    kinds)``: our observation and mask of each position, OpenSpiel's choice in our action
    numbering, and the phase (``upcard`` / ``discard`` / ``knock``)."""
    import pyspiel

    G = pyspiel.gin_rummy
    P = G.Phase
    game = pyspiel.load_game("gin_rummy")
    params = game.get_parameters()
    rules = OPENSPIEL_RULES
    size = O.observation_size(rules)
    rng = np.random.default_rng(seed)
    obs, masks, actions, kinds = [], [], [], []
    for _ in range(games):
        state = game.new_initial_state()
        bots = [pyspiel.make_simple_gin_rummy_bot(params, p) for p in range(2)]
        pending = None  # a knock waiting for its discard: (obs, mask)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            p = state.current_player()
            phase = state.current_phase()
            legal = state.legal_actions()
            action = int(bots[p].step(state))  # every bot sees every own decision (it keeps state)
            if (epsilon and phase in (P.FIRST_UPCARD, P.DRAW, P.DISCARD) and action != G.KNOCK_ACTION
                    and rng.random() < epsilon):
                # a random move instead, not recorded (the bot's own state stays valid: not a knock)
                state.apply_action(int(rng.choice([a for a in legal if a != G.KNOCK_ACTION])))
                continue
            if phase == P.KNOCK and pending is not None:
                o, m = pending
                pending = None
                obs.append(o), masks.append(m), kinds.append("knock")
                actions.append(KNOCK + card_from_openspiel(action))
            elif phase in (P.FIRST_UPCARD, P.DRAW, P.DISCARD) and len(legal) > 1:
                o, m = _translate(state, p, phase, legal, size, rules, G, P)
                if action == G.KNOCK_ACTION:
                    pending = (o, m)
                else:
                    obs.append(o), masks.append(m)
                    kinds.append("discard" if phase == P.DISCARD else "upcard")
                    actions.append(_our_action(action, G))
            state.apply_action(action)
    return np.array(obs, dtype=np.float32), np.array(masks, dtype=bool), np.array(actions), np.array(kinds)


def _our_action(action: int, G) -> int:
    if action < 52:
        return DISCARD + card_from_openspiel(action)
    return {G.DRAW_UPCARD_ACTION: TAKE_DISCARD, G.DRAW_STOCK_ACTION: DRAW_STOCK, G.PASS_ACTION: PASS}[action]


def _translate(state, p, phase, legal, size, rules, G, P):
    """Our observation and mask of the position (only what the simple bot reads: hand, pile
    top, stock, knock limit, legal actions)."""
    o = np.zeros(size, dtype=np.float32)
    m = np.zeros(NUM_ACTIONS, dtype=bool)
    hand = [card_from_openspiel(c) for c in state.hands()[p]]
    o[O.HAND.start + np.array(hand)] = 1
    up = state.upcard()
    if up is not None and up >= 0:
        o[O.PILE_TOP.start + card_from_openspiel(up)] = 1
    o[O.STOCK] = state.stock_size() / 31
    o[O.KNOCK_LIMIT] = state.knock_card() / 10
    phase_index = {P.FIRST_UPCARD: 0, P.DRAW: 1, P.DISCARD: 2}[phase]
    o[O.PHASE.start + phase_index] = 1
    if phase == P.DISCARD:
        for a in legal:
            if a < 52:
                m[DISCARD + card_from_openspiel(a)] = True
        if G.KNOCK_ACTION in legal:
            knocked = state.clone()
            knocked.apply_action(G.KNOCK_ACTION)
            for a in knocked.legal_actions():
                if a < 52:
                    m[KNOCK + card_from_openspiel(a)] = True
    else:
        for a in legal:
            m[_our_action(a, G)] = True
    return o, m


def describe(o, m, ours, theirs) -> str:
    hand = np.flatnonzero(o[O.HAND])
    from hollywood_env.cards import format_card

    top = np.flatnonzero(o[O.PILE_TOP])
    _, sets, runs = M.best_arrangement_masks(np.array([sum(int(CARD_BITS[c]) for c in hand)], dtype=np.uint64))
    melded = [format_card(c) for c in hand if int(sets[0] | runs[0]) >> int(c) & 1]
    return (f"hand {' '.join(format_card(c) for c in hand)}"
            + (f" | top {format_card(top[0])}" if top.size else "")
            + f" | melded {' '.join(melded) or '-'} | ours: {action_name(ours)}, OpenSpiel: {action_name(theirs)}")


def agreement(games: int = 400, seed: int = 0, epsilon: float = 0.0):
    """``(fraction agreeing, number of decisions, per-kind Counter of (agree, total), the
    differing rows)``."""
    obs, masks, theirs, kinds = play_and_record(games, seed, epsilon)
    ours = SimpleBot(OPENSPIEL_RULES)(obs, masks)
    same = ours == theirs
    per_kind = {k: (int(same[kinds == k].sum()), int((kinds == k).sum())) for k in sorted(set(kinds.tolist()))}
    diff = np.flatnonzero(~same)
    disagreements = [(obs[i], masks[i], int(ours[i]), int(theirs[i]), kinds[i]) for i in diff]
    return float(same.mean()), int(same.size), per_kind, disagreements


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=400, help="OpenSpiel games to play (default 400)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    ap.add_argument("--epsilon", type=float, default=0.0, help="probability of a random move (default 0)")
    ap.add_argument("--show", type=int, default=5, help="differing positions to print (default 5)")
    args = ap.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("needs OpenSpiel: pip install '.[bench]'", file=sys.stderr)
        return 2
    frac, n, per_kind, diffs = agreement(args.games, args.seed, args.epsilon)
    print(f"simple vs OpenSpiel SimpleGinRummyBot: {frac:.2%} of {n} decisions agree ({args.games} games)")
    for k, (a, t) in per_kind.items():
        print(f"  {k:8s} {a}/{t} ({a / max(t, 1):.2%})")
    print("differences by kind:", dict(Counter(d[4] for d in diffs)))
    for o, m, ours, theirs, kind in diffs[: args.show]:
        print(f"  [{kind}] {describe(o, m, ours, theirs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
