// Writes, with java.io.ObjectOutputStream, a HashMap of the records read from standard input (one JSON
// line each, kept as its text) to standard output: Java's own serialization of a real object graph.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.HashMap;

public class JavaSerialize {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        ArrayList<String> records = new ArrayList<>();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            records.add(line);
        }
        HashMap<String, Object> document = new HashMap<>();
        document.put("version", 3);
        document.put("records", records);
        ObjectOutputStream out = new ObjectOutputStream(System.out);
        out.writeObject(document);
        out.flush();
    }
}
