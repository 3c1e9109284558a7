package dev.slime.asp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Loader instances in threads racing for one world. */
class LeaseTest {

    private static final int VARIANTS = 6;
    private static final long RUN_MILLIS = 6000;
    private static final List<byte[]> files = new ArrayList<>();

    @BeforeAll
    static void variants() throws Exception {
        byte[] hub = Db.corpusFile("slime/crawlspace/hub.slime");
        for (int i = 0; i < VARIANTS; i++)
            files.add(Db.variant(hub, i));
    }

    // Run each task in its own thread; their results once all are done.
    private static <T> List<T> race(List<Callable<T>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            List<T> out = new ArrayList<>();
            for (Future<T> f : pool.invokeAll(tasks))
                out.add(f.get());
            return out;
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void oneHolderAtATime() throws Exception {
        String table = Db.table("excl");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        List<Callable<Integer>> tasks = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            String holder = "server-" + t;
            PostgresSlimeLoader loader = new PostgresSlimeLoader(Db.pooled(), table);
            tasks.add(() -> {
                int grants = 0;
                long end = System.currentTimeMillis() + RUN_MILLIS;
                while (System.currentTimeMillis() < end) {
                    OptionalLong token = loader.acquireLease("island", holder, Duration.ofSeconds(30));
                    if (token.isEmpty())
                        continue;
                    grants++;
                    tokens.add(token.getAsLong());
                    if (inside.incrementAndGet() != 1)
                        overlaps.incrementAndGet();
                    loader.saveWorld("island", files.get(grants % VARIANTS), token.getAsLong());
                    inside.decrementAndGet();
                    loader.releaseLease("island", token.getAsLong());
                }
                return grants;
            });
        }
        List<Integer> grants = race(tasks);
        assertEquals(0, overlaps.get(), "two holders at once");
        assertTrue(grants.get(0) > 0 && grants.get(1) > 0, "both servers got the lease: " + grants);
        // every grant a new, larger token
        List<Long> sorted = new ArrayList<>(tokens);
        Collections.sort(sorted);
        assertEquals(sorted.size(), sorted.stream().distinct().count());
        assertEquals(tokens.size(), grants.get(0) + grants.get(1));
    }

    @Test
    void expiredHolderIsFenced() throws Exception {
        String table = Db.table("expiry");
        PostgresSlimeLoader a = new PostgresSlimeLoader(Db.pooled(), table);
        PostgresSlimeLoader b = new PostgresSlimeLoader(Db.pooled(), table);
        long ta = a.acquireLease("island", "a", Duration.ofSeconds(30)).orElseThrow();
        a.saveWorld("island", files.get(0), ta);
        assertTrue(b.acquireLease("island", "b", Duration.ofSeconds(30)).isEmpty());
        // a's lease is cut to 300 ms (however long the save took) and runs out
        assertTrue(a.renewLease("island", ta, Duration.ofMillis(300)));
        Thread.sleep(1000);
        // a stalls past its lease (a GC pause); b takes over and saves
        long tb = b.acquireLease("island", "b", Duration.ofSeconds(30)).orElseThrow();
        assertTrue(tb > ta);
        b.saveWorld("island", files.get(1), tb);
        // a's late save and renew are refused; b's save stands
        StaleLeaseException e = assertThrows(StaleLeaseException.class, () -> a.saveWorld("island", files.get(2), ta));
        assertTrue(e.getMessage().contains("not held by token " + ta), e.getMessage());
        assertFalse(a.renewLease("island", ta, Duration.ofSeconds(30)));
        assertThrows(StaleLeaseException.class, () -> a.rollback("island", 1, ta));
        assertTrue(Db.sameWorld(files.get(1), b.readWorld("island")));
        assertEquals(2, b.listSaves("island").size());
        // renew keeps b's lease running past its first expiry
        long tc = b.acquireLease("other", "b", Duration.ofSeconds(3)).orElseThrow();
        for (int i = 0; i < 4; i++) {
            Thread.sleep(1000);
            assertTrue(b.renewLease("other", tc, Duration.ofSeconds(3)));
        }
        assertTrue(a.acquireLease("other", "a", Duration.ofSeconds(1)).isEmpty());
        b.saveWorld("other", files.get(3), tc);
    }

    private record Ack(long token, int seq, int file) {
    }

