// A hollywood-proc client in Java, standard library only (protocol: agents/interop/proc_agent.py,
// docs/evaluation.md). Java 11+ single-file launch, no compile step:
//
//     hollywood evaluate 'proc:java examples/proc/RandomClient.java' simple --games 10
//
// It reads only the "type" of each message and the "legal" array of each decision (with regular
// expressions: the server writes one JSON object per line, without spaces), and answers with a
// random legal action, or with --simple: big gin or a knock when legal, never the discard pile,
// else its highest card.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class RandomClient {
    static final Pattern TYPE = Pattern.compile("\"type\":\"(\\w+)\"");
    static final Pattern SEED = Pattern.compile("\"seed\":(-?\\d+)");
    static final Pattern LEGAL = Pattern.compile("\"legal\":\\[([^\\]]*)\\]");
    static final Pattern NAME = Pattern.compile("\"([^\"]*)\"");
    static final String RANKS = "A23456789TJQK";

    static int value(String action) {  // "discard Kh" -> 10
        return Math.min(RANKS.indexOf(action.charAt(action.length() - 2)) + 1, 10);
    }

    static String choose(List<String> legal, Random rng, boolean simple) {
        if (!simple) return legal.get(rng.nextInt(legal.size()));
        for (String prefer : new String[] {"big gin", "pass", "draw stock"})
            if (legal.contains(prefer)) return prefer;
        String best = null;
        for (String a : legal) {
            if (a.startsWith("knock ")) return a;
            if (a.startsWith("discard ") && (best == null || value(a) >= value(best))) best = a;
        }
        return best != null ? best : legal.get(0);
    }

    public static void main(String[] args) throws Exception {
        boolean simple = args.length > 0 && args[0].equals("--simple");
        Random rng = new Random();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            Matcher t = TYPE.matcher(line);
            String type = t.find() ? t.group(1) : "";
            StringBuilder out = new StringBuilder();
            if (type.equals("hello")) {
                Matcher s = SEED.matcher(line);
                if (s.find()) rng = new Random(Long.parseLong(s.group(1)));
                out.append("{\"type\":\"hello\",\"name\":\"java-example\",\"version\":1}");
            } else if (type.equals("act")) {
                out.append("{\"type\":\"act\",\"actions\":[");
                Matcher m = LEGAL.matcher(line);
                for (int i = 0; m.find(); i++) {
                    List<String> legal = new ArrayList<>();
                    Matcher n = NAME.matcher(m.group(1));
                    while (n.find()) legal.add(n.group(1));
                    out.append(i > 0 ? "," : "").append('"').append(choose(legal, rng, simple)).append('"');
                }
                out.append("]}");
            } else {
                return;  // bye
            }
            System.out.println(out);
            System.out.flush();
        }
    }
}
