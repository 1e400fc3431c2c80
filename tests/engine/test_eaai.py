"""The ``eaai`` preset: the EAAI Gin Rummy challenge's game to 100, one scripted game per rule
(docs/rules.md section 5)."""

import numpy as np
import pytest

from hollywood_env import actions as A
from hollywood_env import core
from hollywood_env.cards import parse_cards
from hollywood_env.rules import Rules
from hollywood_env.scoresheet import Scoresheet

KNOCKER = "As Ah Ad 2c 3c 4c 5h 6h 7h Kc"  # deadwood Kc; draws 2d, knocks discarding Kc: deadwood 2


def scripted(nondealer: str, dealer: str, upcard: str, stock_head: str, preset: str = "eaai", dealer_seat: int = 0):
    """One game whose first hand is dealt from the given cards (the rest of the stock in index order)."""
    head = parse_cards(nondealer) + parse_cards(dealer) + parse_cards(upcard) + parse_cards(stock_head)
    deck = np.array(head + [c for c in range(52) if c not in head])
    s = core.init(1, preset, seed=0)
    core.deal(s, [0], deck[None], dealer=[dealer_seat])
    return s


def play(s, *moves):
    """Both players pass the first upcard (the non-dealer then draws the stock's top card), then
    ``moves``: (kind, card) pairs such as ("knock", "Kc")."""
    core.step(s, np.array([A.PASS]))
    core.step(s, np.array([A.PASS]))
    for kind, card in moves:
        base = {"knock": A.KNOCK, "discard": A.DISCARD}[kind]
        core.step(s, np.array([base + parse_cards(card)[0]]))
    return s


def test_the_preset_is_one_game_to_100_with_no_game_or_box_bonus():
    r = Rules.preset("eaai")
    assert (r.columns, r.target, r.game_bonus, r.box_bonus, r.gin_bonus, r.undercut_bonus) == (1, 100, 0, 0, 25, 25)
    assert r.knock_limit == 10 and r.wall_stock_size == 2 and r.forbid_discard_of_taken_card
    assert r.preset_name == "eaai"


def test_gin_scores_25_plus_the_defenders_deadwood_without_lay_offs():
    # the defender's 9h would extend 5h-8h and its Ac would extend 2c-4c: against gin neither lays off
    s = scripted("As Ah Ad 2c 3c 4c 5h 6h 7h 8h", "9h 2s 3d 4s 5d 6s 7d 8s 9d Ac", "Kh", "Ks")
    play(s, ("knock", "Ks"))
    assert s.hand_kind[0] == A.KIND_GIN and s.hand_winner[0] == 1
    assert s.hand_points[0] == 25 + (9 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 1)


def test_a_knock_scores_the_difference_after_lay_offs():
    # the defender lays off 8h (on 5h-7h) and 5c (on 2c-4c); 9s 9d 9c and Ts Js Qs are melds; Kd 3d remain
    s = scripted(KNOCKER, "8h 5c 9s 9d 9c Ts Js Qs Kd 3d", "Kh", "2d")
    play(s, ("knock", "Kc"))
    assert s.hand_kind[0] == A.KIND_KNOCK and s.hand_winner[0] == 1
    assert (s.knocker_deadwood[0], s.defender_deadwood[0]) == (2, 13)
    assert s.hand_points[0] == 13 - 2


def test_an_undercut_at_equal_deadwood_scores_25_plus_the_difference():
    # after lay-offs (8h, 5c, Ac) the defender holds 2s: deadwood 2, equal to the knocker's
    s = scripted(KNOCKER, "8h 5c Ac 9s 9d 9c Ts Js Qs 2s", "Kh", "2d")
    play(s, ("knock", "Kc"))
    assert s.hand_kind[0] == A.KIND_UNDERCUT and s.hand_winner[0] == 0
    assert s.hand_points[0] == 25 + 0


def test_a_game_that_reaches_100_ends_with_no_bonus():
    # gin against 84 deadwood: 109 points end the game at once, and the sheet adds nothing to them
    s = scripted("As Ah Ad 2c 3c 4c 5h 6h 7h 8h", "9h Kc Qs Jd Td 9s 8c 7d 6s 5d", "Kh", "Ks")
    play(s, ("knock", "Ks"))
    assert s.hand_points[0] == 25 + 84 and s.terminated[0] and s.match_winner[0] == 1
    sheet = Scoresheet("eaai")
    sheet.record(1, 109)
    assert sheet.match_over and sheet.match_winner == 1
    assert sheet.totals().tolist() == [[0], [109]] == sheet.columns.tolist()


@pytest.mark.parametrize("defender_wins", [False, True])
def test_the_starting_player_alternates_after_a_scored_hand_whoever_won(defender_wins):
    dealer = "8h 5c Ac 9s 9d 9c Ts Js Qs 2s" if defender_wins else "8h 5c 9s 9d 9c Ts Js Qs Kd 3d"
    s = scripted(KNOCKER, dealer, "Kh", "2d", dealer_seat=0)
    play(s, ("knock", "Kc"))
    assert s.hand_winner[0] == (0 if defender_wins else 1) and not s.terminated[0]
    assert s.dealer[0] == 1 and s.current_player[0] == 0  # the other player deals; seat 0 starts
    if not defender_wins:  # under the gin-rummy preset the loser (the dealer, seat 0) deals again
        g = scripted(KNOCKER, dealer, "Kh", "2d", preset="gin-rummy", dealer_seat=0)
        play(g, ("knock", "Kc"))
        assert g.dealer[0] == 0


def test_a_dead_hand_is_cancelled_and_redealt_with_the_same_starting_player():
    s = core.init(1, "eaai", seed=3)
    dealer, steps = int(s.dealer[0]), 0
    while not s.hand_ended[0]:  # nobody knocks: draw from the stock and throw the highest legal discard
        legal = np.flatnonzero(s.legal_action_mask[0])
        plain = [a for a in legal if a < A.KNOCK or a in (A.DRAW_STOCK, A.PASS)]
        pick = A.DRAW_STOCK if A.DRAW_STOCK in plain else A.PASS if A.PASS in plain else max(plain)
        core.step(s, np.array([pick]))
        steps += 1
    assert s.hand_kind[0] == A.KIND_WALL and s.hand_points[0] == 0 and steps > 40
    assert s.sheet.columns[0].tolist() == [[0], [0]] and not s.terminated[0]
    assert s.dealer[0] == dealer and s.current_player[0] == 1 - dealer
