"""The reference: brute-force melds and lay-offs on hand pictures, scripted hands of the scalar
engine, and random play checking the invariants of docs/rules.md."""

import random

import pytest

from hollywood_env import actions as A
from hollywood_env.cards import format_card, format_cards, parse_card, parse_cards
from hollywood_env.reference import (
    HandResult,
    ReferenceGame,
    all_melds,
    arrangements,
    brute_knocker_arrangement,
    brute_layoff,
    brute_min_deadwood,
    build_deck,
    deadwood_after_discard,
    deadwood_of,
    is_run,
    is_set,
    min_deadwood,
    unmelded,
)
from hollywood_env.rules import PRESETS, Rules


def P(text):
    return parse_cards(text)


def melds_text(melds):
    return [format_cards(m) for m in melds]


def c(text):
    return parse_card(text)


# ----------------------------------------------------------------------------------------------
# Melds
# ----------------------------------------------------------------------------------------------


def test_all_melds_lists_sets_and_runs():
    # 7c 7d 7h 7s 8c 9c
    melds = melds_text(all_melds(P("7c 7d 7h 7s 8c 9c")))
    assert sorted(melds) == sorted([
        "7c 7d 7h", "7c 7d 7s", "7c 7h 7s", "7d 7h 7s", "7c 7d 7h 7s",  # four 3-sets, one 4-set
        "7c 8c 9c",  # the run
    ])
    # Ac 2c 3c 4c: two 3-runs and the 4-run
    assert sorted(melds_text(all_melds(P("Ac 2c 3c 4c")))) == sorted(["Ac 2c 3c", "2c 3c 4c", "Ac 2c 3c 4c"])


def test_ace_is_low_no_wrap():
    # A-2-3 is a run
    assert brute_min_deadwood(P("Ac 2c 3c")) == 0
    assert is_run(P("Ac 2c 3c"))
    # Q-K-A is not, nor K-A-2
    assert brute_min_deadwood(P("Qc Kc Ac")) == 10 + 10 + 1
    assert not is_run(P("Qc Kc Ac"))
    assert brute_min_deadwood(P("Kd Ad 2d")) == 10 + 1 + 2
    # runs need one suit; sets need one rank
    assert brute_min_deadwood(P("4c 5d 6c")) == 15
    assert not is_set(P("4c 4d 5h"))


def test_deadwood_values():
    assert brute_min_deadwood(P("Ac")) == 1
    assert brute_min_deadwood(P("Tc Jd Qh Ks")) == 40
    assert brute_min_deadwood(P("2c 9d")) == 11
    assert brute_min_deadwood([]) == 0


def test_card_fitting_both_a_set_and_a_run():
    # 5c 5d 5h 6h 7h : 5h fits the set 5c 5d 5h and the run 5h 6h 7h, not both.
    #   set  -> deadwood 6h 7h = 13;  run -> deadwood 5c 5d = 10
    assert brute_min_deadwood(P("5c 5d 5h 6h 7h")) == 10
    # 5c 5d 5h 5s 6h 7h : the 4th five lets both be made: set 5c 5d 5s + run 5h 6h 7h
    assert brute_min_deadwood(P("5c 5d 5h 5s 6h 7h")) == 0


def test_four_card_set_split_three_plus_one():
    # 4c 4d 4h 4s 2c 3c : run 2c 3c 4c + set 4d 4h 4s
    assert brute_min_deadwood(P("4c 4d 4h 4s 2c 3c")) == 0
    lay = brute_knocker_arrangement(P("4c 4d 4h 4s 2c 3c"))
    assert melds_text(lay) == ["2c 3c 4c", "4d 4h 4s"]
    # 4c 4d 4h 4s 2c 3c 5s 6s : set 4c 4d 4h + run 4s 5s 6s leaves 2c 3c (5);
    #   run 2c 3c 4c + run 4s 5s 6s leaves 4d 4h (8); run 2c 3c 4c + set 4d 4h 4s leaves
    #   5s 6s (11); the 4-set leaves 2c 3c 5s 6s (16)
    assert brute_min_deadwood(P("4c 4d 4h 4s 2c 3c 5s 6s")) == 5
    lay = brute_knocker_arrangement(P("4c 4d 4h 4s 2c 3c 5s 6s"))
    assert melds_text(lay) == ["4c 4d 4h", "4s 5s 6s"]


