import ginrummy.Card;
import ginrummy.GinRummyPlayer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

// A small GinRummyPlayer of our own for the tests of examples/proc/eaai/EaaiProcAdapter.java
// (tests/agents/test_eaai_adapter.py). It knows its hand, the discard pile and the opponent's card
// count only from the callbacks and throws at the first thing that does not add up (a draw or a
// discard out of turn, an offered card that is not the top of the pile, a card it should or
// should not hold), so a wrong replay by the adapter fails the tests. Play: takes the face-up card
// when that lowers its deadwood, discards to leave the least deadwood (ties: the higher card),
// knocks with 10 or less. BadDiscard and BadMelds answer nonsense.
public class StubPlayer implements GinRummyPlayer {
    int me = -1;
    final List<Card> hand = new ArrayList<>();
    final Deque<Card> pile = new ArrayDeque<>();  // the discard pile, top first
    boolean upcardSeen;
    int opponentCards;
    Card takenFaceUp;  // drawn from the pile this turn: may not be discarded
    Card chosen;       // the card getDiscard returned
    boolean discarded;  // its own discard was reported: getFinalMelds may be asked

    static void check(boolean ok, String what) {
        if (!ok) throw new IllegalStateException(what);
    }

    @Override
    public void startGame(int playerNum, int startingPlayerNum, Card[] cards) {
        check(playerNum == 0 || playerNum == 1, "playerNum " + playerNum);
        check(startingPlayerNum == 0 || startingPlayerNum == 1, "startingPlayerNum " + startingPlayerNum);
        check(cards.length == 10, "dealt " + cards.length + " cards");
        me = playerNum;
        hand.clear();
        for (Card c : cards) {
            check(!hand.contains(c), "dealt " + c + " twice");
            hand.add(c);
        }
        pile.clear();
        upcardSeen = false;
        opponentCards = 10;
        takenFaceUp = chosen = null;
        discarded = false;
    }

    @Override
    public boolean willDrawFaceUpCard(Card card) {
        check(me >= 0, "asked before startGame");
        check(hand.size() == 10 && opponentCards == 10, "asked to draw holding " + hand.size()
              + " cards, the opponent " + opponentCards);
        check(!hand.contains(card), "offered " + card + ", a card it holds");
        if (!upcardSeen) {
            check(pile.isEmpty(), "a first upcard after discards");
            pile.push(card);
            upcardSeen = true;
        }
        check(pile.peek() == card, "offered " + card + ", but the top of the pile is " + pile.peek());
        List<Card> more = new ArrayList<>(hand);
        more.add(card);
        return bestDiscard(more, card)[1] < arrange(hand).deadwood;
    }

    @Override
    public void reportDraw(int playerNum, Card drawnCard) {
        if (playerNum == me) {
            check(drawnCard != null, "its own draw was reported without the card");
            check(hand.size() == 10 && !hand.contains(drawnCard), "drew " + drawnCard + " holding " + hand);
            takenFaceUp = !pile.isEmpty() && pile.peek() == drawnCard ? pile.pop() : null;
            hand.add(drawnCard);
            return;
        }
        check(playerNum == 1 - me, "a draw by player " + playerNum);
        check(opponentCards == 10, "the opponent drew holding " + opponentCards + " cards");
        opponentCards++;
        if (drawnCard == null) return;
        check(!hand.contains(drawnCard), "the opponent drew " + drawnCard + ", a card it holds");
        if (pile.isEmpty()) {
            check(!upcardSeen, "the opponent drew " + drawnCard + " from an empty pile");
            upcardSeen = true;
        } else {
            check(pile.peek() == drawnCard, "the opponent drew " + drawnCard + ", the top is " + pile.peek());
            pile.pop();
        }
    }

    @Override
    public Card getDiscard() {
        check(hand.size() == 11 && chosen == null, "asked to discard holding " + hand.size() + " cards");
        chosen = hand.get(bestDiscard(hand, takenFaceUp)[0]);
        return chosen;
    }

    @Override
    public void reportDiscard(int playerNum, Card discardedCard) {
        if (playerNum == me) {
            check(discardedCard == chosen, "told of its discard of " + discardedCard + "; it chose " + chosen);
            hand.remove(discardedCard);
            chosen = takenFaceUp = null;
            discarded = true;
        } else {
            check(opponentCards == 11, "the opponent discarded holding " + opponentCards + " cards");
            check(!hand.contains(discardedCard), "the opponent discarded " + discardedCard + ", a card it holds");
            opponentCards--;
        }
        pile.push(discardedCard);
    }

    @Override
    public ArrayList<ArrayList<Card>> getFinalMelds() {
        check(discarded, "asked for its melds before its discard was reported");
        discarded = false;
        Arrangement a = arrange(hand);
        return a.deadwood <= 10 ? a.melds : null;
    }

