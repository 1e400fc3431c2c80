// Plays a player written for the EAAI Gin Rummy competition (a class implementing
// ginrummy.GinRummyPlayer) as a hollywood-proc agent (protocol: agents/interop/proc_agent.py,
// docs/evaluation.md, section "EAAI competition players"). Only the framework's
// ginrummy.GinRummyPlayer and ginrummy.Card are used; compile against your own copy of it:
//
//     javac -cp FRAMEWORK_CLASSES -d ADAPTER_CLASSES examples/proc/eaai/EaaiProcAdapter.java
//     hollywood evaluate 'proc:java -cp FRAMEWORK_CLASSES:ADAPTER_CLASSES:PLAYER_CLASSES EaaiProcAdapter MyPlayer' \
//         simple --games 20 --rules eaai
//
// One player instance is made per game of the batch (the framework plays one game at a time, we
// play many). For each decision the adapter first tells that instance what it has not been told
// yet, from the decision's public history: startGame with the dealt cards at a new deal
// (reportScores before it when the match goes on), reportDraw (the card when it is public or the
// player's own, null for the opponent's stock draw; the player's own stock card is the one that
// appeared in its hand) and reportDiscard for both sides. Then it asks: willDrawFaceUpCard(top of
// the pile) in the first-upcard and draw phases ("take discard", else "pass" or "draw stock");
// getDiscard() then reportDiscard and getFinalMelds() in the discard phase: melds and a legal
// "knock X" give "knock X" (then reportFinalMelds), melds and a legal "big gin" give "big gin",
// anything else "discard X". The environment lays out the knocker's melds itself: the player's are
// only checked. Not told: the opponent's melds, lay-offs and final hands (not in the protocol).
//
// Anything the player prints on System.out goes to stderr (stdout carries the protocol). An
// answer the framework would punish (a card not held, a card that may not be discarded now, melds
// that are not melds of its hand) or an exception stops the adapter with a one-line message on
// stderr and exit code 1; the caller reports it. `EaaiProcAdapter --cards` prints the card mapping.
import ginrummy.Card;
import ginrummy.GinRummyPlayer;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class EaaiProcAdapter {
    static final String RANKS = "A23456789TJQK";
    static final String SUITS = "cdhs";            // protocol suits; card index = suit * 13 + rank
    static final int[] FRAMEWORK_SUIT = {0, 3, 1, 2};  // c d h s -> ginrummy.Card suits (C H S D)
    static final String FROM_FRAMEWORK = "chsd";    // ginrummy.Card suit 0..3 -> protocol suit

    /** A stop: one line for stderr. */
    static final class Stop extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stop(String message) { super(message); }
    }

    // --- cards ---------------------------------------------------------------------------------

    static int parseCard(Object o) {
        String s = o instanceof String ? (String) o : "";
        int r = s.length() == 2 ? RANKS.indexOf(s.charAt(0)) : -1, u = s.length() == 2 ? SUITS.indexOf(s.charAt(1)) : -1;
        if (r < 0 || u < 0) throw new Stop("the server sent a card named " + o + "; expected a rank of " + RANKS
                                           + " and a suit of " + SUITS);
        return u * 13 + r;
    }

    static String cardName(int c) { return "" + RANKS.charAt(c % 13) + SUITS.charAt(c / 13); }

    static Card toCard(int c) { return Card.getCard(c % 13, FRAMEWORK_SUIT[c / 13]); }

    /** The protocol index of a framework card, or -1 for null or a card outside the deck. */
    static int fromCard(Card card) {
        if (card == null) return -1;
        int r = card.getRank(), s = card.getSuit();
        if (r < 0 || r > 12 || s < 0 || s > 3) return -1;
        return SUITS.indexOf(FROM_FRAMEWORK.charAt(s)) * 13 + r;
    }

    static long bit(int c) { return 1L << c; }

    static long cardMask(List<Object> names) {
        long m = 0;
        for (Object o : names) m |= bit(parseCard(o));
        return m;
    }

    /** The cards of ``hand`` in the framework's names (messages are for the player's author). */
    static String handText(long hand) {
        StringBuilder b = new StringBuilder();
        for (int c = 0; c < 52; c++)
            if ((hand & bit(c)) != 0) b.append(b.length() > 0 ? " " : "").append(toCard(c));
        return b.toString();
    }

    static int value(int c) { return Math.min(c % 13 + 1, 10); }

    // --- one player per game --------------------------------------------------------------------

    final String className;
    final Class<? extends GinRummyPlayer> playerClass;
    final Map<Long, Table> tables = new HashMap<>();
    GinRummyPlayer spare;  // made at start-up to check the class; the first game gets it
    boolean warnedKnock;

    static final class Table {
        final GinRummyPlayer player;
        boolean started;
        int seat, handNumber;
        boolean dealerIsMe;
        final List<String> seen = new ArrayList<>();  // the history events replayed so far this hand
        long hand;          // the player's cards as it was told them
        int toldDiscard = -1;  // its own discard, told at its decision, expected next in the history

        Table(GinRummyPlayer player) { this.player = player; }
    }

    EaaiProcAdapter(String className) {
        this.className = className;
        Class<?> c;
        try {
            c = Class.forName(className);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new Stop("cannot load the player class " + className + " (" + e + "); is it on the -cp class path?");
        }
        if (!GinRummyPlayer.class.isAssignableFrom(c))
            throw new Stop(className + " does not implement ginrummy.GinRummyPlayer");
        playerClass = c.asSubclass(GinRummyPlayer.class);
        spare = newPlayer();
    }

    GinRummyPlayer newPlayer() {
        try {
            return playerClass.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | RuntimeException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            cause.printStackTrace();
            throw new Stop("cannot make a " + className + " with its no-argument constructor: " + cause);
        }
    }

    /** Runs a call of the player; an exception becomes a one-line stop (its stack trace first). */
    <T> T call(long game, String what, java.util.function.Supplier<T> f) {
        try {
            return f.get();
        } catch (Stop e) {
            throw e;
        } catch (RuntimeException | Error e) {
            e.printStackTrace();
            throw new Stop("game " + game + ": " + className + "." + what + " threw " + e);
        }
    }

    void run(long game, String what, Runnable f) {
        call(game, what, () -> { f.run(); return null; });
    }

    // --- a decision -----------------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o, String field) {
        if (!(o instanceof List)) throw new Stop("the decision's " + field + " is not a list: " + o);
        return (List<Object>) o;
    }

    static long number(Object o, String field) {
        if (!(o instanceof Number)) throw new Stop("the decision's " + field + " is not a number: " + o);
        return ((Number) o).longValue();
    }

    @SuppressWarnings("unchecked")
    String decide(Map<String, Object> d) {
        long game = number(d.get("game"), "game");
        int seat = d.get("seat") == null ? 0 : (int) number(d.get("seat"), "seat");
        String phase = String.valueOf(d.get("phase"));
        long hand = cardMask(list(d.get("hand"), "hand"));
        List<Object> pile = list(d.get("pile"), "pile");
        boolean dealerIsMe = "you".equals(d.get("dealer"));
        int handNumber = (int) number(d.get("hand_number"), "hand_number");
        if (d.get("history") == null)
            throw new Stop("game " + game + ": the decision has no history (the adapter replays it to the player; "
                           + "play through agents.matches or the CLI, which send it)");
        List<Object> history = list(d.get("history"), "history");
        List<String> legal = new ArrayList<>();
        for (Object o : list(d.get("legal"), "legal")) legal.add(String.valueOf(o));

        if (!tables.containsKey(game)) {
            tables.put(game, new Table(spare != null ? spare : newPlayer()));
            spare = null;
        }
        Table t = tables.get(game);
        List<String[]> events = new ArrayList<>();
        for (Object o : history) {
            Map<String, Object> e = (Map<String, Object>) o;
            events.add(new String[] {String.valueOf(e.get("player")), String.valueOf(e.get("event")),
                                     String.valueOf(e.get("card"))});
        }
        boolean newHand = !t.started || t.handNumber != handNumber || t.seat != seat || t.dealerIsMe != dealerIsMe
                          || t.seen.size() > events.size();
        for (int i = 0; !newHand && i < t.seen.size(); i++)
            newHand = !t.seen.get(i).equals(String.join(" ", events.get(i)));
        if (newHand) startHand(t, game, seat, dealerIsMe, handNumber, hand, d);
        replay(t, game, events, hand);
        if (t.hand != hand)
            throw new Stop("game " + game + ": the replay lost track of the hand (told [" + handText(t.hand)
                           + "], holds [" + handText(hand) + "]); please report this");
        GinRummyPlayer p = t.player;

        if (phase.equals("first_upcard") || phase.equals("draw")) {
            if (legal.contains("take discard")) {
                Card top = toCard(parseCard(pile.get(pile.size() - 1)));
                boolean take = call(game, "willDrawFaceUpCard(" + top + ")", () -> p.willDrawFaceUpCard(top));
                if (take) return "take discard";
            }
            String other = phase.equals("first_upcard") ? "pass" : "draw stock";
            if (!legal.contains(other)) throw new Stop("game " + game + ": no " + other + " among the legal actions " + legal);
            return other;
        }
        if (!phase.equals("discard")) throw new Stop("game " + game + ": unknown phase " + phase);

        Card card = call(game, "getDiscard()", p::getDiscard);
        int c = fromCard(card);
        if (c < 0 || (t.hand & bit(c)) == 0)
            throw new Stop("game " + game + ": " + className + ".getDiscard() returned " + card
                           + ", a card it does not hold (its hand: " + handText(t.hand) + ")");
        String discard = "discard " + cardName(c);
        if (!legal.contains(discard))
            throw new Stop("game " + game + ": " + className + ".getDiscard() returned " + card
                           + ", which may not be discarded now (the card just taken from the pile?)");
        t.hand &= ~bit(c);
        t.toldDiscard = c;
        run(game, "reportDiscard", () -> p.reportDiscard(t.seat, card));
        ArrayList<ArrayList<Card>> melds = call(game, "getFinalMelds()", p::getFinalMelds);
        if (melds == null) return discard;
        int deadwood = checkMelds(game, melds, t.hand);
        if (legal.contains("big gin")) return "big gin";
        String knock = "knock " + cardName(c);
        if (legal.contains(knock)) {
            ArrayList<ArrayList<Card>> shown = new ArrayList<>();
            for (ArrayList<Card> m : melds) shown.add(new ArrayList<>(m));
            run(game, "reportFinalMelds", () -> p.reportFinalMelds(t.seat, shown));
            return knock;
        }
        if (!warnedKnock) {
            warnedKnock = true;
            System.err.println("EaaiProcAdapter: note: game " + game + ": " + className + " knocked with " + deadwood
                               + " deadwood, above this hand's knock limit " + d.get("knock_limit")
                               + "; played as a plain discard (noted once)");
        }
        return discard;
    }

    void startHand(Table t, long game, int seat, boolean dealerIsMe, int handNumber, long hand, Map<String, Object> d) {
        GinRummyPlayer p = t.player;
        if (t.started && t.seat == seat && handNumber > t.handNumber) {  // the match goes on
            int[] scores = new int[2];
            Object sheet = d.get("scoresheet");
            if (sheet instanceof Map) {
                Object points = ((Map<?, ?>) sheet).get("points");
                if (points instanceof Map) {
                    scores[seat] = sum(((Map<?, ?>) points).get("you"));
                    scores[1 - seat] = sum(((Map<?, ?>) points).get("opponent"));
                }
            }
            run(game, "reportScores", () -> p.reportScores(scores));
        }
        Card[] cards = new Card[Long.bitCount(hand)];
        for (int c = 0, i = 0; c < 52; c++)
            if ((hand & bit(c)) != 0) cards[i++] = toCard(c);
        int starting = dealerIsMe ? 1 - seat : seat;  // the non-dealer is offered the first upcard first
        run(game, "startGame", () -> p.startGame(seat, starting, cards));
        t.started = true;
        t.seat = seat;
        t.dealerIsMe = dealerIsMe;
        t.handNumber = handNumber;
        t.hand = hand;
        t.seen.clear();
        t.toldDiscard = -1;
    }

    static int sum(Object o) {
        int s = 0;
        if (o instanceof List) for (Object x : (List<?>) o) if (x instanceof Number) s += ((Number) x).intValue();
        return s;
    }

    /** Tells the player the events of ``events`` it has not been told. */
    void replay(Table t, long game, List<String[]> events, long hand) {
        GinRummyPlayer p = t.player;
        for (int i = t.seen.size(); i < events.size(); i++) {
            String[] e = events.get(i);
            boolean mine = e[0].equals("you");
            int who = mine ? t.seat : 1 - t.seat;
            int c = parseCard(e[2]);
            switch (e[1]) {
                case "take": {
                    Card card = toCard(c);
                    run(game, "reportDraw", () -> p.reportDraw(who, card));
                    if (mine) t.hand |= bit(c);
                    break;
                }
                case "decline": {
                    // the first one or two declines of a hand are passes of the first upcard (no
                    // draw); when the dealer passes too, the non-dealer draws from the stock at once
                    boolean pass = i == 0 || (i == 1 && events.get(0)[1].equals("decline"));
                    if (!pass) stockDraw(t, game, mine, i == events.size() - 1, hand);
                    else if (i == 1) stockDraw(t, game, !mine, i == events.size() - 1, hand);
                    break;
                }
                case "discard": {
                    if (mine) {  // told at the decision that chose it
                        if (t.toldDiscard != c)
                            throw new Stop("game " + game + ": the history shows a discard of " + e[2]
                                           + " the player did not choose; please report this");
                        t.toldDiscard = -1;
                    } else {
                        Card card = toCard(c);
                        run(game, "reportDiscard", () -> p.reportDiscard(who, card));
                    }
                    break;
                }
                default:
                    throw new Stop("game " + game + ": unknown event " + e[1] + " in the history");
            }
            t.seen.add(String.join(" ", e));
        }
    }

    void stockDraw(Table t, long game, boolean mine, boolean last, long hand) {
        GinRummyPlayer p = t.player;
        if (!mine) {
            run(game, "reportDraw", () -> p.reportDraw(1 - t.seat, null));
            return;
        }
        long drawn = hand & ~t.hand;
        if (!last || Long.bitCount(drawn) != 1)
            throw new Stop("game " + game + ": cannot tell which card the player drew from the stock (told ["
                           + handText(t.hand) + "], holds [" + handText(hand) + "]); please report this");
        Card card = toCard(Long.numberOfTrailingZeros(drawn));
        run(game, "reportDraw", () -> p.reportDraw(t.seat, card));
        t.hand |= drawn;
    }

    /** The deadwood the melds leave in ``hand``; a stop unless they are disjoint melds of it. */
    int checkMelds(long game, ArrayList<ArrayList<Card>> melds, long hand) {
        long used = 0;
        for (ArrayList<Card> meld : melds) {
            String bad = null;
            long m = 0;
            int[] cards = new int[meld == null ? 0 : meld.size()];
            for (int i = 0; i < cards.length && bad == null; i++) {
                cards[i] = fromCard(meld.get(i));
                if (cards[i] < 0 || (hand & bit(cards[i])) == 0) bad = "holds " + meld.get(i) + ", a card not in its hand";
                else if (((used | m) & bit(cards[i])) != 0) bad = "uses " + meld.get(i) + " twice";
                else m |= bit(cards[i]);
            }
            if (bad == null && !isMeld(cards)) bad = "is not a set or a run of 3 or more cards";
            if (bad != null)
                throw new Stop("game " + game + ": " + className + ".getFinalMelds() returned a meld " + meld + " that "
                               + bad + " (its hand: " + handText(hand) + ")");
            used |= m;
        }
        int deadwood = 0;
        for (int c = 0; c < 52; c++)
            if ((hand & ~used & bit(c)) != 0) deadwood += value(c);
        return deadwood;
    }

    static boolean isMeld(int[] cards) {
        if (cards.length < 3) return false;
        boolean sameRank = true, sameSuit = true;
        int lo = 13, hi = -1;
        for (int c : cards) {
            sameRank &= c % 13 == cards[0] % 13;
            sameSuit &= c / 13 == cards[0] / 13;
            lo = Math.min(lo, c % 13);
            hi = Math.max(hi, c % 13);
        }
        return (sameRank && cards.length <= 4) || (sameSuit && hi - lo == cards.length - 1);  // distinct cards
    }

    // --- the protocol ---------------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    String answer(Map<String, Object> msg) {
        Object type = msg.get("type");
        if ("hello".equals(type))
            return "{\"type\":\"hello\",\"name\":" + quote("eaai:" + className) + ",\"version\":1}";
        if (!"act".equals(type)) throw new Stop("unexpected message type " + type);
        StringBuilder out = new StringBuilder("{\"type\":\"act\",\"actions\":[");
        int i = 0;
        for (Object d : list(msg.get("decisions"), "decisions"))
            out.append(i++ > 0 ? "," : "").append(quote(decide((Map<String, Object>) d)));
        return out.append("]}").toString();
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') b.append('\\').append(ch);
            else if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch));
            else b.append(ch);
        }
        return b.append('"').toString();
    }

    public static void main(String[] args) throws Exception {
        // stdout carries the protocol: whatever the player prints goes to stderr
        Writer protocol = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out),
                                                                    StandardCharsets.UTF_8));
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, "UTF-8"));
        if (args.length == 1 && args[0].equals("--cards")) {  // the card mapping, to check a framework copy
            for (int c = 0; c < 52; c++)
                protocol.write(cardName(c) + " " + toCard(c) + " " + toCard(c).getRank() + " " + toCard(c).getSuit()
                               + (fromCard(toCard(c)) == c ? "" : " MISMATCH") + "\n");
            protocol.flush();
            return;
        }
        if (args.length != 1 || args[0].startsWith("-")) {
            System.err.println("usage: java -cp FRAMEWORK:ADAPTER:PLAYER EaaiProcAdapter PLAYER_CLASS  (or --cards)");
            System.exit(2);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            EaaiProcAdapter adapter = new EaaiProcAdapter(args[0]);
            String line;
            while ((line = in.readLine()) != null) {
                if (line.trim().isEmpty()) continue;
                Object msg = new Json(line).parse();
                if (!(msg instanceof Map)) throw new Stop("the server sent something other than a JSON object");
                if ("bye".equals(((Map<?, ?>) msg).get("type"))) break;
                @SuppressWarnings("unchecked")
                String reply = adapter.answer((Map<String, Object>) msg);
                protocol.write(reply);
                protocol.write('\n');
                protocol.flush();
            }
        } catch (Stop e) {
            System.err.println("EaaiProcAdapter: " + e.getMessage());
            System.exit(1);
        } catch (RuntimeException e) {
            e.printStackTrace();
            System.err.println("EaaiProcAdapter: " + e);
            System.exit(1);
        }
        System.exit(0);  // player threads, if any, do not keep the program alive
    }

    // --- a small JSON reader (objects, arrays, strings, numbers, true, false, null) ----------------

    static final class Json {
        final String s;
        int i;

        Json(String s) { this.s = s; }

        Object parse() {
            Object v = value();
            space();
            if (i != s.length()) fail("trailing characters");
            return v;
        }

        void fail(String what) { throw new Stop("cannot read the server's JSON at character " + i + ": " + what); }

        void space() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

        boolean word(String w) {
            if (!s.startsWith(w, i)) return false;
            i += w.length();
            return true;
        }

        Object value() {
            space();
            if (i >= s.length()) fail("unexpected end");
            char ch = s.charAt(i);
            if (ch == '{') {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                space();
                if (word("}")) return m;
                do {
                    space();
                    if (i >= s.length() || s.charAt(i) != '"') fail("expected a key");
                    String k = string();
                    space();
                    if (!word(":")) fail("expected ':'");
                    m.put(k, value());
                    space();
                } while (word(","));
                if (!word("}")) fail("expected '}'");
                return m;
            }
            if (ch == '[') {
                i++;
                List<Object> a = new ArrayList<>();
                space();
                if (word("]")) return a;
                do a.add(value()); while (skipThen(','));
                if (!word("]")) fail("expected ']'");
                return a;
            }
            if (ch == '"') return string();
            if (word("true")) return Boolean.TRUE;
            if (word("false")) return Boolean.FALSE;
            if (word("null")) return null;
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            String num = s.substring(start, i);
            if (num.isEmpty()) fail("unexpected character '" + ch + "'");
            try {
                return num.matches("-?\\d+") ? (Object) Long.parseLong(num) : (Object) Double.parseDouble(num);
            } catch (NumberFormatException e) {
                fail("bad number " + num);
                return null;
            }
        }

        boolean skipThen(char c) {
            space();
            return word(String.valueOf(c));
        }

        String string() {
            i++;  // the opening quote
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= s.length()) fail("unterminated string");
                char ch = s.charAt(i++);
                if (ch == '"') return b.toString();
                if (ch != '\\') {
                    b.append(ch);
                    continue;
                }
                if (i >= s.length()) fail("unterminated string");
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u':
                        if (i + 4 > s.length()) fail("bad \\u escape");
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                        break;
                    default: b.append(e);  // \" \\ \/
                }
            }
        }
    }
}
