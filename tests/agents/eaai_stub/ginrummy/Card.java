package ginrummy;

// A stand-in for the tests of examples/proc/eaai/EaaiProcAdapter.java: the public signatures of the
// EAAI Gin Rummy framework's ginrummy.Card that the adapter and the test players use, with the
// framework's numbering (rank 0-12: A 2 ... T J Q K; suit 0-3: C H S D; id = suit * 13 + rank;
// names like "AC", "TD"). Our own minimal code, not the framework: compile the adapter against
// the real framework to play real entries.
public class Card {
    public static final int NUM_RANKS = 13;
    public static final int NUM_SUITS = 4;
    public static final int NUM_CARDS = NUM_RANKS * NUM_SUITS;
    public static String[] rankNames = "A 2 3 4 5 6 7 8 9 T J Q K".split(" ");
    public static String[] suitNames = {"C", "H", "S", "D"};
    public static Card[] allCards = new Card[NUM_CARDS];

    static {
        for (int id = 0; id < NUM_CARDS; id++) allCards[id] = new Card(id % NUM_RANKS, id / NUM_RANKS);
    }

    public final int rank;
    public final int suit;

    public Card(int rank, int suit) {
        this.rank = rank;
        this.suit = suit;
    }

    public static Card getCard(int id) { return allCards[id]; }

    public static Card getCard(int rank, int suit) { return allCards[suit * NUM_RANKS + rank]; }

    public int getRank() { return rank; }

    public int getSuit() { return suit; }

    public int getId() { return suit * NUM_RANKS + rank; }

    @Override
    public String toString() { return rankNames[rank] + suitNames[suit]; }
}
