"""The Hollywood scoresheet (docs/rules.md section 4) on hand-written cases."""

import doctest

import numpy as np
import pytest

import hollywood_env.scoresheet as scoresheet_module
from hollywood_env.rules import Rules
from hollywood_env.scoresheet import Scoresheet

A, B = 0, 1


def sheet(**changes) -> Scoresheet:
    return Scoresheet(Rules().replace(**changes))


def test_module_docstring_worked_example():
    result = doctest.testmod(scoresheet_module)
    assert result.attempted > 10 and result.failed == 0


def test_first_win_scores_in_game_1_only():
    s = sheet()
    assert s.record(A, 20) == []
    assert s.columns.tolist() == [[20, 0, 0], [0, 0, 0]]
    assert s.opened.tolist() == [[True, False, False], [False, False, False]]
    assert s.hands_scored.tolist() == [[1, 0, 0], [0, 0, 0]]


def test_second_win_scores_in_games_1_and_2_third_in_all():
    s = sheet()
    s.record(A, 20)
    s.record(A, 10)
    assert s.columns.tolist() == [[30, 10, 0], [0, 0, 0]]
    s.record(A, 5)
    assert s.columns.tolist() == [[35, 15, 5], [0, 0, 0]]
    s.record(A, 1)  # 4th and later: all three still in progress
    assert s.columns.tolist() == [[36, 16, 6], [0, 0, 0]]
    assert s.hands_scored.tolist() == [[4, 3, 2], [0, 0, 0]]


def test_opening_is_per_player():
    s = sheet()
    s.record(A, 10)
    s.record(A, 10)
    s.record(B, 7)  # B's first win: B's game 1 only, whatever A has opened
    assert s.columns.tolist() == [[20, 10, 0], [7, 0, 0]]
    s.record(B, 3)
    assert s.columns.tolist() == [[20, 10, 0], [10, 3, 0]]


def test_shut_out_player_opens_next_game_in_progress():
    s = sheet()
    assert s.record(A, 60) == []
    assert s.record(A, 50) == [0]  # game 1: 110, A wins it; B never scored
    assert s.game_winners == [A, None, None]
    s.record(B, 30)  # B's first win: game 1 has ended, so it opens game 2
    assert s.opened[B].tolist() == [False, True, False]
    assert s.columns[B].tolist() == [0, 30, 0]
    s.record(B, 5)  # B's second win opens game 3
    assert s.columns[B].tolist() == [0, 35, 5]


def test_winner_opens_nothing_when_all_their_unopened_games_ended():
    s = sheet(columns=2)
    s.record(A, 100)  # A: game 1 ends at once
    s.record(B, 10)  # B opens game 2
    s.record(B, 100)  # B: game 2 ends: match over
    assert s.game_winners == [A, B]
    assert s.match_over and s.match_winner == -1  # 1 game each


def test_game_ends_at_target_and_takes_no_more_points():
    s = sheet()
    s.record(A, 50)
    s.record(A, 49)
    assert s.columns[A].tolist() == [99, 49, 0]
    assert s.game_winners == [None, None, None]
    assert s.record(A, 1) == [0]  # exactly the target ends the game
    assert s.columns[A].tolist() == [100, 50, 1]
    s.record(A, 30)
    assert s.columns[A].tolist() == [100, 80, 31]  # game 1 took nothing more


def test_several_games_can_end_with_one_hand():
    s = sheet()
    s.record(A, 10)
    s.record(A, 10)
    s.record(A, 10)
    assert s.record(A, 95) == [0, 1, 2]
    assert s.match_over and s.match_winner == A


def test_bonuses_game_and_box():
    s = sheet()
    s.record(A, 40)
    s.record(B, 25)
    s.record(B, 10)
    s.record(A, 70)  # A's game 1: 110, ends; A credited 2 hands, B 2 hands
    t = s.totals()
    assert s.columns[:, 0].tolist() == [110, 35]
    assert t[:, 0].tolist() == [110 + 100 + 2 * 25, 35 + 2 * 25]
    # games in progress have no bonus yet
    assert t[:, 1:].tolist() == s.columns[:, 1:].tolist()


