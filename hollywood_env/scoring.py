"""Hand settlement and the Hollywood scoresheet (docs/rules.md sections 2.5-4), batched.

* :func:`settle_hands` settles many knocks at once (knocker's arrangement, defender's lay-offs,
  knock / gin / undercut / big gin, points); :func:`settle_hand` is its one-hand form.
* :class:`BatchScoresheet` holds the scoresheets of B matches as arrays and records won hands
  for any subset of them. :class:`~hollywood_env.scoresheet.Scoresheet` is the readable
  one-match reference the tests hold it to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from . import melds as M
from .actions import KIND_BIG_GIN, KIND_GIN, KIND_KNOCK, KIND_NAMES, KIND_UNDERCUT
from .cards import as_card_list, cards_to_mask, mask_to_cards
from .rules import Rules, resolve_rules


@dataclass
class Settlement:
    """Batched result of settling N hands (all arrays of length N)."""

    kind: np.ndarray  # KIND_KNOCK, KIND_GIN, KIND_UNDERCUT, KIND_BIG_GIN
    knocker_wins: np.ndarray  # bool
    points: np.ndarray  # int64, before any Oklahoma multiplier
    knocker_deadwood: np.ndarray
    defender_deadwood: np.ndarray  # after lay-offs (no lay-offs on gin)
    knocker_sets: np.ndarray  # uint64 masks
    knocker_runs: np.ndarray
    defender_sets: np.ndarray
    defender_runs: np.ndarray
    laid_off: np.ndarray


def _knocker_fewest_layoffs(knocker, defender):
    """The knocker's min-deadwood arrangement that leaves the defender the most deadwood."""
    row_hand, sets, runs, _ = M.min_arrangement_rows(knocker)
    final, _, _, _ = M.layoff_masks(defender[row_hand], sets, runs)
    # per knocker hand: highest defender deadwood, then fewest set cards, then smallest set mask
    order = np.lexsort((sets, M.popcount(sets), -final, row_hand))
    first = np.ones(order.shape[0], dtype=bool)
    first[1:] = row_hand[order][1:] != row_hand[order][:-1]
    chosen = order[first]
    return sets[chosen], runs[chosen]


def settle_hands(knocker: np.ndarray, defender: np.ndarray, rules: Rules, big_gin: np.ndarray | None = None) -> Settlement:
    """Settle N knocks. ``knocker`` / ``defender`` are uint64 masks after the knocker's discard
    (11 cards for a big gin). ``big_gin`` (bool, N) marks big-gin declarations."""
    knocker = np.asarray(knocker, dtype=np.uint64).reshape(-1)
    defender = np.asarray(defender, dtype=np.uint64).reshape(-1)
    n = knocker.shape[0]
    big = np.zeros(n, dtype=bool) if big_gin is None else np.asarray(big_gin, dtype=bool)
    # both players' arrangements in one call (the per-call cost dominates for the few knocks of a step)
    dw2, sets2, runs2 = M.best_arrangement_masks(np.concatenate([knocker, defender]))
    kdw, ksets, kruns = dw2[:n], sets2[:n].copy(), runs2[:n].copy()
    if rules.knocker_arrangement == "fewest_layoffs":
        knock_rows = kdw > 0  # gin: nothing is laid off, the arrangement does not matter
        if np.any(knock_rows):
            s, r = _knocker_fewest_layoffs(knocker[knock_rows], defender[knock_rows])
            ksets[knock_rows], kruns[knock_rows] = s, r
    gin = kdw == 0
    plain_dw, plain_sets, plain_runs = dw2[n:], sets2[n:], runs2[n:]
    final, laid, dsets, druns = plain_dw.copy(), np.zeros(n, dtype=np.uint64), plain_sets, plain_runs
    knock_idx = np.flatnonzero(~gin)
    if knock_idx.size:
        f, lay, s, r = M.layoff_masks(defender[knock_idx], ksets[knock_idx], kruns[knock_idx])
        final[knock_idx], laid[knock_idx] = f, lay
        dsets = dsets.copy()
        druns = druns.copy()
        dsets[knock_idx], druns[knock_idx] = s, r
    undercut = ~gin & (final <= kdw)
    kind = np.where(gin, np.where(big, KIND_BIG_GIN, KIND_GIN), np.where(undercut, KIND_UNDERCUT, KIND_KNOCK))
    points = np.where(
        gin,
        final + np.where(big, rules.big_gin_bonus, rules.gin_bonus),
        np.where(undercut, kdw - final + rules.undercut_bonus, final - kdw),
    )
    return Settlement(kind.astype(np.int8), ~undercut, points.astype(np.int64), kdw, final, ksets, kruns, dsets, druns, laid)


@dataclass
class HandSettlement:
    """One settled hand (see :func:`settle_hand`)."""

    kind: str  # "knock", "gin", "undercut", "big_gin"
    winner: str  # "knocker" or "defender"
    points: int
    knocker_deadwood: int
    defender_deadwood: int
    knocker_melds: list = field(default_factory=list)
    defender_melds: list = field(default_factory=list)
    layoffs: list = field(default_factory=list)


#: a hand as :func:`settle_hand` accepts it: card indices or strings, one string, or a (52,) bool array
HandLike = str | Iterable[int | str] | np.ndarray


