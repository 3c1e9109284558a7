package dev.slime.asp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.infernalsuite.asp.api.exceptions.UnknownWorldException;
import com.infernalsuite.asp.api.loaders.SlimeLoader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The SlimeLoader contract as ASP uses it, and bad files. */
class LoaderTest {

    private static final String SKY = "slime/newsky/skyblock.slime";

    @Test
    void aspContract() throws Exception {
        String table = Db.table("asp");
        SlimeLoader loader = new PostgresSlimeLoader(Db.dataSource(), table);
        new PostgresSlimeLoader(Db.dataSource(), table);   // a second server on the same table
        byte[] file = Db.corpusFile(SKY);

        assertFalse(loader.worldExists("island"));
        assertEquals(List.of(), loader.listWorlds());
        assertThrows(UnknownWorldException.class, () -> loader.readWorld("island"));
        assertThrows(UnknownWorldException.class, () -> loader.deleteWorld("island"));

        loader.saveWorld("island", file);
        loader.saveWorld("other", file);
        assertTrue(loader.worldExists("island"));
        assertEquals(List.of("island", "other"), loader.listWorlds());
        assertTrue(Db.sameWorld(file, loader.readWorld("island")));

        loader.deleteWorld("island");
        assertFalse(loader.worldExists("island"));
        assertThrows(UnknownWorldException.class, () -> loader.readWorld("island"));
        assertEquals(List.of("other"), loader.listWorlds());
        // saveWorlds (the sixth method of later ASP versions)
        ((PostgresSlimeLoader) loader).saveWorlds(Map.of("island", file, "third", file));
        assertEquals(List.of("island", "other", "third"), loader.listWorlds());
    }

    @Test
    void serversStartingAtOnceShareTheTables() throws Exception {
        String table = Db.table("start");
        List<Thread> threads = new java.util.ArrayList<>();
        List<Throwable> errors = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        for (int i = 0; i < 4; i++) {
            Thread t = new Thread(() -> {
                try {
                    new PostgresSlimeLoader(Db.dataSource(), table);
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads)
            t.join();
        assertEquals(List.of(), errors);
        // one of each: the lease fence, the store trigger and the GC's tracking trigger (0.10.0)
        assertEquals(3, Db.count("SELECT count(*) FROM pg_trigger WHERE tgrelid = ?::regclass AND NOT tgisinternal", table));
        assertEquals(3, Db.count("SELECT count(DISTINCT tgfoid) FROM pg_trigger WHERE tgrelid = ?::regclass AND NOT tgisinternal", table));
    }

    @Test
    void tokenlessSaveTakesTheLease() throws Exception {
        String table = Db.table("tokenless");
        PostgresSlimeLoader a = new PostgresSlimeLoader(Db.dataSource(), table);
        PostgresSlimeLoader b = new PostgresSlimeLoader(Db.dataSource(), table);
        byte[] file = Db.corpusFile(SKY);
        a.saveWorld("island", file);
        // b cannot save, acquire or delete while a's lease runs
        assertThrows(StaleLeaseException.class, () -> b.saveWorld("island", file));
        assertTrue(b.acquireLease("island", b.holder(), Duration.ofSeconds(5)).isEmpty());
        assertThrows(StaleLeaseException.class, () -> b.deleteWorld("island"));
        assertEquals(1, a.listSaves("island").size());
        assertThrows(IllegalArgumentException.class, () -> new PostgresSlimeLoader(Db.dataSource(), "Bad-Name"));
    }

    @Test
    void badFilesAreRefusedAndNothingStored() throws Exception {
        PostgresSlimeLoader loader = new PostgresSlimeLoader(Db.dataSource(), Db.table("bad"));
        byte[] good = Db.corpusFile(SKY);
        long token = loader.acquireLease("island", "bad", Duration.ofMinutes(1)).orElseThrow();

        InvalidSlimeFileException e = assertThrows(InvalidSlimeFileException.class,
                () -> loader.saveWorld("island", "not a slime file".getBytes(), token));
        assertTrue(e.getMessage().contains("slime file"), e.getMessage());
        assertFalse(loader.worldExists("island"));

        loader.saveWorld("island", good, token);
        byte[] truncated = java.util.Arrays.copyOf(good, good.length / 2);
        assertThrows(InvalidSlimeFileException.class, () -> loader.saveWorld("island", truncated, token));
        byte[] future = good.clone();
        future[2] = 99;   // a slime file version nobody wrote
        assertThrows(InvalidSlimeFileException.class, () -> loader.saveWorld("island", future, token));
        assertEquals(1, loader.listSaves("island").size());
        assertTrue(Db.sameWorld(good, loader.readWorld("island")));
        assertArrayEquals(loader.readWorld("island"), loader.readWorld("island"));
    }
}