def test_bonuses_do_not_count_toward_the_target():
    s = sheet(columns=1, target=100, game_bonus=100, box_bonus=25)
    for _ in range(3):
        s.record(A, 30)
    assert s.game_winners == [None]  # 90 points + 3 box bonuses would exceed 100, not counted
    assert s.totals().tolist() == [[90], [0]]


def test_shutout_doubles_the_game_bonus():
    s = sheet(columns=1)
    s.record(A, 60)
    s.record(A, 60)
    assert s.totals().tolist() == [[120 + 200 + 50], [0]]


def test_shutout_double_all():
    s = sheet(columns=1, shutout="double_all")
    s.record(A, 60)
    s.record(A, 60)
    assert s.totals().tolist() == [[2 * (120 + 100 + 50)], [0]]


def test_no_shutout_when_the_loser_scored():
    for rule in ("double_game_bonus", "double_all"):
        s = sheet(columns=1, shutout=rule)
        s.record(B, 1)
        s.record(A, 100)
        assert s.totals().tolist() == [[100 + 100 + 25], [1 + 25]]


def test_shutout_is_per_game():
    s = sheet(columns=2)
    s.record(B, 5)  # B scores in game 1 only
    s.record(A, 50)
    s.record(A, 50)  # A: game 1 100 -> ends (not a shutout), game 2 50
    s.record(A, 50)  # game 2: 100, B has 0 in game 2: shutout
    t = s.totals()
    assert t[:, 0].tolist() == [100 + 100 + 2 * 25, 5 + 25]
    assert t[:, 1].tolist() == [100 + 200 + 2 * 25, 0]


def test_match_ends_when_every_game_has_ended():
    s = sheet()
    s.record(A, 50)
    s.record(A, 50)  # game 1 ends
    assert not s.match_over and s.match_winner is None
    s.record(A, 60)  # game 2 ends
    assert not s.match_over
    s.record(A, 50)  # game 3 (50 + 50) ends
    assert s.match_over and s.match_winner == A
    with pytest.raises(ValueError):
        s.record(A, 10)


def test_short_session_ends_at_the_first_game():
    s = sheet(short_session=True)
    s.record(B, 30)
    s.record(A, 60)
    s.record(A, 40)
    assert s.game_winners == [A, None, None]
    assert s.match_over and s.match_winner == A


def test_match_winner_majority_and_draws():
    s = sheet()
    s.record(A, 10)
    s.record(A, 10)
    s.record(A, 90)  # A wins game 1 (110); games 2: 100 -> ends too; game 3: 90
    assert s.game_winners == [A, A, None]
    s.record(B, 100)  # B's first win opens game 3 and wins it
    assert s.game_winners == [A, A, B]
    assert s.match_winner == A

    s = sheet(columns=2)
    s.record(A, 100)
    s.record(B, 100)
    assert s.match_over and s.match_winner == -1  # 1-1 in a 2-game match: drawn


def test_majority_and_total_disagree():
    # A wins games 1 and 3 with small columns, B wins game 2 by a mile.
    hands = [(A, 60), (A, 50), (A, 5), (B, 1000), (A, 95)]
    for rule, expected in (("majority", A), ("total", B)):
        s = sheet(match_winner=rule)
        for w, p in hands:
            s.record(w, p)
        # A: game 1 60 -> 110 (ends, A), game 2 50 -> 55, game 3 5 -> 100 (ends, A).
        # B: games 1 is over, so B's first win opens game 2: 1000 ends it.
        assert s.columns.tolist() == [[110, 55, 100], [0, 1000, 0]]
        assert s.game_winners == [A, B, A]
        assert s.match_over
        # shutouts in games 1 and 3 double A's game bonus there
        assert s.totals().tolist() == [[110 + 200 + 50, 55 + 50, 100 + 200 + 50],
                                       [0, 1000 + 100 + 25, 0]]
        assert s.match_winner == expected, rule


