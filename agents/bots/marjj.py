"""``marjj``: a batched reference bot modelled on MARJJ, the winner of the EAAI-2021 Gin Rummy
competition (Ahmed, Leppo, Lesniewski, Patel, Perez and Blum, Penn State Harrisburg, "A Heuristic
Evaluation Function for Hand Strength Estimation in Gin Rummy", AAAI-21). Written from the
published description of its strategy; the code here is our own, batched over the rows.

What it sees
------------
The observation and the legal-action mask only, decoded by :func:`agents.bots.decode` as every
bot of :mod:`agents.bots` is: its hand, the discard pile, the cards the opponent took from the pile
and still holds, the cards each player discarded this hand, the stock size and the knock limit in
force. It never reads the state, so it knows nothing of the opponent's other cards or the stock
order (tested: swapping them leaves its moves unchanged). It ignores the scoresheet. It keeps no
memory between calls: "its turn number" is the number of cards it discarded this hand (the
observation's ``OWN_DISCARDED`` plane) plus one; a card it discarded twice in a hand counts once.

Its play
--------
*Upcard* (first upcard and draw phase): take it when it lies in a meld of the best arrangement of
hand + upcard **and** the least deadwood after the best legal discard is below the deadwood of the
hand now (the upcard must improve the melds); otherwise draw from the stock (pass the first
upcard). With ``early_take`` it also takes an upcard that lets it knock at once while it may still
knock (below).

*Knock*: big gin when legal; gin (a knock leaving no deadwood) whenever legal; a knock with
deadwood only on its first ``early_turns`` turns of a hand (the knock that leaves the least
deadwood), later only with at most ``late_deadwood`` deadwood (0: it waits for gin), or, with
``wall_knock``, on the last discard before the wall (a plain discard there ends the hand
unscored). Holding out for gin with low deadwood is what lets it undercut bots that knock early.

*Discard* by expected value, the smallest of ``my_ev + danger_scale * opp_ev`` over the candidates:

* candidates: the legal discards that are deadwood in some minimum-deadwood arrangement of the 11
  cards, within ``spread`` points of the most valuable such card, and whose discard leaves at most
  ``spread`` more deadwood than the best candidate (all legal discards if none is deadwood);
* ``my_ev = deadwood after the discard + future_weight * F * future_decay ** (turn - 1)``, where
  ``F`` is the mean of the ``future_cards`` smallest values, over the cards it has not seen (not in
  its hand, the pile, the opponent's known cards or either player's discards), of the deadwood of
  the 10 cards kept plus that card after the best discard: how good the hand kept is at drawing;
* ``opp_ev``: "danger" of feeding the opponent, negative for safe cards. With the opponent's cards
  those it took from the pile, and *dead* cards those it cannot hold (ours, the pile's, the cards
  either player discarded, the edges of the suit): a run through the card blocked by dead
  neighbours scores ``sequence_bonus``, else each dead neighbour ``adj_bonus`` (next rank) or
  ``adj2_bonus`` (two ranks away); the opponent holding two cards that run with it scores
  ``sequence_penalty``, else each suited neighbour it holds ``adj_penalty`` / ``adj2_penalty``;
  two other cards of the rank dead score ``set_bonus`` (one: ``rank_bonus``), the opponent holding
  two of the rank ``set_penalty`` (one: ``rank_penalty``). So a card the opponent discarded or
  declined (left in the pile) makes its neighbours and its rank safe, and a card next to or of the
  rank of a card it picked up is dangerous.

Ties between equal values are broken at random with the bot's generator (``seed``), as MARJJ
draws its tie-break at random; with the same seed and calls it plays the same moves.

Differences from MARJJ: its knocks pick the least-deadwood discard (MARJJ knocks with the
expected-value discard); its sequence penalty is counted on the runs the card would really
complete, and its rank penalty on the opponent's single card of the rank (MARJJ's source tests
another count there); it lays out the engine's arrangement (lay-offs are the engine's).

How it differs from the other bots
----------------------------------
``simple`` knocks as soon as it can, takes the upcard when it melds or lets it knock, and discards
its highest deadwood card, seeing nothing of the opponent. ``hollywood`` also knocks early (and
reads the scoresheet to decide when to hold out), discards by deadwood minus live outs plus a
danger term. ``marjj`` knocks only early in a hand and then plays for gin, values a discard by the
future deadwood of the hand it keeps (weighted heavily early in the hand), and scores danger and
safety from the dead and the opponent's cards around the discard.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.bots import PhaseBot, View, best_knock, meldable_with, openspiel_melded, simple_discard
from agents.bots.base import bot_params
from hollywood_env import kernels
from hollywood_env import melds as M
from hollywood_env.actions import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD
from hollywood_env.cards import CARD_BITS, CARD_VALUES, NUM_CARDS, masks_to_bools
from hollywood_env.rules import Rules
from hollywood_env.sampling import SeedLike

__all__ = ["MarjjBot", "MarjjParams", "PatientBot"]

U64 = np.uint64
_ALL = U64((1 << NUM_CARDS) - 1)
_RANK = np.arange(NUM_CARDS) % 13
_SUIT = np.arange(NUM_CARDS) // 13
_VALUE = CARD_VALUES.astype(np.int64)
#: all four cards of each rank
_RANK_ROWS = np.array([sum(1 << (13 * s + r) for s in range(4)) for r in range(13)], dtype=np.uint64)
_BIG = 10**6


@dataclass(frozen=True)
class MarjjParams:
    """The knobs of :class:`MarjjBot` (see the module docstring). The defaults are MARJJ's
    published values (knock on the first 3 turns, then gin only; its future-deadwood weights and
    danger constants) plus ``wall_knock``.

    Tuning in Hollywood matches against ``simple`` and ``hollywood`` (duplicate deals, 600 to
    1,200 matches per setting and opponent, seeds 11-19) found nothing clearly better: every
    setting below lay within about 3 points of match win rate of the defaults, inside the noise,
    except these, clearly worse: knocking on 5 or 8 early turns (vs ``simple`` 71% / 64% against
    73%), knocking later with deadwood up to 2 or 4 (69% / 64%), and no danger term at all (66%).
    ``early_turns`` 0-2, ``danger_scale`` 0.5-3, ``future_weight`` 9 or 36, no decay, ``early_take``
    and ``wall_knock`` off changed nothing measurable."""

    #: it may knock with deadwood on its first ``early_turns`` discards of a hand
    early_turns: int = 3
    #: after that, knock only with at most this deadwood (0: gin only)
    late_deadwood: int = 0
    #: knock (if legal) on the last discard before the wall
    wall_knock: bool = True
    #: take an upcard that lets it knock at once while it may still knock
    early_take: bool = False
    #: candidate discards: within this many points of the most valuable deadwood card, and of
    #: the best deadwood after a discard
    spread: int = 5
    #: weight, decay per turn and number of best draws of the future-deadwood term
    future_weight: float = 18.0
    future_decay: float = 0.9
    future_cards: int = 7
    #: multiplies every danger / safety term below
    danger_scale: float = 1.0
    sequence_bonus: float = -10.0
    adj_bonus: float = -5.0
    adj2_bonus: float = -3.0
    sequence_penalty: float = 20.0
    adj_penalty: float = 5.0
    adj2_penalty: float = 3.0
    set_bonus: float = -10.0
    rank_bonus: float = -4.0
    set_penalty: float = 20.0
    rank_penalty: float = 4.0


def _card_rows(masks: np.ndarray):
    """Every (row, card) with ``card`` in ``masks[row]``, rows ascending."""
    return np.nonzero(masks_to_bools(np.asarray(masks, dtype=np.uint64)))


def _min_per_row(rows: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    out = np.full(n, _BIG, dtype=np.int64)
    np.minimum.at(out, rows, values)
    return out


@kernels.jit
def _least_after_discard_compiled(hands: np.ndarray, values: np.ndarray, out: np.ndarray) -> None:
    """:func:`least_after_discard` in one compiled loop (``int64`` hands; ``values``: each card's
    deadwood value), with the shortcut of :func:`least_after_discard_batched`."""
    for i in range(hands.shape[0]):
        hand = hands[i]
        dw, loose = kernels.min_deadwood_loose(hand)
        best = _BIG
        for c in range(52):
            if (loose >> c) & 1 and dw - values[c] < best:
                best = dw - values[c]
        for c in range(52):
            if (hand >> c) & 1 and not (loose >> c) & 1 and dw - values[c] < best:
                d = kernels.min_deadwood(hand ^ (1 << c))
                if d < best:
                    best = d
        out[i] = best


def least_after_discard(hands: np.ndarray) -> np.ndarray:
    """Per hand (uint64 masks, any size), the least deadwood after discarding one of its cards
    (``10**6`` for a hand without cards).

    The bot's dearest computation: with numba one compiled loop, else (HOLLYWOOD_GIN_NUMBA=0)
    :func:`least_after_discard_batched`; the two agree (tested)."""
    hands = np.ascontiguousarray(hands, dtype=np.uint64).reshape(-1)
    if kernels.AVAILABLE:
        out = np.empty(hands.size, dtype=np.int64)
        _least_after_discard_compiled(hands.view(np.int64), _VALUE, out)
        return out
    return least_after_discard_batched(hands)


def least_after_discard_batched(hands: np.ndarray) -> np.ndarray:
    """:func:`least_after_discard` in numpy.

    A card left as deadwood by some minimum-deadwood arrangement (deadwood ``D``) leaves exactly
    ``D - value``; a card melded in every such arrangement leaves at least ``D - value``, so only
    the melded cards worth more than the best loose card are evaluated in full."""
    hands = np.asarray(hands, dtype=np.uint64).reshape(-1)
    n = hands.size
    ar, sets, runs, dw = M.min_arrangement_rows(hands)
    loose = np.zeros(n, dtype=np.uint64)
    np.bitwise_or.at(loose, ar, hands[ar] & ~(sets | runs))
    d = np.zeros(n, dtype=np.int64)
    d[ar] = dw
    r, c = _card_rows(loose)
    top = np.zeros(n, dtype=np.int64)
    np.maximum.at(top, r, _VALUE[c])
    best = np.where(loose != 0, d - top, _BIG)
    r, c = _card_rows(hands & ~loose)
    maybe = d[r] - _VALUE[c] < best[r]
    r, c = r[maybe], c[maybe]
    if r.size:
        np.minimum.at(best, r, M.min_deadwood_masks(hands[r] & ~CARD_BITS[c]))
    return best


def _suit_bit(masks: np.ndarray, suit: np.ndarray, rank: np.ndarray, edge: int) -> np.ndarray:
    """int 0/1: card (suit, rank) is in ``masks``; ``edge`` where the rank is off the suit."""
    inside = (rank >= 0) & (rank <= 12)
    r = np.clip(rank, 0, 12)
    bit = (masks >> (U64(13) * suit.astype(np.uint64) + r.astype(np.uint64))) & U64(1)
    return np.where(inside, bit.astype(np.int64), edge)


class MarjjBot(PhaseBot):
    """MARJJ's strategy (EAAI-2021 Gin Rummy winner), batched: see :mod:`agents.bots.marjj`."""

    name = "marjj"
    full_view = True  # the whole view: the pile, the discards, the opponent's known cards

    def __init__(self, rules: Rules | str | None = None, seed: SeedLike = None, params: MarjjParams | None = None,
                 **kw: Any):
        super().__init__(rules, seed)
        self.params = bot_params(MarjjParams, params, kw, "MarjjBot")

    # --- upcard -------------------------------------------------------------------------------
    def _draw(self, v: View, rows):
        up = v.top[rows]
        upbit = CARD_BITS[up]
        hand = v.hand[rows]
        h11 = hand | upbit
        _, sets, runs = M.best_arrangement_masks(h11)
        melds = ((sets | runs) & upbit) != 0
        allowed = h11 & ~upbit if self.rules.forbid_discard_of_taken_card else h11
        take = melds.copy()
        m = np.flatnonzero(melds)
        if m.size:
            if self.rules.forbid_discard_of_taken_card:  # the upcard may not go straight back
                r, c = _card_rows(allowed[m])
                after = _min_per_row(r, M.min_deadwood_masks(h11[m][r] & ~CARD_BITS[c]), m.size)
            else:
                after = least_after_discard(h11[m])
            take[m] = after < M.min_deadwood_masks(hand[m])
        if self.params.early_take:
            early = (M.popcount(v.own_discarded[rows]) < self.params.early_turns) & ~take
            e = np.flatnonzero(early)
            if e.size:
                take[e] = M.knock_discards(h11[e], v.knock_limit[rows[e]], allowed[e]) != 0
        return np.where(take, TAKE_DISCARD, np.where(v.first_upcard[rows], PASS, DRAW_STOCK))

    # --- discard and knock ----------------------------------------------------------------------
    def _discard(self, obs, v: View, rows, mask):
        p = self.params
        n = rows.size
        hand = v.hand[rows]
        knocks = v.legal_knocks[rows]
        out = np.zeros(n, dtype=np.int64)
        can = np.flatnonzero(knocks != 0)
        go = np.zeros(n, dtype=bool)
        if can.size:
            r, c = _card_rows(knocks[can])
            best_dw = _min_per_row(r, M.min_deadwood_masks(hand[can][r] & ~CARD_BITS[c]), can.size)
            turn = M.popcount(v.own_discarded[rows[can]]) + 1
            ok = (best_dw == 0) | (turn <= p.early_turns) | (best_dw <= p.late_deadwood)
            if p.wall_knock:
                ok |= v.stock[rows[can]] == self.rules.wall_stock_size
            go[can] = ok
            g = can[ok]
            if g.size:
                out[g] = KNOCK + best_knock(hand[g], knocks[g])
        plain = np.flatnonzero(~go)
        if plain.size:
            out[plain] = DISCARD + self.choose_discard(v, rows[plain])
        out[mask[rows, BIG_GIN]] = BIG_GIN
        return out

    def choose_discard(self, v: View, g: np.ndarray) -> np.ndarray:
        """The expected-value discard (a card index) of the rows ``g`` of ``v`` (discard phase)."""
        p = self.params
        n = g.size
        hand, legal = v.hand[g], v.legal_discards[g]
        # candidates: legal cards left as deadwood by some minimum-deadwood arrangement
        ar, sets, runs, _ = M.min_arrangement_rows(hand)
        loose = np.zeros(n, dtype=np.uint64)
        np.bitwise_or.at(loose, ar, hand[ar] & ~(sets | runs))
        cand = loose & legal
        cand = np.where(cand == 0, legal, cand)
        r, c = _card_rows(cand)
        top = np.zeros(n, dtype=np.int64)
        np.maximum.at(top, r, _VALUE[c])
        keep = _VALUE[c] >= top[r] - p.spread
        keep |= (loose[r] & legal[r]) == 0  # no deadwood card: every legal discard
        r, c = r[keep], c[keep]
        kept = hand[r] & ~CARD_BITS[c]
        dw = M.min_deadwood_masks(kept)
        best = _min_per_row(r, dw, n)
        keep = dw <= best[r] + p.spread
        r, c, kept, dw = r[keep], c[keep], kept[keep], dw[keep]

        seen = v.hand[g] | v.pile[g] | v.opp_known[g] | v.opp_discarded[g] | v.own_discarded[g]
        unseen = ~seen[r] & _ALL
        turn = M.popcount(v.own_discarded[g])[r] + 1
        future = self._future_deadwood(kept, dw, unseen)
        my_ev = dw + p.future_weight * future * p.future_decay ** (turn - 1)
        key = my_ev + p.danger_scale * self._danger(v, g, r, c)
        # the smallest key per row, ties at random (the bot's generator)
        order = np.lexsort((self.rng.random(r.size), np.round(key, 9), r))
        rs = r[order]
        first = np.ones(rs.size, dtype=bool)
        first[1:] = rs[1:] != rs[:-1]
        out = np.full(n, -1, dtype=np.int64)
        out[rs[first]] = c[order][first]
        return out

    def _future_deadwood(self, kept: np.ndarray, dw: np.ndarray, unseen: np.ndarray) -> np.ndarray:
        """Per kept 10-card hand, the mean of the ``future_cards`` least deadwoods after drawing one
        unseen card and discarding the best card (0 if nothing is unseen).

        A drawn card that melds with nothing of the hand stays deadwood: the best is then to throw
        it back (deadwood ``dw``) or keep it and discard the best of the 10 (``value + m9``, with
        ``m9`` the least deadwood of 9 of the 10 cards); only the cards that meld with the hand
        are evaluated in full."""
        k = kept.size
        m9 = least_after_discard(kept)
        after = np.minimum(dw[:, None], _VALUE[None, :] + m9[:, None])  # (k, 52) unmelded draws
        melding = meldable_with(kept) & unseen
        pr, x = _card_rows(melding)
        if pr.size:
            after[pr, x] = least_after_discard(kept[pr] | CARD_BITS[x])
        ok = masks_to_bools(unseen)
        after = np.where(ok, after, _BIG)
        t = min(self.params.future_cards, NUM_CARDS)
        if t <= 0:
            return np.zeros(k)
        best = np.partition(after, t - 1, axis=1)[:, :t]
        valid = best < _BIG
        cnt = valid.sum(axis=1)
        return np.where(cnt > 0, np.where(valid, best, 0).sum(axis=1) / np.maximum(cnt, 1), 0.0)

    def _danger(self, v: View, g: np.ndarray, r: np.ndarray, c: np.ndarray) -> np.ndarray:
        """MARJJ's opponent term of discarding card ``c`` in row ``g[r]``: penalties for feeding the
        opponent's known cards, bonuses for cards whose melds are blocked by dead cards."""
        p = self.params
        opp = v.opp_known[g][r]
        dead = (v.hand[g] | v.pile[g] | v.opp_discarded[g] | v.own_discarded[g])[r] & ~opp
        rk, st = _RANK[c], _SUIT[c]
        dl1, dh1 = _suit_bit(dead, st, rk - 1, 1), _suit_bit(dead, st, rk + 1, 1)
        dl2, dh2 = _suit_bit(dead, st, rk - 2, 1), _suit_bit(dead, st, rk + 2, 1)
        ol1, oh1 = _suit_bit(opp, st, rk - 1, 0), _suit_bit(opp, st, rk + 1, 0)
        ol2, oh2 = _suit_bit(opp, st, rk - 2, 0), _suit_bit(opp, st, rk + 2, 0)
        blocked = (dl1 & dh1) | (dl1 & dh2) | (dh1 & dl2)  # every run through c has a dead card
        score = np.where(blocked == 1, p.sequence_bonus, p.adj_bonus * (dl1 + dh1) + p.adj2_bonus * (dl2 + dh2))
        threat = (ol1 & ol2) | (ol1 & oh1) | (oh1 & oh2)  # c completes a run of the opponent's
        score = score + np.where(threat == 1, p.sequence_penalty,
                                 p.adj_penalty * (ol1 + oh1) + p.adj2_penalty * (ol2 + oh2))
        same = _RANK_ROWS[rk] & ~CARD_BITS[c]
        dead_same = M.popcount(dead & same)
        opp_same = M.popcount(opp & same)
        score = score + np.where(dead_same >= 2, p.set_bonus, np.where(dead_same == 1, p.rank_bonus, 0.0))
        score = score + np.where(opp_same >= 2, p.set_penalty, np.where(opp_same == 1, p.rank_penalty, 0.0))
        return score


class PatientBot(MarjjBot):
    """``patient``: ``marjj``'s upcard and knock rules (it waits for gin after its first turns)
    with ``simple``'s discard (the highest-ranked deadwood card of the best arrangement that is a
    legal discard; if none is, the highest-ranked legal discard). A cheap model of an opponent who
    holds out for gin and undercuts, for the search's rollouts: ``marjj``'s expected-value discard
    costs about seven times as much per rollout step. It reads only its hand, the upcard, its own
    discards (its turn) and the stock size, so the search plays it straight from the state."""

    name = "patient"

    def choose_discard(self, v: View, g: np.ndarray) -> np.ndarray:
        hand = v.hand[g]
        return simple_discard(hand & ~openspiel_melded(hand), v.legal_discards[g])