def test_the_gin_discard():
    # 2c 2d 2h 3h 4h 5c 5d 5h 6c 7c 8c : discarding 5d leaves
    #   2c 2d 2h | 3h 4h 5h | 5c 6c 7c 8c  -> gin
    hand = P("2c 2d 2h 3h 4h 5c 5d 5h 6c 7c 8c")
    after = deadwood_after_discard(hand)
    assert after[c("5d")] == 0
    assert [format_card(x) for x in after if after[x] == 0] == ["5d"]
    for card in hand:  # the shortcut equals the brute force on each 10-card hand
        assert after[card] == brute_min_deadwood([x for x in hand if x != card])
    # with all 11 cards: 2h 3h 4h | 5c 5d 5h | 6c 7c 8c leaves 2c 2d (4)
    assert brute_min_deadwood(hand) == 4


def _arrangements_by_meld_index(cards):
    """An independent enumeration: include or skip each meld in list order."""
    melds = all_melds(cards)
    out = []

    def go(i, used, chosen):
        if i == len(melds):
            out.append(sorted(chosen))
            return
        go(i + 1, used, chosen)
        if not (set(melds[i]) & used):
            go(i + 1, used | set(melds[i]), chosen + [melds[i]])

    go(0, set(), [])
    return out


def test_arrangements_are_every_disjoint_collection_once():
    rng = random.Random(7)
    # cards from a few ranks and suits, so that hands have many melds
    pool = [s * 13 + r for s in range(3) for r in range(2, 8)]
    for _ in range(150):
        hand = rng.sample(pool, rng.randint(0, 11))
        mine = sorted(sorted(a) for a in arrangements(hand))
        other = sorted(_arrangements_by_meld_index(hand))
        assert mine == other
        assert len({tuple(map(tuple, a)) for a in mine}) == len(mine)
        assert brute_min_deadwood(hand) == min(deadwood_of(unmelded(hand, a)) for a in other)


def test_deadwood_after_discard_matches_brute_force():
    rng = random.Random(3)
    pool = [s * 13 + r for s in range(4) for r in range(0, 9)]
    for _ in range(100):
        hand = rng.sample(pool if rng.random() < 0.7 else list(range(52)), 11)
        after = deadwood_after_discard(hand)
        for card in hand:
            assert after[card] == brute_min_deadwood([x for x in hand if x != card])
        assert min_deadwood(hand) == brute_min_deadwood(hand)


# ----------------------------------------------------------------------------------------------
# Knocker's layout
# ----------------------------------------------------------------------------------------------


def test_knocker_layout_fewest_set_cards():
    # Tc Jc Qc Qd Qh : run Tc Jc Qc (deadwood Qd Qh = 20) or set Qc Qd Qh (deadwood Tc Jc = 20)
    # -> the run: fewest cards in sets
    assert melds_text(brute_knocker_arrangement(P("Tc Jc Qc Qd Qh"))) == ["Tc Jc Qc"]


def test_knocker_layout_smallest_set_mask():
    # 3c 4c 5c 3d 4d 5d 5h 5s : set 5c 5h 5s + run 3d 4d 5d, or set 5d 5h 5s + run 3c 4c 5c
    # (deadwood 7 either way; two runs leave 5h 5s = 10). Same count of set cards; the set
    # with 5c (bit 4) is a smaller number than the one with 5d (bit 17).
    lay = brute_knocker_arrangement(P("3c 4c 5c 3d 4d 5d 5h 5s"))
    assert melds_text(lay) == ["5c 5h 5s", "3d 4d 5d"]


def test_knocker_runs_are_laid_out_whole():
    # 3c 4c 5c 6c 7c 8c 9d 9h 9s Kd : one run 3c..8c, not 3c4c5c + 6c7c8c
    lay = brute_knocker_arrangement(P("3c 4c 5c 6c 7c 8c 9d 9h 9s Kd"))
    assert melds_text(lay) == ["3c 4c 5c 6c 7c 8c", "9d 9h 9s"]


def test_knocker_layout_fewest_layoffs():
    # knocker Tc Jc Qc Qd Qh (+ deadwood), defender holds Kc 9c Qs:
    #   run Tc Jc Qc: defender lays off 9c and Kc, keeps Qs (10)
    #   set Qc Qd Qh: defender lays off Qs, keeps 9c Kc (19)
    knocker = P("Tc Jc Qc Qd Qh")
    defender = P("Kc 9c Qs")
    rules = Rules(knocker_arrangement="fewest_layoffs")
    assert melds_text(brute_knocker_arrangement(knocker, rules, defender)) == ["Qc Qd Qh"]
    assert melds_text(brute_knocker_arrangement(knocker, Rules(), defender)) == ["Tc Jc Qc"]
    with pytest.raises(ValueError):
        brute_knocker_arrangement(knocker, rules)


