"""One of our agents against OpenSpiel's ``SimpleGinRummyBot``, in OpenSpiel's own ``gin_rummy``.

    python -m experiments.research.openspiel_arena simple                       # 500 deals, 1,000 hands
    python -m experiments.research.openspiel_arena ppo-gin-rummy-simple --deals 200 --seed 1
    python -m experiments.research.openspiel_arena marjj --out results/openspiel_arena_marjj.json

What is played: single hands of OpenSpiel's ``gin_rummy`` (``pip install '.[bench]'``; knock
card 10, gin and undercut bonuses 25) between the agent (any spec of
:func:`agents.registry.make_agent`: ``simple``, ``marjj``, ``ppo-gin-rummy-simple``, ``search``,
``random``, ``ppo:PATH``...) and OpenSpiel's C++ simple bot
(``pyspiel.make_simple_gin_rummy_bot``), on duplicate deals: each deal is played twice, the agent
in OpenSpiel's seat 0 (the first to act, our non-dealer) and then in seat 1, with the same deck.
OpenSpiel scores the hand (``state.returns()``), so the result is OpenSpiel's, by OpenSpiel's rules.

How: the arena, never the agent, samples the cards. Deal ``d`` is a uniformly random permutation of
the 52 cards from ``np.random.default_rng((seed, d))``, and every chance node of OpenSpiel is
answered from it: its first 10 outcomes go to player 0, the next 10 to player 1, the 21st is the
upcard, and each later one (a stock draw) is the next card of the deck. Alongside runs a mirror
game in our engine, dealt the same deck (``core.deal`` with our player 1 the dealer, so that our
player 0 is OpenSpiel's player 0 and our stock order is the order the arena feeds OpenSpiel), with
rules ``gin-rummy-simple`` except that the card just taken from the pile may be discarded, as
OpenSpiel allows. At each decision of the first-upcard, draw and discard phases the player to act
decides: in the agent's seat the agent, from our observation and legal-action mask of the mirror
(through :func:`agents.registry.call_policy`, which gives the public history to agents that read it
and the mirror state to the search agent, which reads only what the viewer may see), in the other
seat OpenSpiel's bot (``bot.step``). Every move is applied to both games (a knock is OpenSpiel's
knock action and then, in its knock phase, the discard; ours ``KNOCK + card``), and before each
decision the arena checks that both games have the same hands and player to act. The agent is
built for ``gin-rummy-simple``, the rules our single-hand agents train on, which forbid
discarding the card just taken: that discard (and a knock with it) is removed from the mask the
agent is given; OpenSpiel's bot may play it. After both players pass the first upcard, OpenSpiel
asks player 0 to draw from the stock (its only legal move): applied as it is, our engine draws
automatically.

Delegated to OpenSpiel's simple bot, for both seats (our engine does these itself and our agents
have no decision there): laying out the melds after a knock, the defender's lay-offs (the simple
bot never lays off: it passes, then lays its best melds), and OpenSpiel's wall (when a discard
leaves 2 cards in the stock, OpenSpiel lets the next player take the upcard only to knock with it,
or pass; our engine ends the hand there in a draw, so from then on the hand is OpenSpiel's only).
The bot keeps state between its moves (whether it knocked, and the meld actions it planned), and
needs no ``inform_action``: its seat's bot must only make all that seat's moves. So each hand has
one bot per seat; the agent's seat's bot makes no move before the delegated ones, and at the wall
and in the lay-off phase it decides from the position alone, as a fresh bot does. After the
agent's own knock that bot cannot lay out the agent's melds (it did not knock, and it would plan
the discard itself), so the arena lays them as the bot lays its own: the melds of
``GinRummyUtils.best_meld_group`` of the 10 cards left, then pass. Any minimum-deadwood layout
scores the same, since the defender never lays off.

Figures: hands won, lost and drawn by the agent (return > 0, < 0, = 0: a draw is a hand ended at
the wall or by OpenSpiel's repeated-move rule); the win rate of the decided hands (won / (won +
lost), Wilson 95% interval) and the agent's points per decided hand (OpenSpiel's returns, 95%
percentile bootstrap resampling the deals, the two hands of a deal together), as ``hollywood
evaluate`` reports ``hand_win_rate`` and ``points_per_hand``; the gins of each side. Mirror check:
of the hands that our engine also ended by a knock (or gin, undercut), those where our engine's
hand points (``state.hand_points`` of the winner, ``gin-rummy-simple``: no game bonuses) differ
from OpenSpiel's returns, by cause: ``lay-off`` (our engine laid off the defender's cards, which
OpenSpiel's bot never does), ``tie`` (equal deadwood: OpenSpiel scores 0, our rules an undercut),
``other`` (unexplained). A cause counts as the explanation only when OpenSpiel's scoring applied to
our engine's deadwoods (the knocker's, and the defender's without lay-offs) gives OpenSpiel's
return exactly; any other difference is ``other``. Not compared: hands our engine ended at the wall (OpenSpiel may still knock
there) and hands OpenSpiel ended by its repeated-move rules.

Deterministic: the same agent, seed and number of deals give the same table (the agent is reseeded
from ``(seed, deal)`` before each hand, the same for both seats of a deal); the first ``n`` deals
of a seed are the same whatever ``--deals``. Bad input (an unknown agent, ``--deals`` below 1) is
one line on stderr and exit status 2.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one position at a time
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import asdict, dataclass, field, replace  # noqa: E402

import numpy as np  # noqa: E402

from agents.registry import AgentSpecError, call_policy, make_agent  # noqa: E402
from experiments.evaluation.stats import cluster_bootstrap, wilson  # noqa: E402
from experiments.research.openspiel_agreement import (  # noqa: E402  (the card translation)
    _our_action,  # an OpenSpiel draw / pass / discard -> ours
    card_from_openspiel,
)
from hollywood_env import core  # noqa: E402
from hollywood_env import melds as M  # noqa: E402
from hollywood_env.actions import (  # noqa: E402
    DRAW_STOCK,
    KIND_GIN,
    KIND_KNOCK,
    KIND_NAMES,
    KIND_UNDERCUT,
    KNOCK,
    PASS,
    TAKE_DISCARD,
)
from hollywood_env.cards import CARD_VALUES  # noqa: E402
from hollywood_env.observation import encode  # noqa: E402
from hollywood_env.rules import Rules  # noqa: E402

#: the rules the agent is built for (what our single-hand agents train on)
AGENT_RULES = Rules.preset("gin-rummy-simple")
#: the mirror game's rules: OpenSpiel lets a player discard the card just taken from the pile
MIRROR_RULES = replace(AGENT_RULES, forbid_discard_of_taken_card=False)

#: our suit (c, d, h, s) -> OpenSpiel's (s, c, d, h): the inverse of card_from_openspiel
_OUR_SUIT_TO_OS = (1, 2, 3, 0)
_MIRRORED_KINDS = (KIND_KNOCK, KIND_GIN, KIND_UNDERCUT)
#: the causes of a mirror disagreement (module docstring)
CAUSES = ("gin melds", "lay-off", "tie", "other")


def card_to_openspiel(card: int) -> int:
    """Our card index -> OpenSpiel's."""
    return _OUR_SUIT_TO_OS[card // 13] * 13 + card % 13


def deal_deck(seed: int, deal: int) -> np.ndarray:
    """Deal ``deal``'s card order (our card indices), a uniform permutation of the 52 cards."""
    return np.random.default_rng((int(seed), int(deal))).permutation(52)


@dataclass
class HandResult:
    """One hand: OpenSpiel's result for the agent and what the mirror game made of it."""

    deal: int
    agent_seat: int
    agent_return: float  # OpenSpiel's returns()[agent_seat]
    knocker: int  # OpenSpiel's knocker (-1: nobody knocked)
    gin: bool  # the knocker's final deadwood is 0
    wall_knock: bool  # the knock came at OpenSpiel's wall, after our engine's hand had ended
    mirror_kind: str  # how our engine's hand ended: knock, gin, undercut, wall or "" (not ended)
    mirror_points: int | None  # our engine's points for the agent (+ won, - lost) after a knock
    laid_off: bool  # our engine laid off defender cards
    mirror_as_openspiel: int | None  # our engine's deadwoods scored by OpenSpiel's rules, no lay-offs
    tie: bool  # OpenSpiel's knocker and defender end with the same deadwood
    decisions: int  # agent decisions
    knocks_withheld: int  # agent decisions where a knock legal in our engine was not in OpenSpiel
    chance_cards: list = field(default_factory=list)  # the cards (ours) fed to OpenSpiel's chance nodes

    @property
    def disagrees(self) -> bool:
        return self.mirror_points is not None and self.mirror_points != self.agent_return

    @property
    def cause(self) -> str:
        """Why our engine's points differ: ``gin melds`` / ``lay-off`` / ``tie`` when OpenSpiel's
        rules applied to our engine's hands as the simple bot defends (no lay-offs; no melds
        against gin) give OpenSpiel's return, else ``other``."""
        if self.mirror_as_openspiel != self.agent_return:
            return "other"
        return ("gin melds" if self.mirror_kind == "gin" else "lay-off" if self.laid_off
                else "tie" if self.tie else "other")


def _to_openspiel(action: int, G) -> int:
    """Our PASS / TAKE_DISCARD / DRAW_STOCK / DISCARD + card -> OpenSpiel's action."""
    if action < KNOCK:
        return card_to_openspiel(action)
    return {TAKE_DISCARD: G.DRAW_UPCARD_ACTION, DRAW_STOCK: G.DRAW_STOCK_ACTION, PASS: G.PASS_ACTION}[action]


def _apply(state, action: int, who: str) -> None:
    if action not in state.legal_actions():
        raise RuntimeError(f"{who}: OpenSpiel action {action} ({state.action_to_string(state.current_player(), action)}) "
                           f"is not legal (legal: {state.legal_actions()})\n{state}")
    state.apply_action(action)


def _check_sync(state, mirror, p: int) -> None:
    """Both games have the same hands and player to act (a bug in the arena otherwise)."""
    ours = [sorted(c for c in range(52) if int(mirror.hands[0, s]) >> c & 1) for s in (0, 1)]
    theirs = [sorted(card_from_openspiel(c) for c in h) for h in state.hands()]
    if ours != theirs or int(mirror.current_player[0]) != p:
        raise RuntimeError(f"mirror out of sync: ours {ours} to act {int(mirror.current_player[0])}, "
                           f"OpenSpiel {theirs} to act {p}\n{state}")


def agent_mask(mirror) -> np.ndarray:
    """The mirror's legal mask as the agent is given it: without discarding (or knocking with)
    the card just taken when the agent's rules forbid it."""
    mask = mirror.legal_action_mask[:1].copy()
    taken = int(mirror.taken_card[0])
    if AGENT_RULES.forbid_discard_of_taken_card and taken >= 0:
        mask[0, taken] = mask[0, KNOCK + taken] = False
    return mask


def _openspiel_score(mirror, agent_seat: int, params) -> int:
    """The hand our engine just settled, scored by OpenSpiel's rules (``GinRummyState::Returns``)
    from our knocker's deadwood and the defender's as the simple bot defends: no lay-offs, its
    best melds, and against gin no melds at all (its whole hand counts). Equal deadwood scores 0,
    where our rules call it an undercut. For the agent."""
    knocker = int(mirror.hand_knocker[0])
    kdw = int(mirror.knocker_deadwood[0])
    defender = int(mirror.ended_hands[0, 1 - knocker])
    if kdw == 0:
        ddw = int(sum(CARD_VALUES[c] for c in range(52) if defender >> c & 1))
    else:
        ddw = int(M.min_deadwood_one(defender))
    r = ddw - kdw + (params["gin_bonus"] if kdw == 0 else 0)
    if r < 0:
        r -= params["undercut_bonus"]
    return r if knocker == agent_seat else -r


def _restrict_to_openspiel(mask: np.ndarray, state, legal, G) -> bool:
    """Keep, of the mask's knocks, only those OpenSpiel allows (in place); True when one was
    dropped. OpenSpiel's knock test (``MinDeadwood`` of the 11 cards) takes the deadwood of one
    best 11-card arrangement less its highest card, so it misses a knock that only another
    arrangement of equal 11-card deadwood allows (e.g. runs 4-5-6 of clubs and diamonds against
    sets of fours and sixes)."""
    allowed = np.zeros(52, dtype=bool)
    if G.KNOCK_ACTION in legal:
        knocked = state.clone()
        knocked.apply_action(G.KNOCK_ACTION)
        allowed[[card_from_openspiel(a) for a in knocked.legal_actions() if a < 52]] = True
    knocks = mask[0, KNOCK:DRAW_STOCK]
    dropped = bool((knocks & ~allowed).any())
    knocks &= allowed
    return dropped


def _knocker_layout(state, p: int, G, utils) -> list[int]:
    """The knocker's meld actions, as the simple bot lays its own: ``best_meld_group`` of the
    cards left, then pass."""
    hand = list(state.hands()[p])
    return [G.MELD_ACTION_BASE + utils.meld_to_int(sorted(m)) for m in utils.best_meld_group(hand)] + [G.PASS_ACTION]


def play_hand(game, policy, deck: np.ndarray, agent_seat: int, deal: int = 0, name: str = "agent") -> HandResult:
    """Play one hand of OpenSpiel's ``game`` from the card order ``deck`` (our indices), the
    agent ``policy`` in OpenSpiel's seat ``agent_seat`` and OpenSpiel's simple bot in the other."""
    import pyspiel

    G, P = pyspiel.gin_rummy, pyspiel.gin_rummy.Phase
    params = game.get_parameters()
    utils = G.GinRummyUtils(params["num_ranks"], params["num_suits"], params["hand_size"])
    state = game.new_initial_state()
    mirror = core.init(1, MIRROR_RULES, seed=0)
    core.deal(mirror, [0], np.asarray(deck)[None], dealer=[1])  # our player 0: the non-dealer, deck[0:10]
    bots = [pyspiel.make_simple_gin_rummy_bot(params, s) for s in (0, 1)]
    next_card = 0
    chance_cards = []
    mirror_live, mirror_kind, mirror_points, laid_off, as_openspiel = True, "", None, False, None
    layout: list[int] | None = None  # the agent's meld actions after its own knock
    wall_knock = False
    decisions = withheld = 0
    while not state.is_terminal():
        if state.is_chance_node():
            card = int(deck[next_card])
            next_card += 1
            _apply(state, card_to_openspiel(card), "arena (chance)")
            chance_cards.append(card)
            continue
        p = state.current_player()
        phase = state.current_phase()
        legal = state.legal_actions()
        if phase == P.FIRST_UPCARD and legal == [G.DRAW_STOCK_ACTION]:
            state.apply_action(G.DRAW_STOCK_ACTION)  # both passed: forced (automatic in our engine)
            continue
        if mirror_live and phase in (P.FIRST_UPCARD, P.DRAW, P.DISCARD):
            _check_sync(state, mirror, p)
            if p == agent_seat:
                mask = agent_mask(mirror)
                if phase == P.DISCARD:
                    withheld += _restrict_to_openspiel(mask, state, legal, G)
                obs = encode(mirror)
                ours = int(np.asarray(call_policy(policy, obs, mask, mirror, games=[0], viewer=p)).reshape(-1)[0])
                decisions += 1
                if not (0 <= ours < mask.shape[1] and mask[0, ours]):
                    raise ValueError(f"agent {name!r} played the illegal action {ours} "
                                     f"(legal: {np.flatnonzero(mask[0]).tolist()})")
                if KNOCK <= ours < DRAW_STOCK:
                    _apply(state, G.KNOCK_ACTION, name)
                    _apply(state, card_to_openspiel(ours - KNOCK), name)
                    layout = _knocker_layout(state, p, G, utils)
                else:
                    _apply(state, _to_openspiel(ours, G), name)
            else:
                action = int(bots[p].step(state))
                _apply(state, action, "OpenSpiel's bot")
                if action == G.KNOCK_ACTION:
                    card = int(bots[p].step(state))
                    _apply(state, card, "OpenSpiel's bot")
                    ours = KNOCK + card_from_openspiel(card)
                else:
                    ours = _our_action(action, G)
            core.step(mirror, np.array([ours]))
            if mirror.hand_ended[0]:
                mirror_live = False
                kind = int(mirror.hand_kind[0])
                mirror_kind = KIND_NAMES[kind]
                if kind in _MIRRORED_KINDS:
                    pts = int(mirror.hand_points[0])
                    mirror_points = pts if int(mirror.hand_winner[0]) == agent_seat else -pts
                    laid_off = bool(mirror.laid_off[0])
                    as_openspiel = _openspiel_score(mirror, agent_seat, params)
            continue
        # delegated: the knocker's melds, the defender's lay-offs and melds, OpenSpiel's wall
        if phase == P.WALL and G.KNOCK_ACTION in legal:
            wall_knock = True
        if phase == P.KNOCK and p == agent_seat and layout is not None:
            _apply(state, layout.pop(0), "arena (the agent's melds)")
        else:
            _apply(state, int(bots[p].step(state)), "OpenSpiel's bot (delegated)")
    returns = state.returns()
    knocked = list(state.knocked())
    knocker = knocked.index(True) if any(knocked) else -1
    deadwood = list(state.deadwood())
    return HandResult(
        deal=deal, agent_seat=agent_seat, agent_return=float(returns[agent_seat]) + 0.0, knocker=knocker,
        gin=knocker >= 0 and deadwood[knocker] == 0, wall_knock=wall_knock and knocker >= 0,
        mirror_kind=mirror_kind, mirror_points=mirror_points, laid_off=laid_off, mirror_as_openspiel=as_openspiel,
        tie=knocker >= 0 and deadwood[0] == deadwood[1], decisions=decisions, knocks_withheld=withheld,
        chance_cards=chance_cards,
    )


def _policy_seed(seed: int, deal: int) -> int:
    return int(np.random.SeedSequence((int(seed), int(deal), 1)).generate_state(1, np.uint32)[0])


def run(agent, deals: int = 500, seed: int = 0, progress: bool = False) -> list[HandResult]:
    """Play ``deals`` duplicate deals (``2 * deals`` hands) of ``agent`` (a spec or a policy)
    against OpenSpiel's simple bot; the hands in order (deal 0 seat 0, deal 0 seat 1, ...)."""
    import pyspiel

    if deals < 1:
        raise ValueError(f"--deals must be at least 1, got {deals}")
    game = pyspiel.load_game("gin_rummy")
    if pyspiel.gin_rummy.WALL_STOCK_SIZE != MIRROR_RULES.wall_stock_size:
        raise RuntimeError(f"OpenSpiel's wall is at {pyspiel.gin_rummy.WALL_STOCK_SIZE} cards, ours at "
                           f"{MIRROR_RULES.wall_stock_size}")
    policy = make_agent(agent, AGENT_RULES, seed=seed)
    name = agent if isinstance(agent, str) else getattr(agent, "name", "agent")
    hands = []
    for d in range(deals):
        deck = deal_deck(seed, d)
        for seat in (0, 1):
            if callable(getattr(policy, "seed", None)):
                policy.seed(_policy_seed(seed, d))
            hands.append(play_hand(game, policy, deck, seat, deal=d, name=name))
        if progress and (d + 1) % 50 == 0:
            print(f"  {d + 1}/{deals} deals", file=sys.stderr)
    return hands


def summarize(hands: list[HandResult], n_boot: int = 2000) -> dict:
    """The figures of the module docstring, JSON-ready."""
    r = np.array([h.agent_return for h in hands])
    deal = np.array([h.deal for h in hands])
    won, lost = int((r > 0).sum()), int((r < 0).sum())
    decided = r != 0
    n_deals = int(deal.max()) + 1
    pair_points = np.bincount(deal, weights=r, minlength=n_deals)
    pair_decided = np.bincount(deal, weights=decided.astype(float), minlength=n_deals)
    compared = [h for h in hands if h.mirror_points is not None]
    bad = [h for h in compared if h.disagrees]
    causes = {c: sum(h.cause == c for h in bad) for c in CAUSES}
    agent_gins = sum(h.gin and h.knocker == h.agent_seat for h in hands)
    bot_gins = sum(h.gin and h.knocker == 1 - h.agent_seat for h in hands)
    return {
        "deals": n_deals, "hands": len(hands), "won": won, "lost": lost, "drawn": len(hands) - won - lost,
        "win_rate": wilson(won, won + lost).to_dict(),
        "points_per_hand": cluster_bootstrap(pair_points, pair_decided, n_boot, 0).to_dict(),
        "agent_gins": int(agent_gins), "bot_gins": int(bot_gins),
        "agent_knocks": sum(h.knocker == h.agent_seat for h in hands),
        "bot_knocks": sum(h.knocker == 1 - h.agent_seat for h in hands),
        "wall_knocks": sum(h.wall_knock for h in hands),
        "mirror_compared": len(compared), "mirror_disagree": len(bad), "mirror_causes": causes,
        "mirror_walls": sum(h.mirror_kind == "wall" for h in hands),
        "openspiel_only_ends": sum(h.mirror_kind == "" for h in hands),
        "agent_decisions": sum(h.decisions for h in hands),
        "knocks_withheld": sum(h.knocks_withheld for h in hands),
    }


def format_table(agent: str, s: dict, seed: int, seconds: float | None = None) -> str:
    from experiments.evaluation.stats import Estimate

    wr = Estimate(**s["win_rate"])
    pp = Estimate(**{k: (v if v is not None else float("nan")) for k, v in s["points_per_hand"].items()})
    c = s["mirror_causes"]
    lines = [
        f"{agent} vs OpenSpiel SimpleGinRummyBot in OpenSpiel gin_rummy: {s['deals']} duplicate deals, "
        f"{s['hands']} hands (seed {seed})",
        f"  {'hands won / lost / drawn':<26} {s['won']} / {s['lost']} / {s['drawn']}",
        f"  {'win rate (decided hands)':<26} {wr.fmt(pct=True)}  of {s['won'] + s['lost']}",
        f"  {'points per decided hand':<26} {pp.fmt(digits=2)}",
        f"  {'gins agent / OpenSpiel':<26} {s['agent_gins']} / {s['bot_gins']}",
        f"  {'knocks agent / OpenSpiel':<26} {s['agent_knocks']} / {s['bot_knocks']}  "
        f"({s['wall_knocks']} at OpenSpiel's wall)",
        f"  {'mirror check':<26} {s['mirror_disagree']} of {s['mirror_compared']} knocked hands disagree "
        f"({', '.join(f'{k} {v}' for k, v in c.items())})",
        f"  {'':<26} not compared: {s['mirror_walls']} walls in our engine, "
        f"{s['openspiel_only_ends']} ended by OpenSpiel's repeat rules",
        f"  {'knocks not in OpenSpiel':<26} {s['knocks_withheld']} of {s['agent_decisions']} agent decisions",
    ]
    if seconds is not None:
        lines.append(f"  {'seconds':<26} {seconds:.1f}")
    return "\n".join(lines)


def describe_disagreement(h: HandResult) -> str:
    return (f"deal {h.deal} agent in seat {h.agent_seat}: OpenSpiel {h.agent_return:+g}, ours {h.mirror_points:+d} "
            f"({h.mirror_kind}; {h.cause})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent", help="an agent spec (agents.registry): simple, marjj, ppo-gin-rummy-simple, search, ...")
    ap.add_argument("--deals", type=int, default=500, help="duplicate deals, two hands each (default 500)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals and the agent (default 0)")
    ap.add_argument("--out", default=None, help="also write the figures and the hands to this JSON file")
    ap.add_argument("--show", type=int, default=5, help="mirror disagreements to print (default 5)")
    args = ap.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("needs OpenSpiel: pip install '.[bench]'", file=sys.stderr)
        return 2
    if args.deals < 1:
        print(f"openspiel_arena: --deals must be at least 1, got {args.deals}", file=sys.stderr)
        return 2
    try:
        make_agent(args.agent, AGENT_RULES, seed=args.seed)
    except AgentSpecError as e:
        print(f"openspiel_arena: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    hands = run(args.agent, args.deals, args.seed)
    seconds = time.perf_counter() - t0
    s = summarize(hands)
    print(format_table(args.agent, s, args.seed, seconds))
    for h in [h for h in hands if h.disagrees][: args.show]:
        print(f"    {describe_disagreement(h)}")
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        out = {"agent": args.agent, "opponent": "openspiel-simple", "seed": args.seed, "seconds": round(seconds, 3),
               "agent_rules": AGENT_RULES.preset_name, "mirror_rules": MIRROR_RULES.to_dict(), **s,
               "hands_played": [{k: v for k, v in asdict(h).items() if k != "chance_cards"} for h in hands]}
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