def test_total_draw():
    s = sheet(columns=1, match_winner="total", game_bonus=0, box_bonus=0)
    s.record(A, 100)
    assert s.match_winner == A
    s = Scoresheet(Rules().replace(columns=2, match_winner="total", game_bonus=0, box_bonus=0))
    s.record(A, 100)  # game 1: A 100
    s.record(B, 100)  # B opens game 2: 100
    assert s.totals().sum(axis=1).tolist() == [100, 100]
    assert s.match_winner == -1


def test_wall_changes_nothing():
    s = sheet()
    s.record(A, 10)
    before = (s.columns.copy(), s.opened.copy(), s.hands_scored.copy(), s.game_winners)
    assert s.record_wall() == []
    after = (s.columns, s.opened, s.hands_scored, s.game_winners)
    assert all(np.array_equal(x, y) for x, y in zip(before[:3], after[:3], strict=True))
    assert before[3] == after[3]


def test_shapes_and_dtypes():
    s = sheet(columns=5)
    assert s.columns.shape == (2, 5) and s.columns.dtype == np.int64
    assert s.opened.shape == (2, 5) and s.opened.dtype == bool
    assert s.hands_scored.shape == (2, 5)
    assert s.totals().shape == (2, 5) and s.totals().dtype == np.int64
    assert s.game_winners == [None] * 5


def test_bad_input():
    s = sheet()
    with pytest.raises(ValueError):
        s.record(2, 10)
    with pytest.raises(ValueError):
        s.record(A, -1)


# --- the presets' numbers -------------------------------------------------------------------


def test_preset_hollywood():
    s = Scoresheet(Rules.preset("hollywood"))
    assert s.num_games == 3
    s.record(B, 10)
    s.record(A, 50)
    s.record(A, 50)  # game 1: A 100 vs B 10
    assert s.game_winners[0] == A
    assert s.totals()[:, 0].tolist() == [100 + 100 + 2 * 25, 10 + 25]


def test_preset_hollywood_nordic():
    r = Rules.preset("hollywood-nordic")
    s = Scoresheet(r)
    assert s.num_games == 3
    s.record(B, 10)
    s.record(A, 50)
    s.record(A, 50)
    assert s.totals()[:, 0].tolist() == [100 + 100 + 2 * 20, 10 + 20]
    # shutout: 200 instead of 100
    s = Scoresheet(r)
    s.record(A, 50)
    s.record(A, 50)
    assert s.totals()[:, 0].tolist() == [100 + 200 + 2 * 20, 0]


def test_preset_gin_rummy_one_column():
    s = Scoresheet(Rules.preset("gin-rummy"))
    assert s.num_games == 1
    s.record(A, 30)
    s.record(B, 40)
    s.record(A, 30)
    s.record(A, 40)  # A 100
    assert s.match_over and s.match_winner == A
    assert s.totals().tolist() == [[100 + 100 + 3 * 25], [40 + 25]]


def test_preset_gin_rummy_simple_no_bonuses():
    s = Scoresheet(Rules.preset("gin-rummy-simple"))
    assert s.num_games == 1
    s.record(B, 40)
    s.record(A, 60)
    s.record(A, 40)
    assert s.match_over and s.match_winner == A
    assert s.totals().tolist() == [[100], [40]]
    s = Scoresheet(Rules.preset("gin-rummy-simple"))
    s.record(A, 100)  # a shutout doubles nothing when the bonus is 0
    assert s.totals().tolist() == [[100], [0]]


def test_preset_oklahoma_target_150():
    s = Scoresheet(Rules.preset("oklahoma"))
    assert s.num_games == 1
    s.record(A, 100)
    assert not s.match_over
    s.record(B, 20)
    s.record(A, 49)
    assert not s.match_over
    s.record(A, 1)
    assert s.match_over and s.match_winner == A
    assert s.totals().tolist() == [[150 + 100 + 3 * 25], [20 + 25]]


def test_preset_straight_gin_scoresheet_is_hollywood():
    assert Scoresheet(Rules.preset("straight-gin")).num_games == 3
