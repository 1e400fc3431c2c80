"""The action table, shared by the core, the reference engine and the environments.

========================  ===========  ===================================================
action                    index        legal when
========================  ===========  ===================================================
``DISCARD + card``        0 .. 51      discard phase: ``card`` is held (and is not the card
                                       just taken from the pile, when that is forbidden)
``KNOCK + card``          52 .. 103    discard phase: as a discard, and the deadwood of the
                                       10 cards left is at most the hand's knock limit.
                                       Knocking with 0 deadwood is gin.
``DRAW_STOCK``            104          draw phase
``TAKE_DISCARD``          105          draw phase, and the first-upcard phase (take the upcard)
``PASS``                  106          first-upcard phase (decline the upcard)
``BIG_GIN``               107          discard phase, ``Rules.big_gin``, all 11 cards melded
========================  ===========  ===================================================

Phases: ``FIRST_UPCARD`` (the non-dealer, then the dealer, may take the first upcard or pass;
when both pass the non-dealer's stock draw is automatic and play goes to its discard phase),
``DRAW``, ``DISCARD``. ``GAME_OVER`` is the phase of a finished match.
"""

DISCARD = 0
KNOCK = 52
DRAW_STOCK = 104
TAKE_DISCARD = 105
PASS = 106
BIG_GIN = 107
NUM_ACTIONS = 108

# phases
PHASE_FIRST_UPCARD = 0
PHASE_DRAW = 1
PHASE_DISCARD = 2
PHASE_GAME_OVER = 3
PHASE_NAMES = ("first_upcard", "draw", "discard", "game_over")

# hand-end kinds (events)
KIND_NONE = 0
KIND_KNOCK = 1
KIND_GIN = 2
KIND_UNDERCUT = 3
KIND_BIG_GIN = 4
KIND_WALL = 5
KIND_NAMES = ("none", "knock", "gin", "undercut", "big_gin", "wall")


def action_name(action: int) -> str:
    """A readable name: ``discard 7h``, ``knock Ac``, ``draw stock``..."""
    from .cards import format_card

    a = int(action)
    if DISCARD <= a < KNOCK:
        return f"discard {format_card(a - DISCARD)}"
    if KNOCK <= a < DRAW_STOCK:
        return f"knock {format_card(a - KNOCK)}"
    names = {DRAW_STOCK: "draw stock", TAKE_DISCARD: "take discard", PASS: "pass", BIG_GIN: "big gin"}
    if a in names:
        return names[a]
    raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {a}")