# ----------------------------------------------------------------------------------------------
# Lay-offs
# ----------------------------------------------------------------------------------------------


def test_layoff_chain():
    # knocker: 5h 6h 7h | defender: 8h 9h Kc -> 8h then 9h chain onto the run
    final, laid, own = brute_layoff(P("8h 9h Kc"), [P("5h 6h 7h")])
    assert (final, sorted(laid), own) == (10, P("8h 9h"), [])


def test_layoff_at_both_ends_and_on_a_set():
    # knocker: 5h 6h 7h, 9c 9d 9s | defender: 4h 8h 9h Kc -> 4h, 8h on the run, 9h on the set
    final, laid, _ = brute_layoff(P("4h 8h 9h Kc"), [P("5h 6h 7h"), P("9c 9d 9s")])
    assert final == 10 and sorted(laid) == P("4h 8h 9h")
    # a 4-card set takes nothing (and a set never takes a card of a neighbouring rank)
    final, laid, _ = brute_layoff(P("8h Th Kc"), [P("9c 9d 9h 9s")])
    assert final == 8 + 10 + 10 and laid == []


def test_layoff_onto_an_extended_run():
    # knocker holds 3c..8c (laid whole); the defender's 2c and 9c and then Tc all go on it
    knocker = P("3c 4c 5c 6c 7c 8c 9d 9h 9s Kd")
    lay = brute_knocker_arrangement(knocker)
    final, laid, _ = brute_layoff(P("2c 9c Tc Ad"), lay)
    assert final == 1 and sorted(laid) == P("2c 9c Tc")


def test_layoff_choice_when_a_card_fits_two_melds():
    # knocker: 8d 8h 8s and 5c 6c 7c | defender 8c 9c: 8c must go on the run (then 9c chains),
    # not on the set
    final, laid, _ = brute_layoff(P("8c 9c"), [P("8d 8h 8s"), P("5c 6c 7c")])
    assert final == 0 and sorted(laid) == P("8c 9c")


def test_defender_prefers_own_set_over_a_layoff():
    # knocker: 4s 5s 6s | defender: 7s 7d 7h -> keeps the set (0), rather than laying off 7s
    # (which would leave 7d 7h = 14)
    final, laid, own = brute_layoff(P("7s 7d 7h"), [P("4s 5s 6s")])
    assert final == 0 and laid == [] and melds_text(own) == ["7d 7h 7s"]


def test_defender_breaks_a_meld_to_lay_off_when_better():
    # knocker: 2h 3h 4h and Kc Kd Ks | defender: 5h 6h 7h Kh 8h.
    # Own run 5h6h7h8h + Kh on the set -> 0
    final, laid, own = brute_layoff(P("5h 6h 7h 8h Kh"), [P("2h 3h 4h"), P("Kc Kd Ks")])
    assert final == 0 and laid == [c("Kh")]


def test_layoff_rejects_non_melds():
    with pytest.raises(ValueError):
        brute_layoff(P("2c"), [P("Qc Kc Ac")])


# ----------------------------------------------------------------------------------------------
# Scripted hands of the scalar engine
# ----------------------------------------------------------------------------------------------

# The non-dealer (player 1, dealer 0) holds three runs and a king:
#   Ac 2c 3c | 4d 5d 6d | 7h 8h 9h | Ks
KNOCKER = "Ac 2c 3c 4d 5d 6d 7h 8h 9h Ks"
# The dealer holds junk: 2s 4s 6s 8s Qs 3h 5h Jd Kd and Th (which fits 7h 8h 9h)
JUNK = "2s 4s 6s 8s Th Qs 3h 5h Jd Kd"  # deadwood 68
# The same with Jh for Th (Th is then free to be the upcard); still 68
GIN_JUNK = "2s 4s 6s 8s Jh Qs 3h 5h Jd Kd"


def game(non_dealer, dealer, upcard, stock=(), rules=None, seed=0):
    """A game whose first hand is scripted; player 0 deals, player 1 is the non-dealer."""
    deck = build_deck(non_dealer, dealer, upcard, stock)
    return ReferenceGame.from_deck(rules or Rules(), deck, dealer=0, match_seed=seed)


