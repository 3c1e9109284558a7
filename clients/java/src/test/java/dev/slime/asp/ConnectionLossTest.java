package dev.slime.asp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A connection lost mid-save (pg_terminate_backend from another session):
 * without retries the save fails and leaves the previous save intact; with
 * them (the default) the save is run again on a new connection and lands.
 */
class ConnectionLossTest {

    // Terminate the first backend seen running a loader save (other than the caller's), once; how many it terminated.
    private static Thread killer(AtomicBoolean done, AtomicInteger killed) {
        Thread t = new Thread(() -> {
            try {
                while (!done.get() && killed.get() == 0)
                    killed.addAndGet((int) Db.count("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) "
                            + "FROM pg_stat_activity WHERE query LIKE 'SELECT slime_loader_save(%' "
                            + "AND state = 'active' AND pid <> pg_backend_pid()"));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        t.start();
        return t;
    }

    @Test
    void terminatedSaveLeavesThePreviousOne() throws Exception {
        PostgresSlimeLoader loader = new PostgresSlimeLoader(Db.dataSource(), Db.table("cut"));
        loader.setFailoverWait(Duration.ZERO);
        byte[] hub = Db.corpusFile("slime/crawlspace/hub.slime");
        long token = loader.acquireLease("island", "cut", Duration.ofMinutes(5)).orElseThrow();
        loader.saveWorld("island", hub, token);
        byte[] good = hub;
        int kills = 0;
        for (int attempt = 0; attempt < 30 && kills < 3; attempt++) {
            byte[] next = Db.variant(hub, attempt + 1);
            long saves = loader.listSaves("island").size();
            AtomicBoolean done = new AtomicBoolean();
            AtomicInteger killed = new AtomicInteger();
            Thread killer = killer(done, killed);
            boolean saved;
            try {
                loader.saveWorld("island", next, token);
                saved = true;
            } catch (IOException e) {
                assertFalse(e instanceof StaleLeaseException || e instanceof InvalidSlimeFileException, e.toString());
                saved = false;
            }
            done.set(true);
            killer.join();
            if (saved) {
                good = next;
                assertEquals(saves + 1, loader.listSaves("island").size());
            } else {
                assertEquals(1, killed.get());
                kills++;
                assertEquals(saves, loader.listSaves("island").size(), "a cut save left a row");
            }
            assertTrue(Db.sameWorld(good, loader.readWorld("island")), "the newest save is not the last good one");
        }
        assertTrue(kills > 0, "no save was cut in 30 attempts");
        assertEquals(0, Db.count("SELECT count(*) FROM slime_store_verify()"));
    }

    @Test
    void terminatedSaveIsRetried() throws Exception {
        PostgresSlimeLoader loader = new PostgresSlimeLoader(Db.dataSource(), Db.table("retry"));
        byte[] hub = Db.corpusFile("slime/crawlspace/hub.slime");
        long token = loader.acquireLease("island", "retry", Duration.ofMinutes(5)).orElseThrow();
        loader.saveWorld("island", hub, token);
        int cut = 0;
        for (int attempt = 0; attempt < 30 && cut < 3; attempt++) {
            byte[] next = Db.variant(hub, attempt + 1);
            long saves = loader.listSaves("island").size();
            AtomicBoolean done = new AtomicBoolean();
            AtomicInteger killed = new AtomicInteger();
            Thread killer = killer(done, killed);
            loader.saveWorld("island", next, token);     // a cut save is run again: no exception
            done.set(true);
            killer.join();
            long now = loader.listSaves("island").size();
            // one save, or two equal ones when the cut statement had committed before its connection went
            assertTrue(now == saves + 1 || killed.get() == 1 && now == saves + 2, saves + " saves before, " + now + " after");
            assertTrue(Db.sameWorld(next, loader.readWorld("island")), "the newest save is not the one just made");
            cut += killed.get();
        }
        assertTrue(cut > 0, "no save was cut in 30 attempts");
        assertEquals(0, Db.count("SELECT count(*) FROM slime_store_verify()"));
    }
}
