// A client that nobody in poolsweep wrote (the MongoDB Java driver 3.6,
// Debian's libmongodb-java) against each URI given: it discovers the
// topology, runs hello (isMaster where the server has no hello),
// serverStatus, an insert, a find and an update by _id, and on a replica
// set a find with the secondary read preference. One line per URI:
// "ok N key=value ..." or "fail N what went wrong". Every wait is bounded.

import com.mongodb.MongoClient;
import com.mongodb.MongoClientOptions;
import com.mongodb.MongoClientURI;
import com.mongodb.MongoCommandException;
import com.mongodb.ReadPreference;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import com.mongodb.connection.ClusterDescription;
import com.mongodb.connection.ServerDescription;
import com.mongodb.event.ClusterClosedEvent;
import com.mongodb.event.ClusterDescriptionChangedEvent;
import com.mongodb.event.ClusterListener;
import com.mongodb.event.ClusterOpeningEvent;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.bson.Document;

public class Probe {
    static final int TIMEOUT_MS = 10000;

    // Keeps the driver's latest description of the deployment.
    static class Topology implements ClusterListener {
        volatile ClusterDescription description;
        public void clusterOpening(ClusterOpeningEvent e) {}
        public void clusterClosed(ClusterClosedEvent e) {}
        public void clusterDescriptionChanged(ClusterDescriptionChangedEvent e) {
            description = e.getNewDescription();
        }
    }

    static Set<String> secondaries(ClusterDescription cd) {
        Set<String> out = new HashSet<>();
        for (ServerDescription sd : cd.getServerDescriptions()) {
            if (sd.isSecondary()) {
                out.add(sd.getAddress().toString());
            }
        }
        return out;
    }

    static Map<String, Object> probe(String uri, String prefix) throws Exception {
        Map<String, Object> out = new TreeMap<>();
        Topology topo = new Topology();
        MongoClientOptions.Builder opts = MongoClientOptions.builder()
            .serverSelectionTimeout(TIMEOUT_MS)
            .connectTimeout(TIMEOUT_MS)
            .socketTimeout(TIMEOUT_MS)
            .maxWaitTime(TIMEOUT_MS)
            .addClusterListener(topo);
        MongoClient client = new MongoClient(new MongoClientURI(uri, opts));
        try {
            MongoDatabase admin = client.getDatabase("admin");
            admin.runCommand(new Document("ping", 1));
            // The listener hears of the description the ping was selected
            // by on the driver's own thread, maybe after the ping returns
            // (seen in CI: UNKNOWN for a router): wait for it, bounded.
            long known = System.nanoTime() + TIMEOUT_MS * 1000000L;
            while ((topo.description == null || topo.description.getType().toString().equals("UNKNOWN")) && System.nanoTime() < known) {
                Thread.sleep(10);
            }
            ClusterDescription cd = topo.description;
            out.put("topology", cd.getType().toString());
            out.put("connectionMode", cd.getConnectionMode().toString());
            Document hello;
            try {
                hello = admin.runCommand(new Document("hello", 1));
                out.put("hello", "hello");
            } catch (MongoCommandException e) {
                if (e.getErrorCode() != 59) { // CommandNotFound: a server before 4.4
                    throw e;
                }
                hello = admin.runCommand(new Document("isMaster", 1));
                out.put("hello", "isMaster");
            }
            out.put("msg", hello.get("msg", "-"));
            out.put("setName", hello.get("setName", "-"));
            out.put("maxWireVersion", hello.get("maxWireVersion"));
            Document status = admin.runCommand(new Document("serverStatus", 1));
            out.put("process", status.get("process"));
            out.put("version", status.get("version"));
            out.put("uptime", status.get("uptime").getClass().getSimpleName());
            MongoCollection<Document> coll = client.getDatabase("test").getCollection("user");
            String id = prefix + "-1";
            coll.insertOne(new Document("_id", id).append("username", "zhou92001").append("password", "abcd"));
            Document doc = coll.find(Filters.eq("_id", id)).first();
            out.put("found", doc != null && "zhou92001".equals(doc.get("username")));
            UpdateResult res = coll.updateOne(Filters.eq("_id", id), Updates.set("password", "efgh"));
            out.put("matched", res.getMatchedCount());
            out.put("modified", res.getModifiedCount());
            doc = coll.find(Filters.eq("_id", id)).first();
            out.put("updated", doc != null && "efgh".equals(doc.get("password")));
            if (cd.getType().toString().equals("REPLICA_SET")) {
                // Discovery goes on after the first server is selected:
                // wait, for a bounded time, until the driver knows every
                // member the set's hello lists as a secondary.
                int want = ((java.util.List<?>) hello.get("hosts")).size() - 1;
                long until = System.nanoTime() + TIMEOUT_MS * 1000000L;
                Set<String> secondaries = secondaries(topo.description);
                while (secondaries.size() < want && System.nanoTime() < until) {
                    Thread.sleep(10);
                    secondaries = secondaries(topo.description);
                }
                out.put("secondaries", secondaries.size());
                MongoCollection<Document> sec = coll.withReadPreference(ReadPreference.secondary());
                // The write reaches a secondary after its replication lag:
                // ask until it is there, for a bounded time.
                long deadline = System.nanoTime() + TIMEOUT_MS * 1000000L;
                String addr;
                while (true) {
                    try (MongoCursor<Document> cur = sec.find(Filters.eq("_id", id)).limit(1).iterator()) {
                        Document d = cur.hasNext() ? cur.next() : null;
                        addr = cur.getServerAddress().toString();
                        if (d != null && "efgh".equals(d.get("password"))) {
                            break;
                        }
                    }
                    if (System.nanoTime() > deadline) {
                        throw new RuntimeException("the secondary never showed the update");
                    }
                    Thread.sleep(10);
                }
                out.put("secondaryRead", addr);
                out.put("fromSecondary", secondaries.contains(addr));
            }
        } finally {
            client.close();
        }
        return out;
    }

    public static void main(String[] args) {
        boolean failed = false;
        for (int i = 0; i < args.length; i++) {
            try {
                StringBuilder line = new StringBuilder("ok " + i);
                for (Map.Entry<String, Object> e : probe(args[i], "java" + i).entrySet()) {
                    line.append(' ').append(e.getKey()).append('=').append(e.getValue());
                }
                System.out.println(line);
            } catch (Exception e) { // every failure is reported, none ends the run
                failed = true;
                System.out.println("fail " + i + " " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' '));
            }
        }
        System.exit(failed ? 1 : 0);
    }
}