def act(g, *acts):
    for a in acts:
        g.step(a)
    return g


def test_deal_from_a_scripted_deck():
    g = game(KNOCKER, JUNK, "Qh", ["5s", "Kc"])
    assert g.dealer == 0 and g.current_player == 1
    assert g.phase == A.PHASE_FIRST_UPCARD
    assert g.hands[1] == sorted(P(KNOCKER)) and g.hands[0] == sorted(P(JUNK))
    assert g.discard_pile == [c("Qh")] and g.stock[:2] == P("5s Kc") and len(g.stock) == 31
    assert g.hand_number == 0 and g.knock_limit == 10
    assert g.legal_actions() == [A.TAKE_DISCARD, A.PASS]


def test_first_upcard_both_pass_then_automatic_draw():
    g = game(KNOCKER, JUNK, "Qh", ["5s"])
    g.step(A.PASS)  # non-dealer passes: the dealer may take it
    assert g.current_player == 0 and g.phase == A.PHASE_FIRST_UPCARD
    assert g.legal_actions() == [A.TAKE_DISCARD, A.PASS]
    g.step(A.PASS)  # both passed: the non-dealer draws from the stock, and discards
    assert g.current_player == 1 and g.phase == A.PHASE_DISCARD
    assert c("5s") in g.hands[1] and len(g.hands[1]) == 11 and len(g.stock) == 30
    assert g.discard_pile == [c("Qh")] and g.taken_card is None
    g.step(A.DISCARD + c("5s"))  # a drawn card may be discarded at once
    assert g.current_player == 0 and g.phase == A.PHASE_DRAW
    assert g.legal_actions() == [A.DRAW_STOCK, A.TAKE_DISCARD]


def test_first_upcard_taken_by_the_dealer():
    g = game(KNOCKER, JUNK, "Qh")
    g.step(A.PASS)
    g.step(A.TAKE_DISCARD)
    assert g.current_player == 0 and g.phase == A.PHASE_DISCARD and g.taken_card == c("Qh")
    legal = g.legal_actions()
    assert A.DISCARD + c("Qh") not in legal  # the card just taken may not be discarded
    assert A.DISCARD + c("Kd") in legal
    with pytest.raises(ValueError, match="illegal action 37"):
        g.step(A.DISCARD + c("Qh"))
    g.step(A.DISCARD + c("Kd"))
    assert g.current_player == 1 and g.phase == A.PHASE_DRAW and g.discard_pile == [c("Kd")]
    # with the option off, the taken card may be discarded
    g = game(KNOCKER, JUNK, "Qh", rules=Rules(forbid_discard_of_taken_card=False))
    g.step(A.TAKE_DISCARD)
    assert A.DISCARD + c("Qh") in g.legal_actions()


def test_scripted_knock_with_a_layoff():
    g = game(KNOCKER, JUNK, "Qh", ["5s"])
    act(g, A.PASS, A.PASS)  # player 1 draws 5s: deadwood after discarding Ks is 5
    legal = g.legal_actions()
    assert A.KNOCK + c("Ks") in legal and A.KNOCK + c("5s") in legal  # 10 deadwood is allowed
    assert A.KNOCK + c("2c") not in legal
    g.step(A.KNOCK + c("Ks"))
    r = g.last_hand
    assert isinstance(r, HandResult)
    assert (r.kind, r.knocker, r.winner) == ("knock", 1, 1)
    assert r.knocker_deadwood == 5
    assert r.layoffs == [c("Th")]  # Th goes on 7h 8h 9h
    assert r.defender_deadwood == 68 - 10
    assert r.points == 58 - 5
    assert melds_text(r.knocker_melds) == ["Ac 2c 3c", "4d 5d 6d", "7h 8h 9h"]
    assert g.scoresheet.columns.tolist() == [[0, 0, 0], [53, 0, 0]]
    assert g.last_rewards == [0, 53]
    # the loser (player 0) deals the next hand, dealt from the seed
    assert g.dealer == 0 and g.hand_number == 1 and g.phase == A.PHASE_FIRST_UPCARD
    assert g.current_player == 1 and len(g.hands[0]) == len(g.hands[1]) == 10
    g.step(A.PASS)
    assert g.last_hand is None and g.last_rewards == [0, 0]


