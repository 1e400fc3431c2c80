"""The Hollywood scoresheet of one match (``docs/rules.md`` section 4), written to be read.

This is the slow, obvious reference: plain Python lists inside, numpy arrays only at the
boundary. The batched engine keeps the same numbers in arrays and is tested against this.

The sheet
=========

Each player has ``C = rules.columns`` columns; column ``k`` is that player's score in game ``k``
(games are numbered from 0 in the code, "game 1" in the rule book is index 0).

Recording a won hand (:meth:`Scoresheet.record`), in this order:

1. **Open.** The winner opens the lowest-numbered column that they have not opened yet and whose
   game is still in progress (if there is one). A player who was shut out of game 1 (it ended
   before they won a hand) therefore opens game 2 with their first win.
2. **Score.** The hand's points are added to every column the winner has opened whose game is
   still in progress, and each of those columns credits the winner with one more hand
   (``hands_scored``, used for the box bonus). Hence the 1st win scores in game 1 only, the 2nd
   in games 1-2, the 3rd and later in all games still in progress.
3. **End games.** Game ``k`` ends as soon as a column ``k`` reaches ``rules.target``; the
   player who reached it wins game ``k``. An ended game takes no more points.

Only the winner's columns change, so at most one player can reach the target in a game per
record; a single record can end several games at once.

A wall (:meth:`Scoresheet.record_wall`) changes nothing.

Bonuses (:meth:`Scoresheet.totals`) are settled per game when it ends and never count toward
the target:

* ``rules.game_bonus`` to the game's winner;
* ``rules.box_bonus`` per hand credited to each player in that game (both players);
* shutout (the loser's column is 0): with ``shutout="double_game_bonus"`` the game bonus is
  doubled; with ``"double_all"`` the winner's whole total for that game (column points + game
  bonus + box bonuses) is doubled.

The match is over when every game has ended, or when the first game ends with
``rules.short_session``. Match winner: ``"majority"`` -> the player who won more of the ended
games; ``"total"`` -> the larger sum of :meth:`Scoresheet.totals`; equal -> ``-1`` (a draw).

Worked example (default rules: 3 games to 100, game bonus 100, box bonus 25)
==========================================================================

>>> from hollywood_env.rules import Rules
>>> s = Scoresheet(Rules())
>>> s.record(0, 20)          # A's 1st win: opens A's game 1
[]
>>> s.record(1, 30)          # B's 1st win: opens B's game 1
[]
>>> s.record(0, 40)          # A's 2nd win: opens game 2, scores in games 1 and 2
[]
>>> s.columns.tolist()
[[60, 40, 0], [30, 0, 0]]
>>> s.record(0, 50)          # A's 3rd win: opens game 3; game 1 reaches 110 and ends
[0]
>>> s.columns.tolist()
[[110, 90, 50], [30, 0, 0]]
>>> s.totals().tolist()      # game 1: A 110 + 100 + 3 boxes; B 30 + 1 box
[[285, 90, 50], [55, 0, 0]]
>>> s.record(1, 10)          # B's game 1 has ended: B opens game 2 (not game 3)
[]
>>> s.record(0, 15)          # game 2 reaches 105 and ends; game 3 goes to 65
[1]
>>> s.record(0, 40)          # game 3 reaches 105; B never scored in it: shutout
[2]
>>> s.totals().tolist()      # game 3: A 105 + 2 x 100 + 3 boxes
[[285, 280, 380], [55, 35, 0]]
>>> s.game_winners, s.match_over, s.match_winner
([0, 0, 0], True, 0)
"""

from __future__ import annotations

import numpy as np

from .rules import Rules, resolve_rules