def settle_hand(knocker_hand: HandLike, defender_hand: HandLike, rules: Rules | str | None = None,
                knock_limit: int | None = None) -> HandSettlement:
    """Settle one knock. Hands are card lists, strings or (52,) bool arrays, after the discard.

    An 11-card knocker hand with 0 deadwood is a big gin (needs ``rules.big_gin``). Raises
    ``ValueError`` when the knocker's deadwood is over the knock limit.
    """
    rules = resolve_rules(rules)
    kc, dc = as_card_list(knocker_hand), as_card_list(defender_hand)
    if set(kc) & set(dc):
        raise ValueError(f"the hands share cards: {sorted(set(kc) & set(dc))}")
    if len(kc) not in (10, 11) or len(dc) != 10:
        raise ValueError(f"expected a knocker hand of 10 cards (11 for big gin) and a defender hand of 10, "
                         f"got {len(kc)} and {len(dc)}")
    limit = (0 if rules.straight_gin else rules.knock_limit) if knock_limit is None else knock_limit
    k = np.array([cards_to_mask(kc)], dtype=np.uint64)
    d = np.array([cards_to_mask(dc)], dtype=np.uint64)
    dw = int(M.min_deadwood_masks(k)[0])
    big = len(kc) == 11
    if big and (dw != 0 or not rules.big_gin):
        raise ValueError("an 11-card knocker hand is a big gin declaration: it needs rules.big_gin and 0 deadwood "
                         f"(deadwood {dw}, big_gin={rules.big_gin})")
    if dw > limit:
        raise ValueError(f"the knocker's deadwood {dw} exceeds the knock limit {limit}")
    s = settle_hands(k, d, rules, np.array([big]))
    return HandSettlement(
        kind=KIND_NAMES[int(s.kind[0])],
        winner="knocker" if s.knocker_wins[0] else "defender",
        points=int(s.points[0]),
        knocker_deadwood=int(s.knocker_deadwood[0]),
        defender_deadwood=int(s.defender_deadwood[0]),
        knocker_melds=M.melds_from_masks(int(s.knocker_sets[0]), int(s.knocker_runs[0])),
        defender_melds=M.melds_from_masks(int(s.defender_sets[0]), int(s.defender_runs[0])),
        layoffs=mask_to_cards(int(s.laid_off[0])),
    )


class BatchScoresheet:
    """The Hollywood scoresheets of B matches (docs/rules.md section 4) as arrays.

    ``columns``, ``hands_scored``: (B, 2, C) int64; ``opened``: (B, 2, C) bool;
    ``game_winner``: (B, C) int8, -1 while a game is in progress. ``version`` (B,) counts each
    game's changes (observation caches use it), so change the arrays only through the methods.
    """

    def __init__(self, batch_size: int, rules: Rules):
        self.rules = rules
        c = rules.columns
        self.columns = np.zeros((batch_size, 2, c), dtype=np.int64)
        self.hands_scored = np.zeros((batch_size, 2, c), dtype=np.int64)
        self.opened = np.zeros((batch_size, 2, c), dtype=bool)
        self.game_winner = np.full((batch_size, c), -1, dtype=np.int8)
        self.version = np.zeros(batch_size, dtype=np.int64)

    def clear(self, games: np.ndarray | slice) -> None:
        self.version[games] += 1
        self.columns[games] = 0
        self.hands_scored[games] = 0
        self.opened[games] = False
        self.game_winner[games] = -1

    def totals(self, games: np.ndarray | slice = slice(None)) -> np.ndarray:
        """(n, 2, C): column points plus the bonuses of ended games."""
        r = self.rules
        cols, boxes, gw = self.columns[games], self.hands_scored[games], self.game_winner[games]
        ended = gw[:, None, :] >= 0
        won = gw[:, None, :] == np.arange(2)[None, :, None]
        loser_zero = np.take_along_axis(cols, (1 - np.maximum(gw, 0))[:, None, :].astype(np.int64), axis=1) == 0
        shutout = won & loser_zero
        game_bonus = r.game_bonus * (1 + (shutout & (r.shutout == "double_game_bonus")))
        total = cols + np.where(ended, boxes * r.box_bonus + won * game_bonus, 0)
        if r.shutout == "double_all":
            total = np.where(shutout, 2 * total, total)
        return total

    def record(self, games: np.ndarray, winners: np.ndarray,
               points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Record won hands. Returns ``(reward (n, 2), credited (n, C), ended (n, C))``."""
        r = self.rules
        self.version[games] += 1
        before = self.totals(games).sum(axis=2)
        rows = np.arange(games.shape[0])
        opened = self.opened[games, winners]  # (n, C)
        in_progress = self.game_winner[games] < 0
        can_open = ~opened & in_progress
        first = np.argmax(can_open, axis=1)
        opened[rows, first] |= can_open[rows, first]
        self.opened[games, winners] = opened
        credited = opened & in_progress
        cols = self.columns[games, winners] + credited * points[:, None]
        self.columns[games, winners] = cols
        self.hands_scored[games, winners] += credited
        ended = in_progress & (cols >= r.target)
        gw = self.game_winner[games]
        self.game_winner[games] = np.where(ended, winners[:, None].astype(np.int8), gw)
        reward = self.totals(games).sum(axis=2) - before
        return reward, credited, ended

    def match_over(self, games: np.ndarray | slice = slice(None)) -> np.ndarray:
        gw = self.game_winner[games]
        if self.rules.short_session:
            return np.any(gw >= 0, axis=1)
        return np.all(gw >= 0, axis=1)

    def match_winner(self, games: np.ndarray | slice = slice(None)) -> np.ndarray:
        """0 or 1, or 2 for a drawn match (meaningful only once the match is over)."""
        if self.rules.match_winner == "majority":
            gw = self.game_winner[games]
            a, b = (gw == 0).sum(axis=1), (gw == 1).sum(axis=1)
        else:
            t = self.totals(games).sum(axis=2)
            a, b = t[:, 0], t[:, 1]
        return np.where(a > b, 0, np.where(b > a, 1, 2)).astype(np.int8)
