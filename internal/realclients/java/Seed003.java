// Seed 003's client, as its write-up gives it: the MongoDB Java driver
// 3.6 with connectionsPerHost = threads (and its other options), threads
// issuing API calls back to back, each call 2 finds by _id and 1 update by
// _id (a new password). Keys are poolsweep's ("user<n>", n < records), so
// that it reads what poolsweep loaded.
//
//   java Seed003 URI THREADS WARMUP_MS WINDOW_MS RECORDS DB COLLECTION
//
// It prints "window-open" when the window opens and "window-closed" when
// it closes, then waits for a line on stdin (the parent reads how its
// threads waited for a CPU meanwhile, and they must still be there), and
// prints "calls=N seconds=S calls_per_s=X errors=E": the calls that ended
// inside the window after the warm-up, as a closed loop measures.

import com.mongodb.MongoClient;
import com.mongodb.MongoClientOptions;
import com.mongodb.MongoClientURI;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;

public class Seed003 {
    public static void main(String[] args) throws Exception {
        String uri = args[0];
        int threads = Integer.parseInt(args[1]);
        long warmupMs = Long.parseLong(args[2]);
        long windowMs = Long.parseLong(args[3]);
        int records = Integer.parseInt(args[4]);
        @SuppressWarnings("deprecation")
        MongoClientOptions.Builder opts = MongoClientOptions.builder()
            .connectionsPerHost(threads)
            .threadsAllowedToBlockForConnectionMultiplier(1)
            .connectTimeout(5000)
            .maxWaitTime(120000)
            .socketKeepAlive(true)
            .socketTimeout(0);
        MongoClient client = new MongoClient(new MongoClientURI(uri, opts));
        MongoCollection<Document> coll = client.getDatabase(args[5]).getCollection(args[6]);
        long start = System.nanoTime();
        long from = start + warmupMs * 1000000L;
        long to = from + windowMs * 1000000L;
        AtomicLong calls = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        CountDownLatch read = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            ts[i] = new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (true) {
                    try {
                        coll.find(Filters.eq("_id", "user" + r.nextInt(records))).first();
                        coll.find(Filters.eq("_id", "user" + r.nextInt(records))).first();
                        coll.updateOne(Filters.eq("_id", "user" + r.nextInt(records)),
                            Updates.set("password", Long.toHexString(r.nextLong())));
                    } catch (RuntimeException e) {
                        long now = System.nanoTime();
                        if (now >= from && now < to) {
                            errors.incrementAndGet();
                        }
                        continue;
                    }
                    long now = System.nanoTime();
                    if (now >= to) {
                        // Stay alive until the parent has read this
                        // thread's CPU waits.
                        try {
                            read.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return;
                    }
                    if (now >= from) {
                        calls.incrementAndGet();
                    }
                }
            });
            ts[i].start();
        }
        sleepUntil(from);
        System.out.println("window-open");
        System.out.flush();
        sleepUntil(to);
        System.out.println("window-closed");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in)).readLine();
        read.countDown();
        for (Thread t : ts) {
            t.join();
        }
        client.close();
        double secs = windowMs / 1000.0;
        System.out.printf("calls=%d seconds=%.3f calls_per_s=%.1f errors=%d%n", calls.get(), secs, calls.get() / secs, errors.get());
    }

    static void sleepUntil(long deadline) throws InterruptedException {
        long ms;
        while ((ms = (deadline - System.nanoTime()) / 1000000L) > 0) {
            Thread.sleep(ms);
        }
    }
}