def test_scripted_gin_no_layoffs():
    g = game(KNOCKER, GIN_JUNK, "Th")
    g.step(A.TAKE_DISCARD)  # 7h 8h 9h Th
    legal = g.legal_actions()
    assert A.KNOCK + c("Th") not in legal and A.DISCARD + c("Th") not in legal
    g.step(A.KNOCK + c("Ks"))
    r = g.last_hand
    assert (r.kind, r.winner, r.knocker_deadwood) == ("gin", 1, 0)
    # the dealer's Jh would fit 7h 8h 9h Th, but nothing is laid off against a gin
    assert r.layoffs == [] and r.defender_deadwood == 68
    assert r.points == 68 + 25
    assert g.scoresheet.columns[1, 0] == 93 and g.last_rewards == [0, 93]


def test_gin_cannot_be_undercut():
    # dealer has gin too (deadwood 0) - the knocker's gin still wins, 0 + 25
    dealer = "2s 3s 4s 5s Jd Qd Kd 4h 5h 6h"
    g = game(KNOCKER, dealer, "Th")
    act(g, A.TAKE_DISCARD, A.KNOCK + c("Ks"))  # 7h 8h 9h Th: gin
    r = g.last_hand
    assert (r.kind, r.winner, r.defender_deadwood, r.points) == ("gin", 1, 0, 25)


def test_scripted_undercut_and_tie():
    # player 1 knocks with 8s (deadwood 8) after drawing Kc
    knocker = "Ac 2c 3c 4d 5d 6d 7h 8h 9h 8s"
    for dealer, d_d in (("Kd Kh Ks 5s 6s 7s Td Jd Qd 2h", 2),  # 2 < 8: undercut by 6
                        ("Kd Kh Ks 5s 6s 7s Td Jd Qd 8c", 8)):  # tie: an undercut
        g = game(knocker, dealer, "Qh", ["Kc"])
        act(g, A.PASS, A.PASS, A.KNOCK + c("Kc"))
        r = g.last_hand
        assert (r.kind, r.knocker, r.winner) == ("undercut", 1, 0)
        assert (r.knocker_deadwood, r.defender_deadwood) == (8, d_d)
        assert r.points == 8 - d_d + 25
        assert g.scoresheet.columns[0, 0] == r.points
        # the loser of the hand (the knocker) deals next
        assert g.dealer == 1


def test_knock_limit_is_checked_after_the_discard():
    # 11 cards: three runs + 9s + Ks: discarding Ks leaves 9 (knock), discarding 9s leaves 10
    g = game("Ac 2c 3c 4d 5d 6d 7h 8h 9h 9s", JUNK, "Qh", ["Ks"], rules=Rules(knock_limit=9))
    act(g, A.PASS, A.PASS)
    legal = g.legal_actions()
    assert A.KNOCK + c("Ks") in legal and A.KNOCK + c("9s") not in legal


def test_scripted_wall():
    g = game(KNOCKER, JUNK, "Qh", seed=5)
    act(g, A.PASS, A.PASS)
    draws = 1
    while True:
        p = g.current_player
        assert g.phase == A.PHASE_DISCARD
        stock_before = len(g.stock)
        g.step(A.DISCARD + max(g.hands[p]))  # never knock
        if g.last_hand is not None:
            break
        assert stock_before > 2
        g.step(A.DRAW_STOCK)
        draws += 1
    r = g.last_hand
    assert stock_before == 2 and draws == 29
    assert (r.kind, r.winner, r.knocker, r.points) == ("wall", -1, -1, 0)
    assert g.last_rewards == [0, 0]
    assert g.scoresheet.columns.sum() == 0 and not g.scoresheet.opened.any()
    # the same dealer deals again, the next deal number
    assert g.dealer == 0 and g.hand_number == 1 and g.phase == A.PHASE_FIRST_UPCARD
    assert len(g.stock) == 31


def test_wall_stock_size_option():
    g = game(KNOCKER, JUNK, "Qh", rules=Rules(wall_stock_size=28))
    act(g, A.PASS, A.PASS)
    # stock: 30 after the automatic draw; a discard leaves 30 (no wall), then 29, then 28: wall
    g.step(A.DISCARD + c("Ks"))
    assert g.last_hand is None
    g.step(A.DRAW_STOCK)
    g.step(A.DISCARD + g.hands[0][0])
    assert g.last_hand is None and len(g.stock) == 29
    g.step(A.DRAW_STOCK)
    g.step(A.DISCARD + max(g.hands[1]))
    assert g.last_hand is not None and g.last_hand.kind == "wall"