    @Test
    void noAcknowledgedSaveIsLost() throws Exception {
        String table = Db.table("acked");
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger acked = new AtomicInteger();
        AtomicInteger grants = new AtomicInteger();
        long start = System.currentTimeMillis();
        // run RUN_MILLIS, and on (up to a minute, on a slow machine) until 10 saves were acknowledged and one refused
        java.util.function.BooleanSupplier running = () -> {
            long t = System.currentTimeMillis() - start;
            return t < RUN_MILLIS || (t < 60_000 && (acked.get() < 10 || refused.get() == 0));
        };
        List<Callable<List<Ack>>> tasks = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            String holder = "server-" + t;
            PostgresSlimeLoader loader = new PostgresSlimeLoader(Db.pooled(), table, 1000);
            tasks.add(() -> {
                List<Ack> acks = new ArrayList<>();
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (running.getAsBoolean()) {
                    OptionalLong token = loader.acquireLease("island", holder, Duration.ofMillis(1000));
                    if (token.isEmpty()) {
                        Thread.sleep(rnd.nextInt(20));
                        continue;
                    }
                    grants.incrementAndGet();
                    for (int seq = 0; seq < 3; seq++) {
                        if (rnd.nextInt(4) == 0)
                            Thread.sleep(1100);   // stall past the lease: the next save may be refused
                        int f = rnd.nextInt(VARIANTS);
                        try {
                            loader.saveWorld("island", files.get(f), token.getAsLong());
                            acks.add(new Ack(token.getAsLong(), seq, f));
                            acked.incrementAndGet();
                        } catch (StaleLeaseException e) {
                            refused.incrementAndGet();
                            break;
                        }
                    }
                }
                return acks;
            });
        }
        List<Ack> acks = new ArrayList<>();
        race(tasks).forEach(acks::addAll);
        String tally = acks.size() + " saves acknowledged, " + refused.get() + " refused, " + grants.get() + " grants";
        assertTrue(acks.size() >= 10, "too few saves acknowledged: " + tally);
        assertTrue(refused.get() > 0, "no late save was refused, the race did not happen: " + tally);
        // every acknowledged save is in the history, with its token and its world
        for (Ack a : acks)
            assertTrue(Db.isTrue("SELECT EXISTS (SELECT 1 FROM " + table + " WHERE world = 'island' AND token = ? "
                    + "AND data = slime_from_slimefile(?))", a.token(), files.get(a.file())), "lost: " + a);
        assertEquals(acks.size(), Db.count("SELECT count(*) FROM " + table));
        // and the world is the last one acknowledged (largest token, last in its lease)
        Ack last = Collections.max(acks, (x, y) -> x.token() != y.token()
                ? Long.compare(x.token(), y.token()) : Integer.compare(x.seq(), y.seq()));
        PostgresSlimeLoader reader = new PostgresSlimeLoader(Db.pooled(), table);
        assertTrue(Db.sameWorld(files.get(last.file()), reader.readWorld("island")));
    }

    @Test
    void saveRacingGcKeepsEveryChunk() throws Exception {
        String table = Db.table("gcrace");
        PostgresSlimeLoader loader = new PostgresSlimeLoader(Db.pooled(), table, 2);
        long token = loader.acquireLease("island", "gc", Duration.ofMinutes(5)).orElseThrow();
        // variants of this test only: each save's changed chunk is garbage once the save is pruned
        byte[] hub = Db.corpusFile("slime/crawlspace/hub.slime");
        List<byte[]> own = new ArrayList<>();
        for (int i = 0; i < 24; i++)
            own.add(Db.variant(hub, 2000 + i));
        AtomicBoolean saving = new AtomicBoolean(true);
        AtomicInteger removed = new AtomicInteger();
        List<Callable<Integer>> tasks = List.of(() -> {
            try {
                for (int i = 0; i < 24; i++)
                    loader.saveWorld("island", own.get(i), token);
            } finally {
                saving.set(false);
            }
            return 24;
        }, () -> {
            int runs = 0;
            while (saving.get()) {
                removed.addAndGet(((Number) Db.scalar("SELECT removed_entries FROM slime_gc()")).intValue());
                runs++;
            }
            return runs;
        });
        List<Integer> done = race(tasks);
        assertTrue(done.get(1) > 1, "slime_gc() ran " + done.get(1) + " times");
        assertTrue(removed.get() > 0, "slime_gc() collected nothing during the saves: the race did not happen");
        // every kept save resolves and passes the full check; the store is sound
        assertEquals(0, Db.count("SELECT count(*) FROM " + table + " WHERE NOT slime_verify(slime_resolve(data))"));
        assertEquals(0, Db.count("SELECT count(*) FROM slime_store_verify()"));
        assertTrue(Db.sameWorld(own.get(23), loader.readWorld("island")));
        Db.scalar("SELECT removed_entries FROM slime_gc()");
        assertTrue(Db.sameWorld(own.get(23), loader.readWorld("island")));
        loader.rollback("island", loader.listSaves("island").get(0).id(), token);
        assertTrue(Db.sameWorld(own.get(22), loader.readWorld("island")));
    }
}