    @Override
    public void reportFinalMelds(int playerNum, ArrayList<ArrayList<Card>> melds) {
        check(melds != null, "null melds reported");
    }

    @Override
    public void reportScores(int[] scores) {
        check(scores.length == 2 && scores[0] >= 0 && scores[1] >= 0, "scores " + java.util.Arrays.toString(scores));
    }

    @Override
    public void reportLayoff(int playerNum, Card layoffCard, ArrayList<Card> opponentMeld) {}

    @Override
    public void reportFinalHand(int playerNum, ArrayList<Card> hand) {}

    // --- melds --------------------------------------------------------------------------------

    static final class Arrangement {
        ArrayList<ArrayList<Card>> melds = new ArrayList<>();
        int deadwood;
    }

    static int value(Card c) {
        return Math.min(c.getRank() + 1, 10);
    }

    /** {index of the card to discard, deadwood left}: the least deadwood, ties the higher card. */
    static int[] bestDiscard(List<Card> cards, Card keep) {
        int[] best = {-1, Integer.MAX_VALUE};
        for (int i = 0; i < cards.size(); i++) {
            if (cards.get(i) == keep) continue;
            List<Card> rest = new ArrayList<>(cards);
            rest.remove(i);
            int d = arrange(rest).deadwood;
            if (d < best[1] || (d == best[1] && value(cards.get(i)) > value(cards.get(best[0])))) {
                best[0] = i;
                best[1] = d;
            }
        }
        return best;
    }

    /** The melds that leave the least deadwood (an exhaustive search over disjoint melds). */
    static Arrangement arrange(List<Card> cards) {
        List<List<Card>> candidates = new ArrayList<>();
        for (int r = 0; r < 13; r++) {
            List<Card> same = new ArrayList<>();
            for (Card c : cards) if (c.getRank() == r) same.add(c);
            if (same.size() >= 3) candidates.add(same);
            if (same.size() == 4)
                for (int skip = 0; skip < 4; skip++) {
                    List<Card> three = new ArrayList<>(same);
                    three.remove(skip);
                    candidates.add(three);
                }
        }
        for (int s = 0; s < 4; s++) {
            Card[] byRank = new Card[13];
            for (Card c : cards) if (c.getSuit() == s) byRank[c.getRank()] = c;
            for (int lo = 0; lo < 13; lo++)
                for (int hi = lo; hi < 13 && byRank[hi] != null; hi++)
                    if (hi - lo >= 2) {
                        List<Card> run = new ArrayList<>();
                        for (int r = lo; r <= hi; r++) run.add(byRank[r]);
                        candidates.add(run);
                    }
        }
        int total = 0;
        for (Card c : cards) total += value(c);
        List<List<Card>> chosenMelds = new ArrayList<>();
        List<List<Card>> bestMelds = new ArrayList<>();
        int[] bestSaved = {0};
        search(candidates, 0, new ArrayList<>(), 0, chosenMelds, bestMelds, bestSaved);
        Arrangement a = new Arrangement();
        for (List<Card> m : bestMelds) a.melds.add(new ArrayList<>(m));
        a.deadwood = total - bestSaved[0];
        return a;
    }

    static void search(List<List<Card>> candidates, int k, List<Card> used, int saved, List<List<Card>> chosen,
                       List<List<Card>> best, int[] bestSaved) {
        if (saved > bestSaved[0]) {
            bestSaved[0] = saved;
            best.clear();
            best.addAll(chosen);
        }
        for (int i = k; i < candidates.size(); i++) {
            List<Card> m = candidates.get(i);
            boolean free = true;
            for (Card c : m) free &= !used.contains(c);
            if (!free) continue;
            int v = 0;
            for (Card c : m) v += value(c);
            used.addAll(m);
            chosen.add(m);
            search(candidates, i + 1, used, saved + v, chosen, best, bestSaved);
            chosen.remove(chosen.size() - 1);
            for (int j = 0; j < m.size(); j++) used.remove(used.size() - 1);
        }
    }

    /** Discards a card it does not hold. */
    public static class BadDiscard extends StubPlayer {
        @Override
        public Card getDiscard() {
            super.getDiscard();
            for (Card c : Card.allCards)
                if (!hand.contains(c)) return c;
            return null;
        }
    }

    /** Knocks with two cards as its only meld. */
    public static class BadMelds extends StubPlayer {
        @Override
        public ArrayList<ArrayList<Card>> getFinalMelds() {
            super.getFinalMelds();
            ArrayList<ArrayList<Card>> melds = new ArrayList<>();
            melds.add(new ArrayList<>(hand.subList(0, 2)));
            return melds;
        }
    }
}