def test_scripted_big_gin():
    rules = Rules(big_gin=True)
    ten = "Ac 2c 3c 4c 5d 6d 7d 8h 9h Th"
    g = game(ten, JUNK.replace("Th", "Tc"), "Qc", ["Jh"], rules=rules)
    act(g, A.PASS, A.PASS)  # draws Jh: 11 cards, all melded
    legal = g.legal_actions()
    assert A.BIG_GIN in legal
    assert A.KNOCK + c("Ac") in legal  # gin with 10 is also possible
    g.step(A.BIG_GIN)
    r = g.last_hand
    assert (r.kind, r.winner) == ("big_gin", 1)
    assert r.points == 68 + 31 and r.defender_deadwood == 68
    # big gin is never legal when the option is off
    g = game(ten, JUNK.replace("Th", "Tc"), "Qc", ["Jh"])
    act(g, A.PASS, A.PASS)
    assert A.BIG_GIN not in g.legal_actions()


def test_straight_gin_only_gin_ends():
    rules = Rules.preset("straight-gin")
    g = game(KNOCKER, JUNK, "Qh", ["5s"], rules=rules)
    assert g.knock_limit == 0
    act(g, A.PASS, A.PASS)
    assert not [a for a in g.legal_actions() if A.KNOCK <= a < A.DRAW_STOCK]
    g = game(KNOCKER, GIN_JUNK, "Th", rules=rules)
    g.step(A.TAKE_DISCARD)
    assert [a for a in g.legal_actions() if A.KNOCK <= a < A.DRAW_STOCK] == [A.KNOCK + c("Ks")]


@pytest.mark.parametrize("upcard, limit, doubled", [("Ah", 0, False), ("7d", 7, False),
                                                     ("Kc", 10, False), ("4s", 4, True),
                                                     ("9s", 9, True)])
def test_oklahoma_knock_limit_and_spade(upcard, limit, doubled):
    rules = Rules.preset("oklahoma")
    g = game(KNOCKER, JUNK.replace("4s", "9c") if upcard == "4s" else JUNK, upcard, ["5s"],
             rules=rules)
    assert g.knock_limit == limit and g.score_multiplier == (2 if doubled else 1)
    act(g, A.PASS, A.PASS)  # draws 5s: discarding Ks leaves 5
    knocks = [a for a in g.legal_actions() if A.KNOCK <= a < A.DRAW_STOCK]
    assert (A.KNOCK + c("Ks") in knocks) == (limit >= 5)
    if limit >= 5:
        g.step(A.KNOCK + c("Ks"))
        r = g.last_hand
        assert r.kind == "knock"
        base = r.defender_deadwood - r.knocker_deadwood
        assert r.points == base * (2 if doubled else 1)
        assert g.scoresheet.columns[1, 0] == r.points


def test_next_dealer_options():
    for rule, expected in (("loser", 0), ("winner", 1), ("alternate", 1)):
        g = game(KNOCKER, JUNK, "Qh", ["5s"], rules=Rules(next_dealer=rule))
        act(g, A.PASS, A.PASS, A.KNOCK + c("Ks"))  # player 1 (non-dealer) wins; 0 dealt
        assert g.last_hand.winner == 1
        assert g.dealer == expected, rule


def test_the_deal_comes_from_the_seed():
    import numpy as np

    from hollywood_env.cards import deal_decks, first_dealer

    for seed in (0, 1, 2, 12345):
        g = ReferenceGame(Rules(), seed)
        deck = [int(x) for x in deal_decks(np.array([seed], dtype=np.uint64), np.array([0]))[0]]
        d = int(first_dealer(np.array([seed], dtype=np.uint64))[0])
        assert g.dealer == d and g.current_player == 1 - d
        assert g.hands[1 - d] == sorted(deck[:10]) and g.hands[d] == sorted(deck[10:20])
        assert g.discard_pile == [deck[20]] and g.stock == deck[21:]


def test_same_seed_same_match_and_copy_is_independent():
    rng = random.Random(11)
    g1, g2 = ReferenceGame(Rules(), 77), ReferenceGame(Rules(), 77)
    for _ in range(300):
        if g1.terminated:
            break
        a = rng.choice(g1.legal_actions())
        g1.step(a)
        g2.step(a)
        assert (g1.hands, g1.stock, g1.discard_pile, g1.phase, g1.current_player) == \
               (g2.hands, g2.stock, g2.discard_pile, g2.phase, g2.current_player)
    g3 = g1.copy()
    if not g1.terminated:
        g3.step(g3.legal_actions()[0])
        assert g3.hands != g1.hands or g3.phase != g1.phase