class Scoresheet:
    """The Hollywood scoresheet of one match. See the module docstring."""

    def __init__(self, rules: Rules | str | None = None):
        self.rules = resolve_rules(rules)
        n = self.rules.columns
        # _points[p][k]: player p's points in game k (bonuses excluded)
        self._points = [[0] * n for _ in range(2)]
        self._opened = [[False] * n for _ in range(2)]
        self._hands = [[0] * n for _ in range(2)]
        self._game_winners: list[int | None] = [None] * n
        self.hands_won = [0, 0]  #: hands won by each player in the whole match
        self.history: list[tuple[int, int]] = []  #: every (winner, points) recorded

    # --- reading -----------------------------------------------------------------------------
    @property
    def num_games(self) -> int:
        return self.rules.columns

    @property
    def columns(self) -> np.ndarray:
        """(2, C) int64: the column points, bonuses excluded."""
        return np.array(self._points, dtype=np.int64).reshape(2, self.num_games)

    @property
    def opened(self) -> np.ndarray:
        """(2, C) bool: which columns each player has opened."""
        return np.array(self._opened, dtype=bool).reshape(2, self.num_games)

    @property
    def hands_scored(self) -> np.ndarray:
        """(2, C) int64: hands of each player credited to each column (box bonus count)."""
        return np.array(self._hands, dtype=np.int64).reshape(2, self.num_games)

    @property
    def game_winners(self) -> list[int | None]:
        """Per game: ``None`` while in progress, else the winner (0 or 1)."""
        return list(self._game_winners)

    def in_progress(self, game: int) -> bool:
        return self._game_winners[game] is None

    @property
    def games_won(self) -> list[int]:
        """Number of ended games won by each player."""
        return [sum(1 for w in self._game_winners if w == p) for p in range(2)]

    @property
    def match_over(self) -> bool:
        ended = [w is not None for w in self._game_winners]
        if self.rules.short_session:
            return any(ended)
        return all(ended)

    @property
    def match_winner(self) -> int | None:
        """``None`` until the match is over; then 0, 1, or -1 for a drawn match."""
        if not self.match_over:
            return None
        if self.rules.match_winner == "majority":
            a, b = self.games_won
        else:  # "total"
            t = self.totals()
            a, b = int(t[0].sum()), int(t[1].sum())
        if a > b:
            return 0
        if b > a:
            return 1
        return -1

    def game_totals(self, game: int) -> list[int]:
        """[player 0, player 1] totals of one game: its column plus, once ended, its bonuses."""
        r = self.rules
        col = [self._points[p][game] for p in range(2)]
        winner = self._game_winners[game]
        if winner is None:
            return col
        loser = 1 - winner
        shutout = col[loser] == 0
        game_bonus = r.game_bonus
        if shutout and r.shutout == "double_game_bonus":
            game_bonus *= 2
        total = [col[p] + r.box_bonus * self._hands[p][game] for p in range(2)]
        total[winner] += game_bonus
        if shutout and r.shutout == "double_all":
            total[winner] *= 2
        return total

    def totals(self) -> np.ndarray:
        """(2, C) int64: column points plus the bonuses of the games that have ended."""
        per_game = [self.game_totals(k) for k in range(self.num_games)]
        return np.array([[per_game[k][p] for k in range(self.num_games)] for p in range(2)],
                        dtype=np.int64).reshape(2, self.num_games)

    def total(self, player: int) -> int:
        """One player's grand total: the sum of their row of :meth:`totals`."""
        return int(self.totals()[player].sum())

    # --- writing -----------------------------------------------------------------------------
    def record(self, winner: int, points: int) -> list[int]:
        """Record a won hand; return the games (indices) that ended with it."""
        if winner not in (0, 1):
            raise ValueError(f"winner must be 0 or 1, got {winner!r}")
        points = int(points)
        if points < 0:
            raise ValueError(f"points must be >= 0, got {points}")
        if self.match_over:
            raise ValueError("the match is over: no more hands can be recorded")
        self.history.append((winner, points))
        self.hands_won[winner] += 1

        # 1. open the lowest column not yet opened whose game is still in progress
        for k in range(self.num_games):
            if not self._opened[winner][k] and self.in_progress(k):
                self._opened[winner][k] = True
                break

        # 2. score in every opened column whose game is in progress
        for k in range(self.num_games):
            if self._opened[winner][k] and self.in_progress(k):
                self._points[winner][k] += points
                self._hands[winner][k] += 1

        # 3. end the games whose column reached the target
        ended = []
        for k in range(self.num_games):
            if self.in_progress(k) and self._points[winner][k] >= self.rules.target:
                self._game_winners[k] = winner
                ended.append(k)
        return ended

    def record_wall(self) -> list[int]:
        """A wall: nobody scores, nothing changes."""
        return []

    # --- display -----------------------------------------------------------------------------
    def render(self) -> str:
        t = self.totals()
        lines = ["game      " + "".join(f"{k + 1:>12}" for k in range(self.num_games))]
        for p in range(2):
            cells = []
            for k in range(self.num_games):
                mark = "" if self._opened[p][k] else "-"
                w = self._game_winners[k]
                end = "*" if w == p else ""
                cells.append(f"{mark}{self._points[p][k]}{end} ({t[p, k]})")
            lines.append(f"player {p}  " + "".join(f"{c:>12}" for c in cells))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"Scoresheet(columns={self._points}, opened={self._opened}, "
                f"game_winners={self._game_winners}, match_winner={self.match_winner})")
