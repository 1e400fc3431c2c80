"""Rule options and named presets (``docs/rules.md`` sections 2-5).

Every disagreement between the source documents is an option of :class:`Rules`; each source is
a preset (:meth:`Rules.preset`). The defaults are the ``hollywood`` preset.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

_CHOICES = {
    "shutout": ("double_game_bonus", "double_all"),
    "match_winner": ("majority", "total"),
    "next_dealer": ("loser", "winner", "alternate"),
    "knocker_arrangement": ("fewest_set_cards", "fewest_layoffs"),
}


@dataclass(frozen=True)
class Rules:
    """All rule options. Frozen: derive variants with :meth:`replace`.

    Hand (docs/rules.md sections 2-3)
        knock_limit: the most deadwood a player may knock with (after the discard).
        forbid_discard_of_taken_card: the card just taken from the discard pile may not be
            discarded (or knocked with) in the same turn.
        wall_stock_size: a plain discard that leaves this many cards in the stock ends the hand
            in a draw (the wall).
        gin_bonus, undercut_bonus: hand-score bonuses.
        big_gin: allow declaring gin with all 11 cards melded, without discarding.
        big_gin_bonus: its bonus.
        straight_gin: no knocking, only gin (and big gin when enabled) ends a hand.
        oklahoma: the knock limit of each hand is the first upcard's value (an ace: gin only).
        oklahoma_spade_doubles: with ``oklahoma``, a spade first upcard doubles that hand's score.
        knocker_arrangement: which of several minimum-deadwood arrangements the knocker lays
            out. ``fewest_set_cards`` (default, deterministic): the one with the fewest cards in
            sets, then the one whose set cards form the smallest 52-bit number (bit = card index);
            runs are laid out whole (maximal). ``fewest_layoffs``: the one that leaves the
            defender the highest final deadwood (ties as ``fewest_set_cards``).

    Hollywood scoresheet (docs/rules.md section 4)
        columns: number of games scored at once (1 = plain Gin Rummy).
        target: points that end a game.
        game_bonus, box_bonus: bonuses settled when a game ends.
        shutout: ``double_game_bonus`` (the winner's game bonus is doubled when the loser scored
            0 in that game) or ``double_all`` (the winner's whole total for that game, points and
            bonuses, is doubled).
        short_session: the match ends when the first game ends.
        match_winner: ``majority`` of games won (a tie is a drawn match) or the larger ``total``
            of all columns plus bonuses (equal totals: a drawn match).
        next_dealer: who deals the next hand after a won hand: the ``loser`` (default), the
            ``winner``, or ``alternate``. After a wall the same dealer deals again.
    """

    knock_limit: int = 10
    forbid_discard_of_taken_card: bool = True
    wall_stock_size: int = 2
    gin_bonus: int = 25
    undercut_bonus: int = 25
    big_gin: bool = False
    big_gin_bonus: int = 31
    straight_gin: bool = False
    oklahoma: bool = False
    oklahoma_spade_doubles: bool = True
    knocker_arrangement: str = "fewest_set_cards"
    columns: int = 3
    target: int = 100
    game_bonus: int = 100
    box_bonus: int = 25
    shutout: str = "double_game_bonus"
    short_session: bool = False
    match_winner: str = "majority"
    next_dealer: str = "loser"

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            expected = bool if f.type in ("bool", bool) else int if f.type in ("int", int) else str
            if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"Rules.{f.name} must be an int, got {type(value).__name__} {value!r}")
            if expected is bool and not isinstance(value, bool):
                raise TypeError(f"Rules.{f.name} must be a bool, got {type(value).__name__} {value!r}")
            if expected is str and not isinstance(value, str):
                raise TypeError(f"Rules.{f.name} must be a str, got {type(value).__name__} {value!r}")
        for name, allowed in _CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"Rules.{name} must be one of {allowed}, got {getattr(self, name)!r}")
        if not 0 <= self.knock_limit <= 100:
            raise ValueError(f"Rules.knock_limit must be in 0..100, got {self.knock_limit}")
        if not 1 <= self.columns <= 8:
            raise ValueError(f"Rules.columns must be in 1..8, got {self.columns}")
        if self.target < 1:
            raise ValueError(f"Rules.target must be at least 1, got {self.target}")
        if not 0 <= self.wall_stock_size <= 30:
            raise ValueError(f"Rules.wall_stock_size must be in 0..30, got {self.wall_stock_size}")
        for name in ("gin_bonus", "undercut_bonus", "big_gin_bonus", "game_bonus", "box_bonus"):
            if getattr(self, name) < 0:
                raise ValueError(f"Rules.{name} must be >= 0, got {getattr(self, name)}")

    # --- construction -----------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str) -> Rules:
        """The rules of a named preset (docs/rules.md section 5)."""
        if name not in PRESETS:
            raise ValueError(f"unknown rules preset {name!r}; valid presets: {', '.join(PRESETS)}")
        return cls(**PRESETS[name])

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Rules:
        """Rules from a mapping; ``preset`` (optional) names the base, other keys override it."""
        d = dict(d)
        base = cls.preset(d.pop("preset")) if "preset" in d else cls()
        return base.replace(**d)

    def replace(self, **changes: Any) -> Rules:
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ValueError(f"unknown rule option(s) {unknown}; valid options: {', '.join(sorted(names))}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @property
    def preset_name(self) -> str | None:
        """The name of the preset these rules equal, if any."""
        for name, kw in PRESETS.items():
            if Rules(**kw) == self:
                return name
        return None


#: preset name -> differences from the defaults (docs/rules.md section 5)
PRESETS: dict[str, dict[str, Any]] = {
    "hollywood": {},
    "hollywood-nordic": dict(gin_bonus=20, undercut_bonus=10, box_bonus=20, game_bonus=100,
                             shutout="double_game_bonus", next_dealer="winner"),
    "gin-rummy": dict(columns=1, target=100, game_bonus=100, box_bonus=25),
    "gin-rummy-simple": dict(columns=1, game_bonus=0, box_bonus=0, next_dealer="alternate"),
    # the EAAI Gin Rummy challenge's game to 100: the knocker lays out the melds of its choice,
    # so a knocker that chooses well leaves the defender the fewest lay-offs
    "eaai": dict(columns=1, target=100, game_bonus=0, box_bonus=0, next_dealer="alternate",
                 knocker_arrangement="fewest_layoffs"),
    "oklahoma": dict(oklahoma=True, columns=1, target=150),
    "straight-gin": dict(straight_gin=True),
}


def resolve_rules(rules: Rules | str | Mapping | None) -> Rules:
    """Accept a Rules, a preset name, a mapping of options, or None (the defaults)."""
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    if isinstance(rules, Mapping):
        return Rules.from_dict(rules)
    raise TypeError(f"rules must be a Rules, a preset name or a dict, got {type(rules).__name__}")


# --- argument checks shared by the engine, the environments and the agents ---------------------


def check_positive_int(name: str, value: Any, allow_none: bool = False) -> None:
    """Raise ``ValueError("<name> must be a positive int[ or None], got <value!r>")`` unless
    ``value`` is an int (a numpy integer too, a bool not) of at least 1, or None with ``allow_none``."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int{' or None' if allow_none else ''}, got {value!r}")