def test_illegal_actions_raise():
    g = game(KNOCKER, JUNK, "Qh")
    with pytest.raises(ValueError, match="legal: 105"):
        g.step(A.DRAW_STOCK)
    with pytest.raises(ValueError):
        g.step(999)


def test_match_ends_and_then_nothing_is_legal():
    rules = Rules.preset("gin-rummy")  # one game to 100
    # player 1 gins for 68 + 25 = 93, then plays on from the seed
    g = game(KNOCKER, GIN_JUNK, "Th", rules=rules.replace(target=90))
    act(g, A.TAKE_DISCARD, A.KNOCK + c("Ks"))
    assert g.terminated and g.phase == A.PHASE_GAME_OVER and g.current_player == -1
    assert g.legal_actions() == []
    assert g.scoresheet.match_winner == 1
    # totals: 93 + game bonus (doubled: shutout) + one box
    assert g.scoresheet.totals().tolist() == [[0], [93 + 200 + 25]]
    assert g.last_rewards == [0, 93 + 200 + 25]
    with pytest.raises(ValueError, match="match is over"):
        g.step(A.PASS)


# ----------------------------------------------------------------------------------------------
# Random play: the invariants of docs/rules.md, per preset
# ----------------------------------------------------------------------------------------------


def smart_random_policy(g, rng, eps):
    """Mostly sensible play (knock when possible, discard to minimise deadwood, take the upcard
    when it is in a meld), with probability ``eps`` a uniformly random legal action."""
    legal = g.legal_actions()
    if rng.random() < eps:
        return rng.choice(legal)
    ends = [a for a in legal if A.KNOCK <= a < A.DRAW_STOCK or a == A.BIG_GIN]
    if ends and rng.random() < 0.9:
        return rng.choice(ends)
    if g.phase == A.PHASE_DISCARD:
        after = g.deadwood_after_discard()
        discards = [a for a in legal if a < A.KNOCK]
        best = min(after[a] for a in discards)
        return rng.choice([a for a in discards if after[a] == best])
    top = g.discard_pile[-1]
    if any(top in m for m in all_melds(g.hands[g.current_player] + [top])):
        return A.TAKE_DISCARD
    return A.PASS if g.phase == A.PHASE_FIRST_UPCARD else A.DRAW_STOCK


