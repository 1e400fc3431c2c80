"""The slow, obvious executable specification of ``docs/rules.md``: brute-force melds and a scalar,
one-match game engine.

Nothing here is clever: melds are found by listing them, arrangements by plain search over
collections of disjoint melds, lay-offs by trying every order. The fast batched engine is tested
against this module, and this module is tested against hand-written cases.

Cards are integers ``suit * 13 + rank`` (see :mod:`hollywood_env.cards`). A meld is a sorted
tuple of cards; an arrangement is a list of disjoint melds.

Choices where the rule book is silent (documented once, here)
--------------------------------------------------------------
* Knocker's layout (``rules.knocker_arrangement``): see :func:`brute_knocker_arrangement`.
  With ``fewest_layoffs`` and gin the defender cannot lay off, so all minimum arrangements tie
  and the ``fewest_set_cards`` rule decides.
* Defender's choice among equally good (melds, lay-offs): the smallest final deadwood, then the
  fewest laid-off cards, then the smallest tuple of laid-off cards, then the smallest tuple of
  melds (see :func:`brute_layoff`). Scores never depend on this choice.
* The knocked card goes on the discard pile (face down in real play) so the 52 cards stay
  accounted for; after a big gin the declarer keeps all 11 cards.
* Knock limit: ``straight_gin`` wins over ``oklahoma`` (limit 0); Oklahoma uses the first
  upcard's deadwood value, except an ace, which means gin only (limit 0). The spade doubling
  (``oklahoma_spade_doubles``) doubles every kind of hand score (knock, undercut, gin, big gin).
* A hand that is won for 0 points (possible only with zero bonuses) still counts as a won hand:
  it opens a column and is credited for the box bonus.
* ``next_dealer="alternate"``: the player who did not deal this hand deals the next won hand;
  after a wall the same dealer deals again under every option (docs/rules.md section 2.7).
* Rewards (``last_rewards``) are the change of each player's grand total (columns + settled
  bonuses); they are not zero-sum (the loser's box bonuses are paid when a game ends).
* The defender's melds in a :class:`HandResult` are laid out like the knocker's (touching runs
  merged); after a gin or big gin they are the defender's ``fewest_set_cards`` layout.
* Big gin is offered whenever the 11 cards have 0 deadwood, alongside any gin knock; it is
  never offered in the first-upcard or draw phases (a player holds 10 cards there).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations

import numpy as np

from . import actions as A
from . import cards as C
from .rules import Rules, resolve_rules
from .scoresheet import Scoresheet

Meld = tuple  # a sorted tuple of card indices
#: cards as the functions below accept them: card indices, card strings, or one string of cards
CardsLike = str | Iterable[int | str]


# ----------------------------------------------------------------------------------------------
# Small card helpers
# ----------------------------------------------------------------------------------------------

def rank(card: int) -> int:
    return card % 13


def suit(card: int) -> int:
    return card // 13


#: deadwood value of each card: A = 1, 2..10 face value, J/Q/K = 10
VALUES = [min(r + 1, 10) for s in range(4) for r in range(13)]


def value(card: int) -> int:
    """Deadwood value: A = 1, 2..10 face value, J/Q/K = 10."""
    return VALUES[card]


def deadwood_of(cards: Iterable[int]) -> int:
    return sum(VALUES[c] for c in cards)


def is_set(meld: Sequence[int]) -> bool:
    """3 or 4 cards of one rank."""
    return len(meld) in (3, 4) and len(set(meld)) == len(meld) and len({rank(c) for c in meld}) == 1


def is_run(meld: Sequence[int]) -> bool:
    """3 or more consecutive cards of one suit (ace low, no wrap)."""
    if len(meld) < 3 or len({suit(c) for c in meld}) != 1:
        return False
    ranks = sorted(rank(c) for c in meld)
    return all(b == a + 1 for a, b in zip(ranks, ranks[1:], strict=False))


def is_meld(meld: Sequence[int]) -> bool:
    return is_set(meld) or is_run(meld)


def _cards(cards: CardsLike) -> list[int]:
    """Accept card indices, card strings or one string of cards; return sorted distinct ints."""
    if isinstance(cards, str):
        out = C.parse_cards(cards)
    else:
        out = [C.parse_card(c) if isinstance(c, str) else int(c) for c in cards]
    if any(not 0 <= c < 52 for c in out):
        raise ValueError(f"card indices must be in 0..51, got {out}")
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate cards in {out}")
    return sorted(out)


# ----------------------------------------------------------------------------------------------
# Melds and arrangements, by brute force
# ----------------------------------------------------------------------------------------------

def all_melds(cards: CardsLike) -> list[Meld]:
    """Every meld that can be made from ``cards``: each set of 3 or 4 cards of one rank (so a
    4-of-a-kind gives four 3-card sets and one 4-card set) and each run of 3+ consecutive cards
    of one suit (every sub-run of a longer sequence too)."""
    cards = _cards(cards)
    melds: list[Meld] = []
    by_rank: dict[int, list[int]] = {}
    for c in cards:
        by_rank.setdefault(rank(c), []).append(c)
    for same_rank in by_rank.values():
        for size in (3, 4):
            melds.extend(combinations(same_rank, size))
    held = set(cards)
    for low in cards:  # every run, by its lowest card: extend upward while the suit continues
        run = [low]
        while rank(run[-1]) < 12 and run[-1] + 1 in held:
            run.append(run[-1] + 1)
            if len(run) >= 3:
                melds.append(tuple(run))
    return sorted(melds)


def arrangements(cards: CardsLike) -> list[list[Meld]]:
    """Every collection of pairwise-disjoint melds of ``cards`` (the empty one included), each
    exactly once: the lowest remaining card is either left unmelded or put in one of the melds
    that contain it."""
    cards = _cards(cards)
    melds = all_melds(cards)
    if not melds:
        return [[]]

    def search(remaining: tuple) -> list[list[Meld]]:
        if not remaining:
            return [[]]
        first, rest = remaining[0], remaining[1:]
        found = search(rest)  # `first` stays unmelded
        left = set(remaining)
        for m in melds:
            if m[0] == first and all(c in left for c in m):
                after = tuple(c for c in remaining if c not in m)
                found.extend([m] + tail for tail in search(after))
        return found

    # a card that is in no meld is unmelded in every arrangement: search over the others only
    in_some_meld = {c for m in melds for c in m}
    return search(tuple(c for c in cards if c in in_some_meld))


def unmelded(cards: Iterable[int], arrangement: Iterable[Meld]) -> list[int]:
    """The cards (sorted) that are in no meld of ``arrangement``."""
    used = {c for m in arrangement for c in m}
    return [c for c in sorted(cards) if c not in used]


def brute_min_deadwood(cards: CardsLike) -> int:
    """The minimum deadwood of any hand (0 to 11 cards, or more), over all arrangements."""
    cards = _cards(cards)
    return min(deadwood_of(unmelded(cards, arr)) for arr in arrangements(cards))


@lru_cache(maxsize=1 << 16)
def _min_deadwood_cached(cards: tuple) -> int:
    return brute_min_deadwood(list(cards))


def min_deadwood(cards: CardsLike) -> int:
    """:func:`brute_min_deadwood`, memoised."""
    return _min_deadwood_cached(tuple(_cards(cards)))


def deadwood_after_discard(cards: CardsLike) -> dict[int, int]:
    """For each card ``c`` of ``cards``: the minimum deadwood of ``cards`` without ``c``.

    Computed from one list of arrangements of all the cards: the arrangements of
    ``cards - {c}`` are exactly the arrangements of ``cards`` that leave ``c`` unmelded, and
    their deadwood is the same minus ``value(c)``. (Tests check this against
    :func:`brute_min_deadwood` on each 10-card subset.)
    """
    cards = _cards(cards)
    best = {c: None for c in cards}
    for arr in arrangements(cards):
        loose = unmelded(cards, arr)
        dw = deadwood_of(loose)
        for c in loose:
            if best[c] is None or dw - value(c) < best[c]:
                best[c] = dw - value(c)
    return best


# ----------------------------------------------------------------------------------------------
# Layouts: the knocker's arrangement and the defender's lay-offs
# ----------------------------------------------------------------------------------------------

def layout(arrangement: Sequence[Meld]) -> list[Meld]:
    """The melds as laid on the table: sets as they are, runs of one suit that touch merged into
    one maximal run. Sorted by their lowest card."""
    sets = [tuple(sorted(m)) for m in arrangement if is_set(m)]
    run_cards = sorted(c for m in arrangement if is_run(m) for c in m)
    runs: list[list[int]] = []
    for c in run_cards:
        if runs and runs[-1][-1] == c - 1 and suit(c) == suit(runs[-1][-1]):
            runs[-1].append(c)
        else:
            runs.append([c])
    return sorted(sets + [tuple(r) for r in runs])


def set_cards_key(melds: Iterable[Meld]) -> tuple[int, int]:
    """The ``fewest_set_cards`` tie-break: (cards in sets, sum of 2**card over set cards)."""
    set_cards = [c for m in melds if is_set(m) for c in m]
    return len(set_cards), sum(2 ** c for c in set_cards)


def min_deadwood_layouts(cards: CardsLike) -> list[list[Meld]]:
    """The distinct layouts (see :func:`layout`) of the minimum-deadwood arrangements."""
    cards = _cards(cards)
    arrs = arrangements(cards)
    best = min(deadwood_of(unmelded(cards, a)) for a in arrs)
    found = []
    for a in arrs:
        if deadwood_of(unmelded(cards, a)) == best:
            lay = layout(a)
            if lay not in found:
                found.append(lay)
    return found


def brute_knocker_arrangement(cards: CardsLike, rules: Rules | None = None,
                              defender_cards: CardsLike | None = None) -> list[Meld]:
    """The melds the knocker lays out: a minimum-deadwood arrangement, runs laid out whole.

    Ties between minimum-deadwood arrangements (``rules.knocker_arrangement``):

    * ``"fewest_set_cards"``: the fewest cards in sets, then the smallest
      ``sum(2**card for card in set cards)``. (Given its set cards, a minimum arrangement's
      runs are forced: every other card in a same-suit sequence of 3+, so this is a total
      order.)
    * ``"fewest_layoffs"``: the arrangement that leaves the defender (``defender_cards``) the
      highest final deadwood after lay-offs (:func:`brute_layoff`); ties as above. With gin no
      lay-offs are allowed, so it is the ``fewest_set_cards`` choice.
    """
    rules = resolve_rules(rules)
    cards = _cards(cards)
    candidates = min_deadwood_layouts(cards)
    gin = deadwood_of(unmelded(cards, candidates[0])) == 0
    if rules.knocker_arrangement == "fewest_set_cards" or gin:
        return min(candidates, key=set_cards_key)
    if defender_cards is None:
        raise ValueError("knocker_arrangement='fewest_layoffs' needs the defender's cards")
    return min(candidates, key=lambda lay: (-brute_layoff(defender_cards, lay)[0], set_cards_key(lay)))


def _fits(card: int, meld: Meld) -> bool:
    """Can ``card`` be laid off on ``meld``: the 4th card of a 3-card set, or the next card at
    either end of a run."""
    if is_set(meld):
        return len(meld) == 3 and rank(card) == rank(meld[0])
    if suit(card) != suit(meld[0]):
        return False
    lo, hi = rank(meld[0]), rank(meld[-1])
    return rank(card) == lo - 1 or rank(card) == hi + 1


@lru_cache(maxsize=1 << 14)
def _best_layoffs(loose: tuple, melds: tuple) -> tuple:
    """The cards of ``loose`` to lay off on ``melds`` (extended as cards are added, so lay-offs
    chain) that remove the most deadwood; ties: fewer cards, then the smaller sorted tuple.
    Plain search over every order of lay-off."""
    best: tuple = ()
    for c in loose:
        for i, m in enumerate(melds):
            if _fits(c, m):
                grown = melds[:i] + (tuple(sorted(m + (c,))),) + melds[i + 1:]
                rest = tuple(x for x in loose if x != c)
                cand = tuple(sorted((c,) + _best_layoffs(rest, grown)))
                if (-deadwood_of(cand), len(cand), cand) < (-deadwood_of(best), len(best), best):
                    best = cand
    return best


def brute_layoff(defender_cards: CardsLike, knocker_melds: Iterable[Iterable[int]]) -> tuple[int, list[int], list[Meld]]:
    """The defender's best answer to a knock: ``(final_deadwood, laid_off_cards, defender_melds)``.

    The defender picks their own melds (any arrangement) and lays off unmatched cards on the
    knocker's melds (4th card on a 3-card set, extending a run at either end, chaining, several
    cards) to minimise the final deadwood. Each card is used once; the knocker's melds are not
    rearranged. Ties: fewest laid-off cards, then the smallest tuple of laid-off cards, then
    the smallest tuple of defender melds.
    """
    defender_cards = _cards(defender_cards)
    kmelds = tuple(tuple(sorted(int(c) for c in m)) for m in knocker_melds)
    for m in kmelds:
        if not is_meld(m):
            raise ValueError(f"not a meld: {C.format_cards(m)}")
    if set(c for m in kmelds for c in m) & set(defender_cards):
        raise ValueError("the knocker's melds share cards with the defender's hand")
    best_key, best = None, None
    for arr in arrangements(defender_cards):
        loose = tuple(unmelded(defender_cards, arr))
        laid = _best_layoffs(loose, kmelds)
        final = deadwood_of(loose) - deadwood_of(laid)
        own = sorted(arr)
        key = (final, len(laid), laid, tuple(own))
        if best_key is None or key < best_key:
            best_key, best = key, (final, list(laid), own)
    return best


# ----------------------------------------------------------------------------------------------
# The scalar engine
# ----------------------------------------------------------------------------------------------

@dataclass
class HandResult:
    """How a hand ended. ``defender_deadwood``: after lay-offs for knock/undercut, without
    lay-offs for gin/big gin, 0 for a wall. ``points`` are the hand's score (after the Oklahoma
    spade doubling)."""

    kind: str  # "knock", "gin", "undercut", "big_gin", "wall"
    knocker: int
    winner: int
    points: int
    knocker_deadwood: int = 0
    defender_deadwood: int = 0
    knocker_melds: list = field(default_factory=list)
    defender_melds: list = field(default_factory=list)
    layoffs: list = field(default_factory=list)
    games_ended: list = field(default_factory=list)
    hand_number: int = 0
    dealer: int = 0

    @property
    def kind_id(self) -> int:
        """The ``actions.KIND_*`` number of ``kind``."""
        return A.KIND_NAMES.index(self.kind)


def build_deck(non_dealer: CardsLike, dealer: CardsLike, upcard: int | str, stock: CardsLike = ()) -> list[int]:
    """A full 52-card deck for a scripted hand: the two 10-card hands, the first upcard, then
    the stock (its given cards first, in order; the remaining cards follow by index)."""
    nd, d = _cards(non_dealer), _cards(dealer)
    up = C.parse_card(upcard) if isinstance(upcard, str) else int(upcard)
    top = [C.parse_card(c) if isinstance(c, str) else int(c) for c in
           (stock.split() if isinstance(stock, str) else stock)]
    if len(nd) != 10 or len(d) != 10:
        raise ValueError("each hand needs 10 cards")
    head = nd + d + [up] + top
    if len(set(head)) != len(head):
        raise ValueError("a card is given twice")
    rest = [c for c in range(52) if c not in set(head)]
    return head + rest


class ReferenceGame:
    """One whole match, played one action at a time (the action table of
    :mod:`hollywood_env.actions`).

    Public state (read it, do not write it): ``current_player`` (-1 when the match is over),
    ``phase``, ``dealer``, ``hands`` (two sorted card lists), ``stock`` (next card first),
    ``discard_pile`` (top last), ``hand_number`` (every deal from 0, walls included),
    ``knock_limit``, ``upcard`` (this hand's first upcard), ``score_multiplier`` (2 for an
    Oklahoma spade upcard), ``taken_card`` (taken from the pile this turn, else None),
    ``scoresheet``, ``terminated``, ``last_rewards`` ([r0, r1]: change of each player's grand
    total in the last step), ``last_hand`` (a :class:`HandResult` on the step that ended a
    hand, else None), ``results`` (every HandResult of the match).

    ``decks``: optional decks (52 cards each, e.g. from :func:`build_deck`) for hands
    0, 1, ...; later hands are dealt from ``match_seed``. ``dealer``: the first dealer (default:
    the cut from ``match_seed``).
    """

    def __init__(self, rules: Rules | str | None = None, match_seed: int = 0, *,
                 decks: Sequence[Sequence[int]] | None = None, dealer: int | None = None):
        self.rules = resolve_rules(rules)
        self.match_seed = int(match_seed)
        self._decks = [[int(c) for c in d] for d in (decks or [])]
        for d in self._decks:
            if sorted(d) != list(range(52)):
                raise ValueError("a scripted deck must be a permutation of 0..51")
        self.scoresheet = Scoresheet(self.rules)
        if dealer is None:
            dealer = int(C.first_dealer(np.array([self.match_seed], dtype=np.uint64))[0])
        if dealer not in (0, 1):
            raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
        self.dealer = dealer
        self.hand_number = 0
        self.terminated = False
        self.last_rewards = [0, 0]
        self.last_hand: HandResult | None = None
        self.results: list[HandResult] = []
        self._deal()

    @classmethod
    def from_deck(cls, rules: Rules | str | None, deck: Sequence[int], dealer: int, match_seed: int = 0) -> ReferenceGame:
        """Start from a given deck for the first hand (later hands come from ``match_seed``)."""
        return cls(rules, match_seed, decks=[deck], dealer=dealer)

    def copy(self) -> ReferenceGame:
        return copy.deepcopy(self)

    # --- dealing -----------------------------------------------------------------------------
    def _deck(self, hand_number: int) -> list[int]:
        if hand_number < len(self._decks):
            return list(self._decks[hand_number])
        deck = C.deal_decks(np.array([self.match_seed], dtype=np.uint64), np.array([hand_number]))[0]
        return [int(c) for c in deck]

    def _deal(self) -> None:
        deck = self._deck(self.hand_number)
        non_dealer = 1 - self.dealer
        self.hands = [[], []]
        self.hands[non_dealer] = sorted(deck[0:10])
        self.hands[self.dealer] = sorted(deck[10:20])
        self.upcard = deck[20]
        self.discard_pile = [deck[20]]
        self.stock = deck[21:]
        self.phase = A.PHASE_FIRST_UPCARD
        self.current_player = non_dealer
        self.taken_card = None
        self._upcard_passes = 0
        r = self.rules
        if r.straight_gin:
            self.knock_limit = 0
        elif r.oklahoma:
            self.knock_limit = 0 if rank(self.upcard) == 0 else value(self.upcard)
        else:
            self.knock_limit = r.knock_limit
        spade = suit(self.upcard) == 3
        self.score_multiplier = 2 if (r.oklahoma and r.oklahoma_spade_doubles and spade) else 1
        self._after_discard = None  # cache of deadwood_after_discard for the discard phase

    # --- queries -----------------------------------------------------------------------------
    def deadwood_after_discard(self) -> dict[int, int]:
        """Discard phase: for each held card, the minimum deadwood of the other 10 cards."""
        if self.phase != A.PHASE_DISCARD:
            raise ValueError("deadwood_after_discard is only defined in the discard phase")
        if self._after_discard is None:
            self._after_discard = deadwood_after_discard(self.hands[self.current_player])
        return self._after_discard

    def legal_actions(self) -> list[int]:
        if self.terminated:
            return []
        if self.phase == A.PHASE_FIRST_UPCARD:
            return [A.TAKE_DISCARD, A.PASS]
        if self.phase == A.PHASE_DRAW:
            legal = []
            if self.stock:
                legal.append(A.DRAW_STOCK)
            if self.discard_pile:
                legal.append(A.TAKE_DISCARD)
            return legal
        # discard phase
        hand = self.hands[self.current_player]
        discardable = [c for c in hand
                       if not (self.rules.forbid_discard_of_taken_card and c == self.taken_card)]
        after = self.deadwood_after_discard()
        legal = [A.DISCARD + c for c in discardable]
        legal += [A.KNOCK + c for c in discardable if after[c] <= self.knock_limit]
        if self.rules.big_gin and min_deadwood(hand) == 0:
            legal.append(A.BIG_GIN)
        return sorted(legal)

    def totals(self) -> list[int]:
        """Each player's grand total (all columns plus settled bonuses)."""
        return [self.scoresheet.total(0), self.scoresheet.total(1)]

    # --- playing -----------------------------------------------------------------------------
    def step(self, action: int) -> None:
        action = int(action)
        legal = self.legal_actions()
        if action not in legal:
            try:
                name = A.action_name(action)
            except ValueError:
                name = "not an action"
            raise ValueError(
                f"illegal action {action} ({name}) in phase {A.PHASE_NAMES[self.phase]}; legal: "
                + (", ".join(f"{a} ({A.action_name(a)})" for a in legal) or "none (the match is over)"))
        self.last_hand = None
        self.last_rewards = [0, 0]  # totals only change when a hand ends (see _end_hand)
        p = self.current_player
        hand = self.hands[p]

        if self.phase == A.PHASE_FIRST_UPCARD:
            if action == A.TAKE_DISCARD:
                self._take(p, self.discard_pile.pop(), from_pile=True)
            elif p != self.dealer:  # the non-dealer passes: the dealer may take it
                self._upcard_passes += 1
                self.current_player = self.dealer
            else:  # both passed: the non-dealer draws from the stock
                self._upcard_passes += 1
                self.current_player = 1 - self.dealer
                self._take(self.current_player, self.stock.pop(0), from_pile=False)
        elif self.phase == A.PHASE_DRAW:
            if action == A.DRAW_STOCK:
                self._take(p, self.stock.pop(0), from_pile=False)
            else:
                self._take(p, self.discard_pile.pop(), from_pile=True)
        elif action == A.BIG_GIN:
            self._end_hand(self._settle(p, big_gin=True))
        else:
            card = action - A.KNOCK if action >= A.KNOCK else action - A.DISCARD
            hand.remove(card)
            self.discard_pile.append(card)
            self.taken_card = None
            self._after_discard = None
            if action >= A.KNOCK:
                self._end_hand(self._settle(p, big_gin=False))
            elif len(self.stock) == self.rules.wall_stock_size:
                self._end_hand(HandResult("wall", -1, -1, 0, hand_number=self.hand_number,
                                          dealer=self.dealer))
            else:
                self.current_player = 1 - p
                self.phase = A.PHASE_DRAW

    def _take(self, player: int, card: int, from_pile: bool) -> None:
        self.hands[player].append(card)
        self.hands[player].sort()
        self.taken_card = card if from_pile else None
        self.phase = A.PHASE_DISCARD
        self._after_discard = None

    def _settle(self, knocker: int, big_gin: bool) -> HandResult:
        """Score a knock (the discard already made) or a big gin."""
        r = self.rules
        defender = 1 - knocker
        kcards, dcards = self.hands[knocker], self.hands[defender]
        kmelds = brute_knocker_arrangement(kcards, r, dcards)
        d_k = deadwood_of(unmelded(kcards, kmelds))
        if big_gin or d_k == 0:
            dmelds = brute_knocker_arrangement(dcards, r.replace(knocker_arrangement="fewest_set_cards"))
            d_d = deadwood_of(unmelded(dcards, dmelds))
            kind = "big_gin" if big_gin else "gin"
            bonus = r.big_gin_bonus if big_gin else r.gin_bonus
            res = HandResult(kind, knocker, knocker, d_d + bonus, 0, d_d, kmelds, dmelds, [])
        else:
            d_d, laid, dmelds = brute_layoff(dcards, kmelds)
            dmelds = layout(dmelds)  # the defender lays runs out whole too
            if d_d <= d_k:
                res = HandResult("undercut", knocker, defender, d_k - d_d + r.undercut_bonus,
                                 d_k, d_d, kmelds, dmelds, laid)
            else:
                res = HandResult("knock", knocker, knocker, d_d - d_k, d_k, d_d, kmelds, dmelds, laid)
        res.points *= self.score_multiplier
        res.hand_number = self.hand_number
        res.dealer = self.dealer
        return res

    def _end_hand(self, res: HandResult) -> None:
        before = self.totals()
        if res.kind == "wall":
            res.games_ended = self.scoresheet.record_wall()
            next_dealer = self.dealer
        else:
            res.games_ended = self.scoresheet.record(res.winner, res.points)
            loser = 1 - res.winner
            next_dealer = {"loser": loser, "winner": res.winner,
                           "alternate": 1 - self.dealer}[self.rules.next_dealer]
        after = self.totals()
        self.last_rewards = [after[0] - before[0], after[1] - before[1]]
        self.last_hand = res
        self.results.append(res)
        self._after_discard = None
        if self.scoresheet.match_over:
            self.terminated = True
            self.phase = A.PHASE_GAME_OVER
            self.current_player = -1
            self.taken_card = None
            return
        self.dealer = next_dealer
        self.hand_number += 1
        self._deal()

    # --- display -----------------------------------------------------------------------------
    def render(self) -> str:
        lines = [f"hand {self.hand_number}, dealer {self.dealer}, phase {A.PHASE_NAMES[self.phase]}, "
                 f"player {self.current_player} to move, knock limit {self.knock_limit}"]
        for p in range(2):
            lines.append(f"  player {p}: {C.format_cards(self.hands[p])}")
        top = C.format_card(self.discard_pile[-1]) if self.discard_pile else "-"
        lines.append(f"  pile top {top} ({len(self.discard_pile)}), stock {len(self.stock)}")
        lines.append(self.scoresheet.render())
        return "\n".join(lines)