def check_match(rules, seed, rng, eps=0.15, max_steps=20000):
    g = ReferenceGame(rules, seed)
    ss = g.scoresheet
    hands_seen = 0
    totals_before = ss.totals()  # totals (and columns) only change when a hand ends
    for _ in range(max_steps):
        legal = g.legal_actions()
        if g.terminated:
            break
        assert legal, "no legal action before the match is over"
        assert legal == sorted(set(legal))
        p, phase = g.current_player, g.phase
        sizes = [len(g.hands[0]), len(g.hands[1])]
        if phase == A.PHASE_DISCARD:
            assert sizes[p] == 11 and sizes[1 - p] == 10
            assert all(A.DISCARD + x in legal or x == g.taken_card for x in g.hands[p])
        else:
            assert sizes == [10, 10]
            assert g.stock and len(g.stock) > rules.wall_stock_size
        stock_before, dealer_before, hand_before = len(g.stock), g.dealer, g.hand_number
        cols_before = ss.columns
        limit = g.knock_limit
        if phase == A.PHASE_DISCARD and rng.random() < 0.05:  # knock legality, by brute force
            for x in g.hands[p]:
                can = x != g.taken_card or not rules.forbid_discard_of_taken_card
                rest = [y for y in g.hands[p] if y != x]
                assert (A.KNOCK + x in legal) == (can and brute_min_deadwood(rest) <= limit)
            assert (A.BIG_GIN in legal) == (rules.big_gin and brute_min_deadwood(g.hands[p]) == 0)
        action = smart_random_policy(g, rng, eps)
        g.step(action)

        # 52 cards, each once
        everything = g.hands[0] + g.hands[1] + g.stock + g.discard_pile
        assert sorted(everything) == list(range(52))
        r = g.last_hand
        cols = ss.columns
        if action < A.KNOCK:  # a plain discard walls exactly when it leaves wall_stock_size
            assert (r is not None and r.kind == "wall") == (stock_before == rules.wall_stock_size)
        if r is None:
            assert (cols == cols_before).all() and g.last_rewards == [0, 0]
            assert g.hand_number == hand_before
            continue
        # rewards: the change of each grand total
        totals = ss.totals()
        assert g.last_rewards == (totals.sum(axis=1) - totals_before.sum(axis=1)).tolist()
        totals_before = totals
        hands_seen += 1
        assert r.hand_number == hand_before
        assert g.terminated or g.hand_number == hand_before + 1
        if r.kind == "wall":
            assert action < A.KNOCK and stock_before == rules.wall_stock_size
            assert (cols == cols_before).all() and r.points == 0
            assert g.terminated or g.dealer == dealer_before
            continue
        # a knock never happens with an illegal deadwood; winners per kind
        assert stock_before >= rules.wall_stock_size
        assert r.knocker == p
        assert r.knocker_deadwood <= limit
        if r.kind in ("knock", "gin", "big_gin"):
            assert r.winner == p
        else:
            assert r.kind == "undercut" and r.winner == 1 - p
            assert r.defender_deadwood <= r.knocker_deadwood
        if r.kind == "gin":
            assert r.knocker_deadwood == 0 and r.layoffs == []
        if r.kind == "knock":
            assert r.defender_deadwood > r.knocker_deadwood > 0
        # only the winner's columns change, by the hand's points in each credited column
        w = r.winner
        assert (cols[1 - w] == cols_before[1 - w]).all()
        diff = cols[w] - cols_before[w]
        assert set(diff.tolist()) <= {0, r.points}
        assert r.points >= 0
        # next dealer
        if not g.terminated:
            expected = {"loser": 1 - w, "winner": w, "alternate": 1 - dealer_before}[rules.next_dealer]
            assert g.dealer == expected
    else:
        raise AssertionError(f"match {seed} did not end in {max_steps} steps")
    # the match ends per the rules
    assert g.terminated and ss.match_over and g.phase == A.PHASE_GAME_OVER and g.current_player == -1
    ended = [x is not None for x in ss.game_winners]
    if rules.short_session:
        assert sum(ended) >= 1
    else:
        assert all(ended)
    for k, winner in enumerate(ss.game_winners):
        if winner is not None:
            assert ss.columns[winner, k] >= rules.target
            assert ss.columns[1 - winner, k] < rules.target
    assert ss.match_winner in (-1, 0, 1)
    assert g.legal_actions() == []
    return g, hands_seen


N_MATCHES = 120  # per preset; the slow suite plays 500 more with more random moves


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_play_invariants(preset):
    rules = Rules.preset(preset)
    rng = random.Random(f"random-play-{preset}")
    kinds = set()
    n = N_MATCHES // 2 if preset == "straight-gin" else N_MATCHES  # long hands: only gin ends them
    for seed in range(n):
        g, hands = check_match(rules, 1000 + seed, rng)
        kinds |= {r.kind for r in g.results}
        assert len(g.results) == hands
    expected = {"gin", "wall"} if preset == "straight-gin" else {"knock", "undercut", "gin", "wall"}
    assert kinds == expected


@pytest.mark.parametrize("changes, kinds", [
    (dict(short_session=True), {"knock"}),
    (dict(match_winner="total", shutout="double_all"), {"knock"}),
    (dict(big_gin=True, straight_gin=True), {"big_gin", "gin"}),
    (dict(knocker_arrangement="fewest_layoffs", forbid_discard_of_taken_card=False,
          wall_stock_size=10, columns=2, target=60), {"knock", "undercut"}),
    (dict(oklahoma=True, oklahoma_spade_doubles=False, next_dealer="alternate"), {"knock"}),
])
def test_random_play_option_mix(changes, kinds):
    rules = Rules().replace(**changes)
    rng = random.Random(str(changes))
    seen = set()
    for seed in range(30):
        g, _ = check_match(rules, 5000 + seed, rng)
        seen |= {r.kind for r in g.results}
    assert kinds <= seen


@pytest.mark.slow
@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_play_invariants_many(preset):
    rules = Rules.preset(preset)
    rng = random.Random(f"many-{preset}")
    for seed in range(500):
        check_match(rules, 20000 + seed, rng, eps=0.3)
